// `idsync wallet serve`: the running agent answers the other wallet commands through its control
// API (DIR/serve.json), receives the sync flow on its endpoint, and on the next start collects
// what the service queued while it was down.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { startServiceTwin, waitForSyncContext, type ServiceTwin } from '../../src/testing/index.js';
import { freePort, startCli, type RunningCli } from '../e2e/processes.js';
import { runCli, tempDir } from './run-cli.js';

let twin: ServiceTwin;
let store: Store;
let dir: Awaited<ReturnType<typeof tempDir>>;
let data: string;
let serve: RunningCli | undefined;

beforeAll(async () => {
  store = await openStore();
  twin = await startServiceTwin({ store, transport: 'http' });
  dir = await tempDir();
  data = dir.file('wallet');
  const port = await freePort();
  const created = await runCli(['wallet', 'create', '--data', data, '--endpoint', `http://127.0.0.1:${port}/didcomm`]);
  if (created.code !== 0) throw new Error(created.stderr);
});
afterAll(async () => {
  await serve?.stop();
  await twin?.close();
  await store?.close();
  await dir?.remove();
});

const json = <T = any>(text: string): T => JSON.parse(text) as T;

describe('idsync wallet serve', () => {
  it('listens on the endpoint its DID names and writes a private serve.json', async () => {
    serve = startCli(['wallet', 'serve', '--data', data, '--json']);
    const started = json(await serve.line(/^\{/));
    expect(started.listening.http).toBe(started.endpoint);
    expect(started.listening.ws).toBe(started.endpoint.replace(/^http/, 'ws'));
    expect(started.control).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const info = await stat(join(data, 'serve.json'));
    expect(info.mode & 0o777).toBe(0o600);
  });

  it('accepts a Data Pipe invitation through the serve process, then receives the sync', async () => {
    await twin.client.putUser('ada');
    const { invitationUrl } = await twin.client.invite('ada');
    const accepted = await runCli(['wallet', 'accept', invitationUrl!, '--data', data, '--wait', '--json']);
    expect(accepted.stderr).toBe('');
    expect(json(accepted.stdout)).toMatchObject({ kind: 'data-pipe', state: 'established', peer: twin.did });

    await twin.client.putDatapoints('ada', { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' });
    await waitForSyncContext(twin.client, 'ada', (c) => c.isLinked);
    const credentials = json<Array<{ claims: Record<string, string>; verified: boolean }>>((await runCli(['wallet', 'credentials', '--data', data, '--json'])).stdout);
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ verified: true, status: 'valid', claims: { firstName: 'Ada', lastName: 'Lovelace' } });
  });

  it('wallet status answers through the serve process with its live retry counts', async () => {
    const run = await runCli(['wallet', 'status', '--data', data, '--json']);
    expect(run.stderr).toBe('');
    expect(json(run.stdout)).toMatchObject({
      running: true, connections: { established: 1 }, credentials: 1, pending: 0,
      retries: { scheduled: 0, due: 0, retrying: 0, abandoned: 0, byKind: { step: { scheduled: 0 } } },
    });
  });

  it("says what the serve process refused, in its own words: the problem's detail", async () => {
    // A short URL: only the serve process, fetching it, finds that nothing answers there.
    const run = await runCli(['wallet', 'accept', 'http://127.0.0.1:9/connect?_oobid=x', '--data', data]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^idsync: invalid_invitation: .*_oob/);
  });

  it('lists the message log through the serve process', async () => {
    const log = json<Array<{ direction: string; type: string; mode: string }>>((await runCli(['wallet', 'messages', '--data', data, '--json'])).stdout);
    const names = log.map((m) => m.type.split('/').slice(-2).join('/'));
    for (const step of ['request', 'established', 'request-presentation', 'presentation', 'offer-credential', 'request-credential', 'issue-credential']) {
      expect(names.some((n) => n.endsWith(`/${step}`))).toBe(true);
    }
    expect(log.filter((m) => m.mode !== 'plaintext').every((m) => m.mode === 'authcrypt')).toBe(true);
  });

  it('refuses a control request whose timeoutMs no timer can hold (400), instead of giving up at once', async () => {
    const info = json<{ url: string; token: string }>(await readFile(join(data, 'serve.json'), 'utf8'));
    await twin.client.putUser('bea');
    const { invitationUrl } = await twin.client.invite('bea');
    expect(invitationUrl).toBeTypeOf('string');
    for (const timeoutMs of [1e12, 0, -5, 1.5, '60000']) {
      const res = await fetch(`${info.url}/accept`, {
        method: 'POST',
        headers: { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: invitationUrl, timeoutMs }),
      });
      expect(res.status, String(timeoutMs)).toBe(400);
      expect(await res.json(), String(timeoutMs)).toMatchObject({ code: 'invalid_argument', title: 'Bad Request', detail: expect.stringMatching(/^timeoutMs must be a whole number of ms, 1 to 2147483647/) });
    }
  });

  it('stops on SIGTERM, removes serve.json, and the store opens directly again', async () => {
    expect(await serve!.stop()).toBe(0);
    serve = undefined;
    await expect(stat(join(data, 'serve.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    const credentials = json<unknown[]>((await runCli(['wallet', 'credentials', '--data', data, '--json'])).stdout);
    expect(credentials).toHaveLength(1);
  });

  it('collects what the service queued while it was down when it starts again', async () => {
    // Nobody listens: the service queues the sync for pickup.
    const queued = twin.agent.waitFor('message-queued');
    await twin.client.putDatapoints('ada', { lastName: 'King' });
    await queued;
    serve = startCli(['wallet', 'serve', '--data', data, '--json']);
    await serve.line(/^\{/);
    const context = await waitForSyncContext(twin.client, 'ada', (c) => (c.syncContext.datapointsSynced as Record<string, unknown>).lastName === 'King');
    expect(context.isLinked).toBe(true);
    const credentials = json<Array<{ status: string }>>((await runCli(['wallet', 'credentials', '--data', data, '--json'])).stdout);
    expect(credentials.map((c) => c.status).sort()).toEqual(['replaced', 'valid']);
  });
});
