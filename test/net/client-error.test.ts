// What a request Node's HTTP parser refuses gets from idsync's servers other than the twin's REST
// API (which has its own problem types): a wallet's DIDComm endpoint, the mediator, the fault
// proxy. Problem details with a code, where Node's own answer is a bare 400 with no body; and
// the server answers the next request as before.
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpEndpoint } from '../../src/didcomm/transport/http.js';
import { startMediator } from '../../src/mediator/server.js';
import { openStore } from '../../src/store/store.js';
import { startFaultProxy } from '../../src/testing/fault-proxy.js';
import { rawExchange as exchange } from './raw-exchange.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function servers(): Promise<Array<[string, string]>> {
  const endpoint = await startHttpEndpoint({ port: 0, handler: async () => undefined });
  cleanup.push(() => endpoint.close());
  const store = await openStore();
  const mediator = await startMediator({ store });
  cleanup.push(async () => {
    await mediator.close();
    await store.close();
  });
  const proxy = await startFaultProxy({ listen: 0, target: endpoint.url, plan: { rules: [] } });
  cleanup.push(() => proxy.close());
  return [['wallet endpoint', endpoint.url], ['mediator', mediator.url], ['proxy', proxy.url]];
}

describe("what the HTTP parser refuses, on idsync's other servers", () => {
  it('is answered as problem details with a code, and the server goes on', async () => {
    for (const [name, url] of await servers()) {
      for (const raw of ['FOO / HTTP/1.1\r\nHost: x\r\n\r\n', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab']) {
        expect(await exchange(url, raw), name).toMatchObject({ status: 400, contentType: 'application/problem+json', json: { status: 400, code: 'invalid_request' } });
      }
      const big = await exchange(url, `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(big, name).toMatchObject({ status: 431, json: { status: 431, code: 'headers_too_large' } });
      expect((await fetch(url)).status, name).toBeLessThan(500);
    }
  });
});
