// The flow the README shows, across processes: `idsync service`, `idsync wallet serve`, REST calls
// of a provider, `idsync wallet accept --wait`, `idsync wallet credentials`; then `idsync demo`.
// State in another process is awaited by polling its REST API inside waitFor helpers (short
// interval, guard timeout): the one place where tests poll. The service packs with the native
// engine and the wallet with didcomm-node (`wallet serve --engine didcomm-node`): a peer on the
// library notices nothing. Every command here is a child process, as users run it (runCliProcess),
// though runCli elsewhere runs one-shot commands in-process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient, nextOutboxEntry, waitForSyncContext, waitForWorkflowStatus, type ServiceClient } from '../../src/testing/index.js';
import { runCliProcess as runCli, tempDir } from '../cli/run-cli.js';
import { freePort, startCli, type RunningCli } from './processes.js';

const CLIENT = { clientId: 'e2e-client', clientSecret: 'e2e-client-secret', projectId: 'e2e-project' };
const POLL = { pollMs: 100, timeoutMs: 15_000 };

let dir: Awaited<ReturnType<typeof tempDir>>;
let service: RunningCli | undefined;
let serve: RunningCli | undefined;
let client: ServiceClient;
let wallet: string;

beforeAll(async () => {
  dir = await tempDir();
  wallet = dir.file('alice');
  const port = await freePort();
  service = startCli(['service', '--port', '0', '--data', dir.file('service')], {
    IDSYNC_CLIENT_ID: CLIENT.clientId,
    IDSYNC_CLIENT_SECRET: CLIENT.clientSecret,
    IDSYNC_PROJECT_ID: CLIENT.projectId,
  });
  const [listening, created] = await Promise.all([
    service.line(/^idsync service listening on /),
    runCli(['wallet', 'create', '--data', wallet, '--endpoint', `http://127.0.0.1:${port}/didcomm`, '--json']),
  ]);
  if (created.code !== 0) throw new Error(created.stderr);
  const url = listening.replace('idsync service listening on ', '').trim();
  client = createServiceClient({ url, ...CLIENT });
  serve = startCli(['wallet', 'serve', '--data', wallet, '--engine', 'didcomm-node', '--json']);
  await serve.line(/^\{/);
});
afterAll(async () => {
  await serve?.stop();
  await service?.stop();
  await dir?.remove();
});

describe('the CLI flow across processes', () => {
  it('connects a user: the provider invites, `wallet accept --wait` returns once the Data Pipe is established', async () => {
    await client.putUser('alice', { settings: { isSyncOn: true } });
    const { invitationUrl } = await client.invite('alice');
    const accepted = await runCli(['wallet', 'accept', invitationUrl!, '--data', wallet, '--wait', '--json']);
    expect(accepted.stderr).toBe('');
    expect(JSON.parse(accepted.stdout)).toMatchObject({ kind: 'data-pipe', state: 'established' });
    expect((await client.syncContext('alice')).isSessionEstablished).toBe(true);
  });

  it('syncs datapoints into the serving wallet; `wallet credentials` lists the verified credential', async () => {
    await client.putDatapoints('alice', { firstName: 'Alice', lastName: 'Liddell', birthDate: '1852-05-04' });
    await waitForSyncContext(client, 'alice', (c) => c.isLinked, POLL);
    const listed = JSON.parse((await runCli(['wallet', 'credentials', '--data', wallet, '--json'])).stdout);
    expect(listed).toEqual([expect.objectContaining({ verified: true, status: 'valid', claims: expect.objectContaining({ firstName: 'Alice' }) })]);
  });

  it('issues through an invitation sent by e-mail: the outbox URL, `wallet accept --wait`, the workflow COMPLETED', async () => {
    const wf = await client.createWorkflow({ datapoints: { firstName: 'Alice', lastName: 'Liddell', birthDate: '1852-05-04' } });
    await client.sendInvitation(wf.id, [{ channel: 'EMAIL', target: 'alice@example.com' }]);
    const email = await nextOutboxEntry({ client }, { to: 'alice@example.com' }, POLL);
    const accepted = JSON.parse((await runCli(['wallet', 'accept', email.invitationUrl, '--data', wallet, '--wait', '--json'])).stdout);
    expect(accepted).toMatchObject({ kind: 'issuance', credential: { verified: true } });
    const done = await waitForWorkflowStatus(client, wf.id, 'COMPLETED', POLL);
    expect(done.credentialId).toBe(accepted.credential.id);
  });

  // The demo runs in-process with the default (native) engine in test/cli/demo.test.ts; here, as
  // users run it, with the didcomm-node engine.
  it('runs `idsync demo --engine didcomm-node --json`: the last line says both credentials verified', async () => {
    const run = await runCli(['demo', '--engine', 'didcomm-node', '--json']);
    expect(run.stderr).toBe('');
    const last = run.stdout.trimEnd().split('\n').at(-1)!;
    const result = JSON.parse(last);
    expect(result.sync).toMatchObject({ isLinked: true, verified: true });
    expect(result.issuance).toMatchObject({ status: 'COMPLETED', verified: true });
  });
});
