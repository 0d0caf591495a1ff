// The wallet's outbound address policy (src/wallet/addresses.ts over src/net): peers' endpoints,
// did:web hosts and status list URLs are connected to only when every address their host name
// resolves to is allowed: loopback yes, private ranges only when allowed, metadata never. Names
// are answered by a resolver injected into the wallet (there is no DNS here).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPeerDid } from '../../src/did/peer.js';
import type { HostResolver } from '../../src/net/connect-guard.js';
import { connectGuard } from '../../src/net/connect-guard.js';
import { guardedFetch } from '../../src/net/guarded-fetch.js';
import { openStore } from '../../src/store/store.js';
import { DEFAULT_WALLET_ADDRESSES } from '../../src/wallet/addresses.js';
import { httpStatusListFetch } from '../../src/wallet/credential-check.js';
import { createWallet, type Wallet } from '../../src/wallet/wallet.js';

function table(entries: Record<string, string[]>): HostResolver & { asked: string[] } {
  const asked: string[] = [];
  return Object.assign(
    async (host: string) => {
      asked.push(host);
      const list = entries[host];
      if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return list.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
    },
    { asked },
  );
}

let server: Server;
let port: number;
const hits: { line: string; host?: string }[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push({ line: `${req.method} ${req.url}`, host: req.headers.host });
    // A list for GET /list; anything POSTed is refused (400), so a send ends at once once it arrived.
    req.resume().on('end', () => res.writeHead(req.url === '/list' ? 200 : 400, { 'content-type': 'application/json' }).end(req.url === '/list' ? '{"id":"x"}' : '{}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const open: Wallet[] = [];
afterEach(async () => {
  for (const w of open.splice(0)) await w.close();
  hits.length = 0;
});

async function wallet(options: Partial<Parameters<typeof createWallet>[0]>): Promise<Wallet> {
  const w = createWallet({ store: await openStore(), ...options });
  open.push(w);
  await w.init();
  return w;
}

describe("the wallet's outbound connections", () => {
  it('reaches a peer whose endpoint name resolves to loopback, at the checked address with Host intact', async () => {
    const w = await wallet({ resolveHost: table({ 'peer.test': ['127.0.0.1'] }) });
    const peer = createPeerDid({ endpoint: `http://peer.test:${port}/didcomm` });
    // The peer is a plain HTTP server that answers 400: the ping arrived, and ends there.
    await expect(w.ping(peer.did)).rejects.toMatchObject({ code: 'transport_rejected' });
    expect(hits).toEqual([{ line: 'POST /didcomm', host: `peer.test:${port}` }]);
  });

  it('refuses a peer endpoint whose name resolves to a metadata, NAT64-metadata or private address, without connecting', async () => {
    const w = await wallet({ resolveHost: table({ 'meta.test': ['169.254.169.254'], 'nat64.test': ['64:ff9b::a9fe:a9fe'], 'lan.test': ['10.0.0.9'] }) });
    for (const host of ['meta.test', 'nat64.test', 'lan.test']) {
      const peer = createPeerDid({ endpoint: `http://${host}:${port}/didcomm` });
      await expect(w.ping(peer.did), host).rejects.toMatchObject({ code: 'endpoint_refused' });
    }
    const loopbackOff = await wallet({ outboundAddresses: { allowLoopback: false }, resolveHost: table({ 'peer.test': ['127.0.0.1'] }) });
    await expect(loopbackOff.ping(createPeerDid({ endpoint: `http://peer.test:${port}/didcomm` }).did)).rejects.toMatchObject({ code: 'endpoint_refused' });
    expect(hits).toEqual([]);
  });

  it('allows private ranges when told to', async () => {
    const w = await wallet({ outboundAddresses: { allowPrivate: true }, resolveHost: table({ 'lan.test': ['127.0.0.1'] }) });
    await expect(w.ping(createPeerDid({ endpoint: `http://lan.test:${port}/didcomm` }).did)).rejects.toMatchObject({ code: 'transport_rejected' });
    expect(hits).toHaveLength(1);
  });

  it('resolves did:web through the guard: a did:web whose host resolves to a private address is not resolved', async () => {
    const resolver = table({ 'issuer.lan.test': ['10.0.0.9'] });
    const w = await wallet({ resolveHost: resolver });
    await expect(w.ping('did:web:issuer.lan.test')).rejects.toBeDefined();
    expect(resolver.asked).toEqual(['issuer.lan.test']);
  });
});

describe('status list fetches', () => {
  it('fetch under the wallet policy: a URL whose name resolves to a refused address gives no list and makes no connection', async () => {
    const get = (policy: object) =>
      httpStatusListFetch(guardedFetch(connectGuard({ ...DEFAULT_WALLET_ADDRESSES, ...policy }, table({ 'status.test': ['127.0.0.1'] }))), { allowHttpHosts: ['status.test'] });
    await expect(get({ allowLoopback: false })(`http://status.test:${port}/list`)).rejects.toMatchObject({ code: 'endpoint_refused' });
    expect(hits).toEqual([]);
    expect(await get({})(`http://status.test:${port}/list`)).toEqual({ id: 'x' });
    expect(hits).toEqual([{ line: 'GET /list', host: `status.test:${port}` }]);
  });

  it('by default refuses metadata addresses in any form', async () => {
    const get = httpStatusListFetch(undefined, { allowHttpHosts: ['169.254.169.254', '[64:ff9b::a9fe:a9fe]', '169.254.169.254.nip.io'] });
    for (const url of ['http://169.254.169.254/latest', 'http://[64:ff9b::a9fe:a9fe]/latest', 'http://169.254.169.254.nip.io/latest']) {
      await expect(get(url), url).rejects.toMatchObject({ code: 'endpoint_refused' });
    }
  });
});
