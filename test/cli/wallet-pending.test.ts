// An invitation the service sends a CLI wallet by DIDCOMM: `wallet pickup` collects it when no
// serve process runs, `wallet pending` shows it, `approve` / `decline` answer it; `wallet serve`
// prints each arrival (a line, or a JSON line with --json) and, with --auto-accept, accepts it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { startServiceTwin, waitForState, waitForWorkflowStatus, type ServiceTwin } from '../../src/testing/index.js';
import { freePort, startCli, type RunningCli } from '../e2e/processes.js';
import { ERROR_LINE, runCli, tempDir } from './run-cli.js';

let twin: ServiceTwin;
let store: Store;
let dir: Awaited<ReturnType<typeof tempDir>>;
let serve: RunningCli | undefined;

beforeAll(async () => {
  store = await openStore();
  twin = await startServiceTwin({ store, transport: 'http' });
  dir = await tempDir();
});
afterEach(async () => {
  await serve?.stop();
  serve = undefined;
});
afterAll(async () => {
  await twin?.close();
  await store?.close();
  await dir?.remove();
});

const json = <T = any>(text: string): T => JSON.parse(text) as T;

/** A wallet whose DID names an endpoint on this machine that nobody listens on yet. */
async function newWallet(name: string): Promise<{ data: string; did: string }> {
  const data = dir.file(name);
  const created = await runCli(['wallet', 'create', '--data', data, '--endpoint', `http://127.0.0.1:${await freePort()}/didcomm`, '--json']);
  expect(created.stderr).toBe('');
  return { data, did: json(created.stdout).did };
}

/** An issuance workflow whose invitation the service sends to `did` by DIDCOMM. */
async function invite(did: string, firstName: string): Promise<string> {
  const wf = await twin.client.createWorkflow({ datapoints: { firstName, lastName: 'Hopper', birthDate: '1906-12-09' } });
  await twin.client.sendInvitation(wf.id, [{ channel: 'DIDCOMM', target: did }]);
  return wf.id;
}

