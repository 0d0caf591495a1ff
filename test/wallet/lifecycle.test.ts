import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { createWebDid } from '../../src/did/web.js';
import { createRouter, transportOutbound, type Router } from '../../src/router/router.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import { httpTransport } from '../../src/didcomm/transport/http.js';
import { wsTransport } from '../../src/didcomm/transport/ws.js';
import { basicProtocols } from '../../src/protocols/basic.js';
import { request } from '../../src/protocols/await-reply.js';
import { TRUST_PING } from '../../src/protocols/trust-ping.js';
import type { Transport } from '../../src/didcomm/types.js';
import type { DocumentResolver } from '../../src/did/types.js';
import { openStore, type Store } from '../../src/store/store.js';
import { createWallet, type Wallet } from '../../src/wallet/wallet.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
});

async function wallet(options: { endpoint?: string; store?: Store; resolver?: DocumentResolver } = {}): Promise<Wallet> {
  const store = options.store ?? (await openStore());
  if (!options.store) open.push(store);
  const w = createWallet({ store, ...(options.endpoint ? { endpoint: options.endpoint } : {}), ...(options.resolver ? { resolver: options.resolver } : {}) });
  open.push(w);
  return w;
}

/** A peer with a did:web (resolved from memory) that pings over real sockets. */
function peer(transport: 'http' | 'ws') {
  const created = createWebDid({ url: 'https://peer.example' });
  const ion = documentResolver(createResolver({ cache: false }));
  const t: Transport = transport === 'http' ? httpTransport() : wsTransport({ onInbound: (p, i): Promise<void> => router.inbound(p, i) });
  open.push({ close: async () => t.close?.() });
  const router: Router = createRouter({
    envelope: { resolve: async (d) => (d.startsWith(created.did) ? created.document : ion(d)), secrets: memorySecrets(created.secrets) },
    clock: new ManualClock(Date.now()),
    myDids: [created.did],
    send: transportOutbound(t),
  }).use(...basicProtocols());
  // The peer has no endpoint: the wallet answers on the connection the ping came on.
  const pingOver = (to: string, via?: string) =>
    request(router, { type: TRUST_PING.ping, body: { response_requested: true }, return_route: 'all' }, 'trust-ping-response', { to, ...(via ? { via } : {}) });
  return { router, created, pingOver, resolve: (async (d: string) => (d.startsWith(created.did) ? created.document : null)) as DocumentResolver };
}

describe('wallet lifecycle', () => {
  it('without an endpoint creates a DID with no DIDComm service', async () => {
    const w = await wallet();
    const identity = await w.init();
    expect(identity.endpoint).toBeUndefined();
    expect(w.did.startsWith('did:ion:')).toBe(true);
  });

  it('names the endpoint given up front (wallet create --endpoint URL)', async () => {
    const w = await wallet({ endpoint: 'https://wallet.example/didcomm' });
    expect((await w.init()).endpoint).toBe('https://wallet.example/didcomm');
  });

  it('listening on port 0 first creates the DID with the bound URL, and a ping over HTTP is answered', async () => {
    const p = peer('http');
    const w = await wallet({ resolver: p.resolve });
    const urls = await w.listen({ http: { port: 0 }, ws: true });
    expect(urls.http).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/didcomm$/);
    expect(urls.ws).toBe(urls.http!.replace('http', 'ws'));
    expect(w.identity.endpoint).toBe(urls.http);
    const { response } = await p.pingOver(w.did);
    expect(response.from).toBe(w.did); // no Data Pipe with this peer: the long form
  });

  it('answers over its WebSocket endpoint on the same server', async () => {
    const p = peer('ws');
    const w = await wallet({ resolver: p.resolve });
    const urls = await w.listen({ http: { port: 0 }, ws: true });
    const { response } = await p.pingOver(w.did, urls.ws);
    expect(response.thid).toBeDefined();
  });

  it('keeps the DID it has when serving later (wallet serve --port P)', async () => {
    const store = await openStore();
    open.push(store);
    const first = createWallet({ store, endpoint: 'http://127.0.0.1:1/didcomm' });
    const did = (await first.init()).did;
    await first.close();
    const second = await wallet({ store });
    await second.listen({ http: { port: 0 } });
    expect(second.did).toBe(did);
    expect(second.identity.endpoint).toBe('http://127.0.0.1:1/didcomm');
  });

  it('refuses to listen twice and works through auto-init', async () => {
    const w = await wallet();
    expect(await w.credentials()).toEqual([]);
    expect(w.initialized).toBe(true);
    await w.listen({ http: { port: 0 } });
    await expect(w.listen({ http: { port: 0 } })).rejects.toMatchObject({ code: 'invalid_state' });
    expect(() => createWallet({} as never)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});
