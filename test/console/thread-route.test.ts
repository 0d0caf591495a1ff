// A thread's page answers 404 for a thread nobody knows, as an unknown message or workflow does;
// a thread is known when a message of it was logged, or when the party keeps its state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWalletConsole, type WalletConsole } from '../../src/console/index.js';
import { threadStore, type DcThread } from '../../src/service/didcomm/threads.js';
import { messageLog, threadOf } from '../../src/store/messages.js';
import { systemClock } from '../../src/clock.js';
import { connectUser } from '../../src/testing/index.js';
import { startConsoleBed, type ConsoleBed } from './helpers.js';

let c: ConsoleBed;
let web: WalletConsole;

beforeAll(async () => {
  c = await startConsoleBed({ testbed: { transport: 'http' } });
  await connectUser(c.bed, 'ada', c.bed.wallets[0]!);
  web = await startWalletConsole(c.bed.wallets[0]!, { port: 0 });
}, 60_000);
afterAll(async () => {
  await web?.close();
  await c?.close();
});

describe('a thread page', () => {
  it('on the service: 404 for an unknown thread, the page for a logged or kept one', async () => {
    expect((await c.call('GET', '/console/threads/no-such-thread')).statusCode).toBe(404);
    expect((await c.call('GET', '/console/threads/no-such-thread?fragment=1')).statusCode).toBe(404);
    const [logged] = await messageLog(c.bed.service.deps.store, systemClock).list({ limit: 1 });
    expect((await c.call('GET', `/console/threads/${encodeURIComponent(threadOf(logged!))}`)).statusCode).toBe(200);
    // A thread whose messages are not in the log (kept only as the agent's protocol state).
    const store = threadStore(c.bed.service.deps.store, () => new Date().toISOString());
    await store.put({ thid: 'kept-thread', tenantId: c.bed.service.tenantId } as unknown as DcThread);
    expect((await c.call('GET', '/console/threads/kept-thread')).statusCode).toBe(200);
  });

  it('on a wallet: 404 for an unknown thread, the page for one of its threads', async () => {
    const auth = { accept: 'text/html', authorization: `Bearer ${web.accessCode}` };
    expect((await fetch(`${web.url}/threads/no-such-thread`, { headers: auth })).status).toBe(404);
    const [connection] = await c.bed.wallets[0]!.connections();
    expect((await fetch(`${web.url}/threads/${encodeURIComponent(connection!.id)}`, { headers: auth })).status).toBe(200);
  });
});
