// Crash tests across processes: `idsync service` and, separately, `idsync
// wallet serve` killed abruptly (SIGKILL, by the IDSYNC_TEST_CRASH_AT hook: the process kills
// itself at the named step, crash-point.ts) in the middle of a sync or an issuance workflow,
// restarted on the same data folder, and the flow completes with nobody acting: one valid
// credential in the wallet, the provider's view the same. The whole step × side matrix runs
// in-process (test/crash, `npm run bench:crash`); these cases show the real processes do it too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient, waitForState, waitForSyncContext, waitForWorkflowStatus, type ServiceClient } from '../../src/testing/index.js';
import { runCli, tempDir } from '../cli/run-cli.js';
import { freePort, startCli, type RunningCli } from './processes.js';

const CLIENT = { clientId: 'crash-client', clientSecret: 'crash-client-secret', projectId: 'crash-project' };
const POLL = { pollMs: 200, timeoutMs: 45_000 };
const ADA = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' };

let dir: Awaited<ReturnType<typeof tempDir>>;
const running: RunningCli[] = [];
afterAll(async () => {
  for (const p of running.splice(0)) await p.stop();
  await dir?.remove();
});
beforeAll(async () => {
  dir = await tempDir();
});

/** Starts a CLI process; `killed` resolves with the signal that ended it. */
function start(args: string[], env: Record<string, string> = {}): RunningCli & { killed: Promise<NodeJS.Signals | null> } {
  const p = startCli(args, env);
  running.push(p);
  const killed = new Promise<NodeJS.Signals | null>((resolve) => p.child.once('exit', (_code, signal) => resolve(signal)));
  return Object.assign(p, { killed });
}

interface Setup {
  client: ServiceClient;
  service: ReturnType<typeof start>;
  serve: ReturnType<typeof start>;
  wallet: string;
  serviceArgs: string[];
}

async function setup(name: string, crash: { service?: string; wallet?: string }): Promise<Setup> {
  const port = await freePort();
  const walletPort = await freePort();
  const wallet = dir.file(`${name}-wallet`);
  const serviceArgs = ['service', '--port', String(port), '--data', dir.file(`${name}-service`), '--rate-limit', 'off'];
  const service = start(serviceArgs, { ...env(), ...(crash.service ? { IDSYNC_TEST_CRASH_AT: crash.service } : {}) });
  const [listening, created] = await Promise.all([
    service.line(/^idsync service listening on /),
    runCli(['wallet', 'create', '--data', wallet, '--endpoint', `http://127.0.0.1:${walletPort}/didcomm`, '--json']),
  ]);
  if (created.code !== 0) throw new Error(created.stderr);
  const serve = start(['wallet', 'serve', '--data', wallet, '--json'], crash.wallet ? { IDSYNC_TEST_CRASH_AT: crash.wallet } : {});
  await serve.line(/^\{/);
  const client = createServiceClient({ url: listening.replace('idsync service listening on ', '').trim(), ...CLIENT });
  return { client, service, serve, wallet, serviceArgs };
}

const env = () => ({ IDSYNC_CLIENT_ID: CLIENT.clientId, IDSYNC_CLIENT_SECRET: CLIENT.clientSecret, IDSYNC_PROJECT_ID: CLIENT.projectId });

async function heldCredentials(wallet: string): Promise<Array<{ id: string; status: string; claims: Record<string, string> }>> {
  const run = await runCli(['wallet', 'credentials', '--data', wallet, '--json']);
  return (JSON.parse(run.stdout) as Array<{ id: string; status: string; claims: Record<string, string> }>).filter((c) => c.status === 'valid');
}

describe('crashes of real processes, restarted on their data folders', () => {
  it('a sync completes after the service is killed once its offer is stored, before it is sent', async () => {
    const s = await setup('svc-sync', { service: 'send:offer-credential' });
    await s.client.putUser('ada', { settings: { isSyncOn: true } });
    const { invitationUrl } = await s.client.invite('ada');
    expect((await runCli(['wallet', 'accept', invitationUrl!, '--data', s.wallet, '--wait', '--json'])).code).toBe(0);
    await s.client.putDatapoints('ada', ADA);
    expect(await s.service.killed).toBe('SIGKILL');
    // Back on the same folder and port (same did:web); nobody asks for the sync again.
    const again = start(s.serviceArgs, env());
    await again.line(/^idsync service listening on /);
    const ctx = await waitForSyncContext(s.client, 'ada', (c) => c.isLinked && c.syncContext.datapointsSynced?.firstName === 'Ada', POLL);
    expect(ctx.isLinked).toBe(true);
    const held = await waitForState('one valid credential', () => heldCredentials(s.wallet), (c) => c.length === 1, undefined, POLL);
    expect(held[0]!.claims).toMatchObject({ firstName: 'Ada' });
  }, 90_000);

  it('a sync completes after `wallet serve` is killed once it stored the credential, before its ack went out', async () => {
    const s = await setup('wallet-sync', { wallet: 'send:issue-credential.ack' });
    await s.client.putUser('bob', { settings: { isSyncOn: true } });
    const { invitationUrl } = await s.client.invite('bob');
    expect((await runCli(['wallet', 'accept', invitationUrl!, '--data', s.wallet, '--wait', '--json'])).code).toBe(0);
    await s.client.putDatapoints('bob', { ...ADA, firstName: 'Bob' });
    expect(await s.serve.killed).toBe('SIGKILL');
    const again = start(['wallet', 'serve', '--data', s.wallet, '--json']);
    await again.line(/^\{/);
    // The service sends the credential again; the wallet answers with the ack it had stored.
    const ctx = await waitForSyncContext(s.client, 'bob', (c) => c.syncContext.datapointsSynced?.firstName === 'Bob', POLL);
    expect(ctx.isLinked).toBe(true);
    await again.stop();
    const held = await heldCredentials(s.wallet);
    expect(held).toHaveLength(1);
    expect(held[0]!.claims).toMatchObject({ firstName: 'Bob' });
  }, 90_000);

  it('an issuance workflow is COMPLETED after the service is killed between the holder\'s ack and the completion', async () => {
    const s = await setup('svc-workflow', { service: 'received:issue-credential.ack' });
    const wf = await s.client.createWorkflow({ datapoints: ADA });
    // The whole issuance runs inside this acceptance's POSTs; the service dies at its end.
    expect((await runCli(['wallet', 'accept', wf.invitationUrl, '--data', s.wallet, '--json'])).stderr).toBe('');
    expect(await s.service.killed).toBe('SIGKILL');
    const again = start(s.serviceArgs, env());
    await again.line(/^idsync service listening on /);
    const done = await waitForWorkflowStatus(s.client, wf.id, 'COMPLETED', POLL);
    await s.serve.stop();
    const held = await heldCredentials(s.wallet);
    expect(held.map((c) => c.id)).toEqual([done.credentialId]);
  }, 90_000);
});