describe('a DIDCOMM invitation to a wallet without a serve process', () => {
  it('is collected by pickup, listed by pending and accepted by approve', async () => {
    const { data, did } = await newWallet('picked-up');
    const workflowId = await invite(did, 'Grace');
    expect(json((await runCli(['wallet', 'pending', '--data', data, '--json'])).stdout)).toEqual([]);

    const picked = await runCli(['wallet', 'pickup', '--data', data, '--from', twin.url, '--json']);
    expect(picked.stderr).toBe('');
    const view = json(picked.stdout);
    expect(view.peers).toEqual([twin.did]);
    expect(view.received).toEqual([expect.objectContaining({ type: 'https://didcomm.org/out-of-band/2.0/invitation', status: 'handled' })]);
    expect(view.pending).toEqual([expect.objectContaining({ kind: 'invitation', from: twin.did, goalCode: 'streamlined-vc' })]);

    const pending = json<Array<{ id: string; kind: string }>>((await runCli(['wallet', 'pending', '--data', data, '--json'])).stdout);
    expect(pending).toEqual([expect.objectContaining({ id: view.pending[0].id, kind: 'invitation' })]);
    const human = await runCli(['wallet', 'pending', '--data', data]);
    expect(human.stdout).toContain(`invitation ${pending[0]!.id} from ${twin.did} (streamlined-vc`);
    expect(human.stdout).toContain(`idsync wallet approve ${pending[0]!.id} --data ${data}`);

    const approved = await runCli(['wallet', 'approve', pending[0]!.id, '--data', data, '--wait', '--json']);
    expect(approved.stderr).toBe('');
    const result = json(approved.stdout);
    expect(result).toMatchObject({ id: pending[0]!.id, kind: 'invitation', accepted: { kind: 'issuance', peer: twin.did, credential: { verified: true, status: 'valid' } } });
    expect(result.accepted.credential.claims).toMatchObject({ firstName: 'Grace' });
    expect((await waitForWorkflowStatus(twin.client, workflowId, 'COMPLETED')).credentialId).toBe(result.accepted.credential.id);
    expect(json((await runCli(['wallet', 'pending', '--data', data, '--json'])).stdout)).toEqual([]);
  });

  it('is dropped by decline, and the workflow stays unanswered', async () => {
    const { data, did } = await newWallet('declined');
    const workflowId = await invite(did, 'Nobody');
    const view = json((await runCli(['wallet', 'pickup', '--data', data, '--from', twin.did, '--json'])).stdout);
    const id = view.pending[0].id as string;
    const declined = await runCli(['wallet', 'decline', id, '--data', data, '--json']);
    expect(json(declined.stdout)).toEqual({ id, kind: 'invitation', declined: true });
    expect(json((await runCli(['wallet', 'pending', '--data', data, '--json'])).stdout)).toEqual([]);
    expect((await twin.client.getWorkflow(workflowId)).status).toBe('INVITATION_SENT');
    const again = await runCli(['wallet', 'approve', id, '--data', data]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(ERROR_LINE);
    expect(again.stderr).toMatch(/^idsync: not_found: nothing pending with id /);
  });

  it('needs --from while the wallet knows no service, and says so', async () => {
    const { data } = await newWallet('no-peer');
    const run = await runCli(['wallet', 'pickup', '--data', data]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('idsync: no_peer: no established Data Pipe: name the service with --from DID_OR_URL\n');
    const nothing = await runCli(['wallet', 'pickup', '--data', data, '--from', twin.url]);
    expect(nothing.stdout).toBe(`nothing queued at ${twin.did}\n`);
  });
});

describe('wallet pickup after a Data Pipe', () => {
  it('collects the sync the service queued while no one listened, from every connected service', async () => {
    const { data } = await newWallet('synced');
    await twin.client.putUser('lin', { settings: { isSyncOn: true } });
    const accepted = await runCli(['wallet', 'accept', (await twin.client.invite('lin')).invitationUrl!, '--data', data, '--json']);
    expect(json(accepted.stdout)).toMatchObject({ kind: 'data-pipe', state: 'established' });
    const queued = twin.agent.waitFor('message-queued');
    await twin.client.putDatapoints('lin', { firstName: 'Lin', lastName: 'Yutang', birthDate: '1895-10-10' });
    await queued;

    const picked = await runCli(['wallet', 'pickup', '--data', data]);
    expect(picked.stderr).toBe('');
    expect(picked.stdout).toMatch(new RegExp(`^collected \\d+ message\\(s\\) from ${twin.did.replace(/[.%]/g, '\\$&')}\n`));
    expect(picked.stdout).toMatch(/request-presentation/);
    expect(picked.stdout).toMatch(/^credential urn:uuid:\S+ received from /m);
    const held = json<Array<{ claims: Record<string, string> }>>((await runCli(['wallet', 'credentials', '--data', data, '--json'])).stdout);
    expect(held.map((c) => c.claims.firstName)).toEqual(['Lin']);
  });
});

describe('wallet serve and DIDCOMM invitations', () => {
  it('prints the arrival with the command that answers it; approve goes through the serve process', async () => {
    const { data, did } = await newWallet('served');
    serve = startCli(['wallet', 'serve', '--data', data]);
    await serve.line(/^control API on /);
    const workflowId = await invite(did, 'Ada');
    const line = await serve.line(/^pending: invitation /);
    const id = /^pending: invitation (\S+) from /.exec(line)![1]!;
    expect(line).toBe(`pending: invitation ${id} from ${twin.did} (streamlined-vc; Issue a credential): idsync wallet approve ${id} --data ${data}, or decline`);

    expect(json((await runCli(['wallet', 'pending', '--data', data, '--json'])).stdout)).toEqual([expect.objectContaining({ id, kind: 'invitation' })]);
    const approved = json((await runCli(['wallet', 'approve', id, '--data', data, '--wait', '--json'])).stdout);
    expect(approved.accepted.credential.claims).toMatchObject({ firstName: 'Ada' });
    await serve.line(new RegExp(`^credential ${approved.accepted.credential.id} received from `));
    await waitForWorkflowStatus(twin.client, workflowId, 'COMPLETED');
  });

  it('with --auto-accept accepts what arrives at once, one JSON line an arrival with --json', async () => {
    const { data, did } = await newWallet('auto');
    serve = startCli(['wallet', 'serve', '--data', data, '--auto-accept', '--json']);
    const started = json(await serve.line(/^\{/));
    expect(started).toMatchObject({ did, autoAccept: true });
    const workflowId = await invite(did, 'Alan');
    const arrived = json(await serve.line(/"event":"invitation-received"/));
    expect(arrived).toMatchObject({ event: 'invitation-received', item: { kind: 'invitation', from: twin.did, goalCode: 'streamlined-vc' } });
    const received = json(await serve.line(/"event":"credential-received"/));
    expect(received.credential.claims).toMatchObject({ firstName: 'Alan' });
    expect((await waitForWorkflowStatus(twin.client, workflowId, 'COMPLETED')).credentialId).toBe(received.credential.id);
    // The serve process drops the pending item once approve() returns, which may be just after the
    // credential arrived and the workflow completed: its state is read until it says so.
    const pending = () => runCli(['wallet', 'pending', '--data', data, '--json']).then((r) => json<unknown[]>(r.stdout));
    expect(await waitForState('no pending item in the serve process', pending, (items) => items.length === 0, undefined, { pollMs: 50 })).toEqual([]);
    // Every stdout line is a JSON object.
    for (const l of serve.stdout().trim().split('\n')) expect(() => JSON.parse(l)).not.toThrow();
  });
});
