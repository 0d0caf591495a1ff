// `idsync wallet create --mediator`: the wallet's DID names the mediator, the grant is kept in the
// folder, and a later command on that folder keeps it; bad options are one coded line on stderr.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMediator, type RunningMediator } from '../../src/mediator/server.js';
import { openStore, type Store } from '../../src/store/store.js';
import { startServiceTwin, waitForSyncContext, type ServiceTwin } from '../../src/testing/index.js';
import { freePort, startCli, type RunningCli } from '../e2e/processes.js';
import { ERROR_LINE, runCli, tempDir } from './run-cli.js';

let mediator: RunningMediator;
let store: Store;
let dir: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  store = await openStore();
  mediator = await startMediator({ store });
  dir = await tempDir();
});
afterAll(async () => {
  await mediator?.close();
  await store?.close();
  await dir?.remove();
});

describe('idsync wallet create --mediator', () => {
  it('creates a wallet behind the mediator of an invitation URL', async () => {
    const data = dir.file('mediated');
    const run = await runCli(['wallet', 'create', '--data', data, '--mediator', mediator.invitationUrl, '--json']);
    expect(run.stderr).toBe('');
    const created = JSON.parse(run.stdout);
    expect(created).toMatchObject({ endpoint: mediator.did, mediator: mediator.did, mediationVersion: '2.0' });
    expect(await mediator.agent.mediator.keylist.lookup(created.did)).toBeDefined();
    // Its status names the mediator and the grant (how it collects only while it runs).
    const status = JSON.parse((await runCli(['wallet', 'status', '--data', data, '--json'])).stdout);
    expect(status.mediation).toEqual({ mediator: mediator.did, version: '2.0', state: 'registered', form: 'did' });
    expect((await runCli(['wallet', 'status', '--data', data])).stdout).toContain(`mediator: ${mediator.did} (coordinate-mediation 2.0, registered)`);

    const human = await runCli(['wallet', 'create', '--data', dir.file('mediated-3'), '--mediator', mediator.did, '--mediation-version', '3.0']);
    expect(human.stdout).toContain(`mediator: ${mediator.did} (coordinate-mediation 3.0, its DID as the endpoint)`);
  });

  it('wallet accept given an invitation to mediate says what to do with it instead', async () => {
    const data = dir.file('accepts-mediation');
    expect((await runCli(['wallet', 'create', '--data', data])).code).toBe(0);
    const run = await runCli(['wallet', 'accept', mediator.shortInvitationUrl, '--data', data]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(ERROR_LINE);
    expect(run.stderr).toContain(`unsupported_goal: this is an invitation to mediate from ${mediator.did}, not a connection`);
    expect(run.stderr).toContain('idsync wallet create --mediator URL');
  });

  it('takes the short invitation URL the mediator prints (?_oobid=, fetched with GET)', async () => {
    const run = await runCli(['wallet', 'create', '--data', dir.file('short'), '--mediator', mediator.shortInvitationUrl, '--json']);
    expect(run.stderr).toBe('');
    const created = JSON.parse(run.stdout);
    expect(created).toMatchObject({ mediator: mediator.did });
    expect(await mediator.agent.mediator.keylist.lookup(created.did)).toBeDefined();
  });

  it('refuses --endpoint with --mediator, and an unknown version, with one coded line', async () => {
    const both = await runCli(['wallet', 'create', '--data', dir.file('x'), '--mediator', mediator.did, '--endpoint', 'http://127.0.0.1:7/didcomm']);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(ERROR_LINE);
    expect(both.stderr).toContain('invalid_argument');
    const version = await runCli(['wallet', 'create', '--data', dir.file('y'), '--mediator', mediator.did, '--mediation-version', '4.0']);
    expect(version.stderr).toMatch(ERROR_LINE);
  });

  it('says why when the mediator cannot be reached, and keeps no wallet half made', async () => {
    const data = dir.file('unreachable');
    // A short URL on a port fetch refuses to use (WHATWG Fetch §Port blocking): the invitation cannot even be fetched.
    const run = await runCli(['wallet', 'create', '--data', data, '--mediator', 'http://127.0.0.1:9/invitation?_oobid=x']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(ERROR_LINE);
    // The socket's reason, not a bare "fetch failed".
    expect(run.stderr).toContain('could not fetch the short invitation URL: cannot reach http://127.0.0.1:9/invitation?_oobid=x (bad port)');
    const then = await runCli(['wallet', 'create', '--data', data, '--mediator', mediator.did, '--json']);
    expect(then.stderr).toBe('');
    expect(JSON.parse(then.stdout).mediator).toBe(mediator.did);
  });

  it('wallet serve runs a mediated wallet: it collects live from the mediator, and the Data Pipe and sync complete through it', async () => {
    const twinStore = await openStore();
    const twin: ServiceTwin = await startServiceTwin({ store: twinStore, transport: 'http' });
    const data = dir.file('served');
    let serve: RunningCli | undefined;
    try {
      expect((await runCli(['wallet', 'create', '--data', data, '--mediator', mediator.invitationUrl])).code).toBe(0);
      serve = startCli(['wallet', 'serve', '--data', data, '--json']);
      const started = JSON.parse(await serve.line(/^\{/));
      expect(started).toMatchObject({ endpoint: mediator.did, mediator: mediator.did, collecting: 'live' });
      await twin.client.putUser('grace');
      const { invitationUrl } = await twin.client.invite('grace');
      const accepted = await runCli(['wallet', 'accept', invitationUrl!, '--data', data, '--wait', '--json']);
      expect(accepted.stderr).toBe('');
      expect(JSON.parse(accepted.stdout)).toMatchObject({ kind: 'data-pipe', state: 'established' });
      await twin.client.putDatapoints('grace', { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09' });
      await waitForSyncContext(twin.client, 'grace', (c) => c.isLinked);
      const credentials = JSON.parse((await runCli(['wallet', 'credentials', '--data', data, '--json'])).stdout);
      expect(credentials).toHaveLength(1);
    } finally {
      await serve?.stop();
      await twin.close();
      await twinStore.close();
    }
  }, 60_000);

  it('wallet serve says when live delivery ends with the mediator gone, and when it is live again', async () => {
    // A mediator of its own on a fixed port: restarted on the same store and port, it keeps its DID.
    const port = await freePort();
    const ownStore = await openStore();
    let own = await startMediator({ store: ownStore, port, host: '127.0.0.1' });
    const data = dir.file('restarted');
    let serve: RunningCli | undefined;
    try {
      expect((await runCli(['wallet', 'create', '--data', data, '--mediator', own.shortInvitationUrl])).code).toBe(0);
      serve = startCli(['wallet', 'serve', '--data', data, '--json']);
      expect(JSON.parse(await serve.line(/^\{/))).toMatchObject({ collecting: 'live' });
      expect(JSON.parse((await runCli(['wallet', 'status', '--data', data, '--json'])).stdout).mediation).toMatchObject({ mediator: own.did, collecting: 'live' });
      await own.close();
      expect(JSON.parse(await serve.line(/collecting-changed/))).toEqual({ event: 'collecting-changed', mediator: own.did, mode: 'polling' });
      expect((await runCli(['wallet', 'status', '--data', data])).stdout).toContain('collecting by polling');
      own = await startMediator({ store: ownStore, port, host: '127.0.0.1' });
      expect(JSON.parse(await serve.line(/"mode":"live"/))).toEqual({ event: 'collecting-changed', mediator: own.did, mode: 'live' });
    } finally {
      await serve?.stop();
      await own.close();
      await ownStore.close();
    }
  }, 60_000);

  it('without serve: accept goes through the mediator, pickup collects from it, and reading commands collect nothing', async () => {
    const twinStore = await openStore();
    const twin: ServiceTwin = await startServiceTwin({ store: twinStore, transport: 'http' });
    const data = dir.file('unserved');
    try {
      const created = await runCli(['wallet', 'create', '--data', data, '--mediator', mediator.invitationUrl, '--json']);
      const walletDid = JSON.parse(created.stdout).did as string;
      await twin.client.putUser('ada');
      const { invitationUrl } = await twin.client.invite('ada');
      const accepted = await runCli(['wallet', 'accept', invitationUrl!, '--data', data, '--json']);
      expect(accepted.stderr).toBe('');
      expect(JSON.parse(accepted.stdout)).toMatchObject({ kind: 'data-pipe', state: 'established' });
      // No wallet process runs: the sync's first message waits at the mediator.
      const queued = new Promise<void>((resolve) => mediator.agent.mediator.events.once('forward-queued', () => resolve()));
      await twin.client.putDatapoints('ada', { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' });
      await queued;
      const did = JSON.parse((await runCli(['wallet', 'credentials', '--data', data, '--json'])).stdout);
      expect(did).toEqual([]);
      // Reading did not collect: the message still waits.
      expect(await mediator.agent.mediator.queue.count(walletDid)).toBeGreaterThan(0);
      // Each pickup collects and answers; the service's next message waits for the next one.
      for (let i = 0; i < 6 && !(await twin.client.syncContext('ada')).isLinked; i++) {
        const picked = await runCli(['wallet', 'pickup', '--data', data, '--json']);
        expect(picked.stderr).toBe('');
        expect(JSON.parse(picked.stdout).peers).toEqual([mediator.did]);
      }
      await waitForSyncContext(twin.client, 'ada', (c) => c.isLinked);
      expect(JSON.parse((await runCli(['wallet', 'credentials', '--data', data, '--json'])).stdout)).toHaveLength(1);
    } finally {
      await twin.close();
      await twinStore.close();
    }
  }, 60_000);
});
