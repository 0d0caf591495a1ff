// A service twin without sockets (the memory transport) answers REST and DIDComm requests handed
// over as plain data (inject-fetch.ts appExchange, offered through http-fetch.ts IN_PROCESS) as
// it answers the same requests through appFetch's Responses; its service client takes that way
// in, and a request that changes something is still seen as a change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryNetwork } from '../../src/didcomm/transport/memory.js';
import { inProcessExchange, type PlainRequest } from '../../src/http-fetch.js';
import { openStore } from '../../src/store/store.js';
import { startServiceTwin, type ServiceTwin } from '../../src/testing/index.js';

let twin: ServiceTwin;
beforeAll(async () => {
  twin = await startServiceTwin({ store: await openStore(), transport: 'memory', network: memoryNetwork() });
});
afterAll(async () => {
  await twin?.close();
});

/** The parts of an answer a client reads: status, content type, body. */
async function viaFetch(req: PlainRequest) {
  const res = await twin.fetch(req.url, { method: req.method, headers: req.headers, ...(req.body !== undefined ? { body: req.body } : {}) });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}
async function viaExchange(req: PlainRequest) {
  const exchange = inProcessExchange(twin.fetch, req.url);
  expect(exchange).toBeDefined();
  const res = await exchange!(req);
  return { status: res.status, type: res.headers['content-type'] ?? null, body: res.body ?? '' };
}

describe('a service twin without sockets, requests as plain data', () => {
  it('answers each request as appFetch answers it: token, problems, a refused DIDComm message', async () => {
    const token = (await (await twin.fetch(`${twin.url}/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: twin.credentials.clientId, clientSecret: twin.credentials.clientSecret }),
    })).json()) as { accessToken: string };
    const requests: PlainRequest[] = [
      { method: 'GET', url: `${twin.url}/api/v1/provider/users/nobody`, headers: { authorization: `Bearer ${token.accessToken}`, accept: 'application/json' } },
      { method: 'GET', url: `${twin.url}/api/v1/provider/users/nobody`, headers: { accept: 'application/json' } },
      { method: 'PUT', url: `${twin.url}/api/v1/provider/users/u-1`, headers: { authorization: `Bearer ${token.accessToken}`, 'content-type': 'application/json' }, body: '{"settings":' },
      { method: 'POST', url: `${twin.url}/didcomm`, headers: { 'content-type': 'application/didcomm-encrypted+json' }, body: '{"protected":"x"}' },
      { method: 'GET', url: `${twin.url}/no/such/route`, headers: {} },
    ];
    for (const req of requests) {
      const a = await viaFetch(req);
      const b = await viaExchange(req);
      expect(b, `${req.method} ${req.url}`).toEqual(a);
    }
    expect((await viaFetch(requests[1])).status).toBe(401);
    expect((await viaFetch(requests[3])).status).toBe(400);
  });

  it('its client takes the plain way in (no fetch Response made), and a change made that way is a change', async () => {
    // appFetch's Response way builds a Response per request; the plain way builds none.
    const Real = globalThis.Response;
    let made = 0;
    globalThis.Response = class extends Real {
      constructor(...args: ConstructorParameters<typeof Response>) {
        super(...args);
        made += 1;
      }
    } as typeof Response;
    try {
      const before = twin.changes.version;
      await twin.client.putUser('u-2', { settings: { isSyncOn: false } });
      expect(twin.changes.version).toBeGreaterThan(before);
      const after = twin.changes.version;
      expect((await twin.client.getUser('u-2')).userId).toBe('u-2');
      expect(twin.changes.version).toBe(after);
    } finally {
      globalThis.Response = Real;
    }
    expect(made).toBe(0);
  });
});
