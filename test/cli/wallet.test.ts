// `idsync wallet` without a serve process: each command opens the wallet folder itself; accept
// runs the agent for its own duration (on the DID's endpoint, or live delivery without one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { nextOutboxEntry, startServiceTwin, waitForWorkflowStatus, type ServiceTwin } from '../../src/testing/index.js';
import { freePort } from '../e2e/processes.js';
import { ERROR_LINE, runCli, tempDir } from './run-cli.js';
import { run } from '../../src/cli/program.js';

async function inProcess(args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await run(args, { stdout: (t) => void (out += t), stderr: () => {}, readStdin: async () => '' });
  return { code, out };
}

let twin: ServiceTwin;
let store: Store;
let dir: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  store = await openStore();
  twin = await startServiceTwin({ store, transport: 'http' });
  dir = await tempDir();
});
afterAll(async () => {
  await twin?.close();
  await store?.close();
  await dir?.remove();
});

async function emailedInvitation(to: string): Promise<{ workflowId: string; url: string }> {
  const wf = await twin.client.createWorkflow({ datapoints: { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09' } });
  await twin.client.sendInvitation(wf.id, [{ channel: 'EMAIL', target: to }]);
  const entry = await nextOutboxEntry({ outbox: twin.service.deps.issuance!.outbox }, { to });
  return { workflowId: wf.id, url: entry.invitationUrl };
}

describe('idsync wallet (no serve process)', () => {
  it('creates a wallet once, and refuses to create it again', async () => {
    const data = dir.file('created');
    const first = await runCli(['wallet', 'create', '--data', data, '--endpoint', 'http://127.0.0.1:7001/didcomm', '--json']);
    expect(first.stderr).toBe('');
    const created = JSON.parse(first.stdout);
    expect(created.did).toMatch(/^did:ion:[\w-]+:[\w-]+$/);
    expect(created.did.startsWith(created.shortDid + ':')).toBe(true);
    expect(created.endpoint).toBe('http://127.0.0.1:7001/didcomm');

    const again = await runCli(['wallet', 'create', '--data', data]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(ERROR_LINE);
    expect(again.stderr).toContain(`idsync: wallet_exists: ${data} already holds wallet ${created.shortDid}`);
  });

  it('says there is no wallet in an empty folder', async () => {
    const run = await runCli(['wallet', 'credentials', '--data', dir.file('nothing-here')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(ERROR_LINE);
    expect(run.stderr).toMatch(/^idsync: wallet_not_found: no wallet in /);
  });

  it('accepts an e-mailed issuance invitation with --wait on its own endpoint, then lists the credential and messages', async () => {
    const data = dir.file('endpoint-wallet');
    const port = await freePort();
    expect((await runCli(['wallet', 'create', '--data', data, '--endpoint', `http://127.0.0.1:${port}/didcomm`])).code).toBe(0);
    const { workflowId, url } = await emailedInvitation('grace@example.com');

    const accepted = await runCli(['wallet', 'accept', url, '--data', data, '--wait', '--json']);
    expect(accepted.stderr).toBe('');
    const result = JSON.parse(accepted.stdout);
    expect(result).toMatchObject({ kind: 'issuance', goalCode: 'streamlined-vc', peer: twin.did, credential: { verified: true, status: 'valid', issuer: twin.did } });
    expect(result.credential.claims).toMatchObject({ firstName: 'Grace', lastName: 'Hopper' });
    expect((await waitForWorkflowStatus(twin.client, workflowId, 'COMPLETED')).credentialId).toBe(result.credential.id);

    const listed = JSON.parse((await runCli(['wallet', 'credentials', '--data', data, '--json'])).stdout);
    expect(listed).toEqual([expect.objectContaining({ id: result.credential.id, type: expect.arrayContaining(['VerifiableCredential']), format: 'ldp', verified: true, status: 'valid' })]);

    const messages = await runCli(['wallet', 'messages', '--data', data, '--json']);
    const log = JSON.parse(messages.stdout) as Array<{ direction: string; type: string; mode: string; thid: string }>;
    const types = log.map((m) => `${m.direction} ${m.type.split('/').slice(-1)[0]}`);
    // In the order the messages were made: each answer after what it answers.
    expect(types).toEqual(['in invitation', 'out propose-credential', 'in offer-credential', 'out request-credential', 'in issue-credential', 'out ack']);
    expect(log.filter((m) => m.type !== 'https://didcomm.org/out-of-band/2.0/invitation').every((m) => m.mode === 'authcrypt' && m.thid === result.thid)).toBe(true);

    // The same log as a sequence diagram (in process: the folder is free again).
    const mermaid = await inProcess(['wallet', 'messages', '--data', data, '--format', 'mermaid']);
    expect(mermaid.code).toBe(0);
    expect(mermaid.out.split('\n').slice(0, 3)).toEqual(['sequenceDiagram', '  participant P0 as wallet', expect.stringMatching(/^ {2}participant P1 as did:web:/)]);
    expect(mermaid.out).toContain('  P0->>P1: issue-credential/3.0/propose-credential (authcrypt)');
    expect(mermaid.out).toContain('  P1->>P0: issue-credential/3.0/issue-credential (authcrypt)');
    const html = await inProcess(['wallet', 'messages', '--data', data, '--format', 'html']);
    expect(html.out).toMatch(/^<!DOCTYPE html>/);
    expect(html.out.match(/<g class="arrow"/g)).toHaveLength(6);
    expect((await inProcess(['wallet', 'messages', '--data', data, '--format', 'html', '--json'])).code).toBe(2);
  });

  it('accepting an issuance invitation a second time answers with the credential this wallet already holds', async () => {
    const data = dir.file('twice-wallet');
    const port = await freePort();
    expect((await runCli(['wallet', 'create', '--data', data, '--endpoint', `http://127.0.0.1:${port}/didcomm`])).code).toBe(0);
    const { url } = await emailedInvitation('twice@example.com');
    const first = JSON.parse((await runCli(['wallet', 'accept', url, '--data', data, '--wait', '--json'])).stdout);
    // The same wallet again (e.g. after a crash): the same thread and credential, never invalid-state.
    const again = await runCli(['wallet', 'accept', url, '--data', data, '--wait', '--json']);
    expect(again.stderr).toBe('');
    expect(JSON.parse(again.stdout)).toMatchObject({ thid: first.thid, credential: { id: first.credential.id } });
    expect(JSON.parse((await runCli(['wallet', 'credentials', '--data', data, '--json'])).stdout)).toHaveLength(1);
  });

  it('without --wait, says the proposal was sent and that its answer comes to a running wallet', async () => {
    const data = dir.file('no-wait-wallet');
    expect((await runCli(['wallet', 'create', '--data', data, '--endpoint', `http://127.0.0.1:${await freePort()}/didcomm`])).code).toBe(0);
    const { url } = await emailedInvitation('nowait@example.com');
    const accepted = await runCli(['wallet', 'accept', url, '--data', data]);
    expect(accepted.stderr).toBe('');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toMatch(/^credential proposal sent to did:web:127\.0\.0\.1\S+ \(thread [^)]+\); its answer, the credential or a refusal, arrives while the wallet runs/);
  });

  it('accepts with a wallet that has no endpoint, over live delivery', async () => {
    const data = dir.file('no-endpoint-wallet');
    expect((await runCli(['wallet', 'create', '--data', data, '--json'])).code).toBe(0);
    const { url } = await emailedInvitation('live@example.com');
    const accepted = await runCli(['wallet', 'accept', url, '--data', data, '--wait']);
    expect(accepted.stderr).toBe('');
    expect(accepted.stdout).toMatch(/^credential received from did:web:127\.0\.0\.1/);
    expect(accepted.stdout).toContain('firstName: Grace');
  });

  it('creates a did:peer:2 wallet with --did-method peer, which accepts over live delivery; an unknown method is one line', async () => {
    const data = dir.file('peer-wallet');
    const created = await runCli(['wallet', 'create', '--data', data, '--did-method', 'peer', '--json']);
    expect(created.stderr).toBe('');
    const id = JSON.parse(created.stdout);
    expect(id.did).toMatch(/^did:peer:2\.Ez6LS[\w]+\.Vz6Mk\w+$/);
    expect(id.shortDid).toBe(id.did);
    const { url } = await emailedInvitation('peer@example.com');
    const accepted = await runCli(['wallet', 'accept', url, '--data', data, '--wait']);
    expect(accepted.stderr).toBe('');
    expect(accepted.stdout).toMatch(/^credential received from did:web:127\.0\.0\.1/);

    const bad = await runCli(['wallet', 'create', '--data', dir.file('bad-method'), '--did-method', 'key']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(ERROR_LINE);
    expect(bad.stderr).toContain('--did-method must be ion or peer: key');
  });

  it('reports a bad invitation URL on one line', async () => {
    const data = dir.file('created');
    const run = await runCli(['wallet', 'accept', 'https://example.com/connect?_oob=not-base64-json', '--data', data]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(ERROR_LINE);
  });
});
