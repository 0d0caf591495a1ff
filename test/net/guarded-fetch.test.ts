// connect-guard.ts and guarded-fetch.ts over real sockets on 127.0.0.1. There is no DNS here:
// names are answered by a resolver injected into the guard, except `localhost`, which the system
// resolver answers from /etc/hosts. A name the system cannot resolve that still reaches our server
// shows that the connection went to the address the guard checked (no second lookup).
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectGuard, systemResolver, type HostResolver } from '../../src/net/connect-guard.js';
import { guardedFetch } from '../../src/net/guarded-fetch.js';

const TLS = new URL('./tls/', import.meta.url);
const cert = readFileSync(new URL('wallet-test-cert.pem', TLS));
const key = readFileSync(new URL('test-only-key.pem', TLS));

/** A resolver from a table; a name not in it does not resolve. */
function table(entries: Record<string, string[]>): HostResolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = (async (host: string) => {
    asked.push(host);
    const list = entries[host];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as const);
  }) as HostResolver & { asked: string[] };
  resolve.asked = asked;
  return resolve;
}

describe('guarded fetch over real sockets', () => {
  let server: http.Server;
  let port: number;
  const hits: { host?: string; url?: string }[] = [];
  let connections = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits.push({ host: req.headers.host, url: req.url });
      if (req.url?.startsWith('/redirect?to=')) {
        res.writeHead(307, { location: decodeURIComponent(req.url.slice('/redirect?to='.length)) }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    server.on('connection', () => connections++);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('connects to the address it checked: a name only the injected resolver knows reaches the server, Host intact', async () => {
    const resolver = table({ 'wallet.test': ['127.0.0.1'] });
    const f = guardedFetch(connectGuard({ allowLoopback: true }, resolver));
    const res = await f(`http://wallet.test:${port}/hello`);
    expect(await res.text()).toBe('ok');
    expect(hits.at(-1)).toEqual({ host: `wallet.test:${port}`, url: '/hello' });
    expect(resolver.asked).toEqual(['wallet.test']);
    await f.close();
  });

  it('refuses a name that resolves to loopback when loopback is not allowed, without connecting', async () => {
    const before = connections;
    const f = guardedFetch(connectGuard({ allowLoopback: false }, table({ 'evil.example': ['127.0.0.1'] })));
    await expect(f(`http://evil.example:${port}/`)).rejects.toMatchObject({ code: 'endpoint_refused', details: { host: 'evil.example', address: '127.0.0.1' } });
    expect(connections).toBe(before);
    await f.close();
  });

  it('refuses a name when any one of its addresses is refused (public + metadata)', async () => {
    const f = guardedFetch(connectGuard({ allowLoopback: true, allowPrivate: true }, table({ 'mixed.example': ['93.184.216.34', '169.254.169.254'] })));
    await expect(f('http://mixed.example/')).rejects.toMatchObject({ code: 'endpoint_refused', details: { address: '169.254.169.254' } });
    await f.close();
  });

  it('refuses NAT64, 6to4 and IPv4-mapped forms of metadata and loopback addresses, as literals and as resolved', async () => {
    const resolver = table({ 'nat64.example': ['64:ff9b::a9fe:a9fe'], 'sixtofour.example': ['2002:a9fe:a9fe::1'], 'mapped.example': ['::ffff:127.0.0.1'] });
    const f = guardedFetch(connectGuard({ allowLoopback: false, allowPrivate: true }, resolver));
    for (const url of [
      `http://[64:ff9b::7f00:1]:${port}/`,
      'http://[64:ff9b::169.254.169.254]/',
      'http://[2002:a9fe:a9fe::1]/',
      `http://[::ffff:127.0.0.1]:${port}/`,
      'http://nat64.example/',
      'http://sixtofour.example/',
      `http://mapped.example:${port}/`,
      'http://169.254.169.254.nip.io/latest/meta-data/',
      'http://metadata.google.internal/computeMetadata/v1/',
    ]) {
      await expect(f(url), url).rejects.toMatchObject({ code: 'endpoint_refused' });
    }
    // The names that say what they are were refused without asking the resolver.
    expect(resolver.asked).toEqual(['nat64.example', 'sixtofour.example', 'mapped.example']);
    await f.close();
  });

  it('checks every redirect hop: a 307 to a metadata literal or to a name resolving to one is refused', async () => {
    const resolver = table({ 'wallet.test': ['127.0.0.1'], 'meta.example': ['169.254.169.254'] });
    const f = guardedFetch(connectGuard({ allowLoopback: true }, resolver));
    for (const to of ['http://169.254.169.254/latest/meta-data/', 'http://meta.example/x']) {
      await expect(f(`http://wallet.test:${port}/redirect?to=${encodeURIComponent(to)}`)).rejects.toMatchObject({ code: 'endpoint_refused' });
    }
    await f.close();
  });

  it('resolves localhost from /etc/hosts with the system resolver: allowed with loopback, refused without', async () => {
    const allowed = guardedFetch(connectGuard({ allowLoopback: true }, systemResolver));
    expect((await allowed(`http://localhost:${port}/sys`)).status).toBe(200);
    expect(hits.at(-1)).toEqual({ host: `localhost:${port}`, url: '/sys' });
    await allowed.close();
    const refused = guardedFetch(connectGuard({ allowLoopback: false }, systemResolver));
    await expect(refused(`http://localhost:${port}/`)).rejects.toMatchObject({ code: 'endpoint_refused' });
    await refused.close();
  });

  it('reads the policy at every request when given as a function', async () => {
    const policy = { allowLoopback: true };
    const f = guardedFetch(connectGuard(() => policy, table({ 'wallet.test': ['127.0.0.1'] })));
    expect((await f(`http://wallet.test:${port}/`)).status).toBe(200);
    await f.close();
    policy.allowLoopback = false;
    const g = guardedFetch(connectGuard(() => policy, table({ 'wallet.test': ['127.0.0.1'] })));
    await expect(g(`http://wallet.test:${port}/`)).rejects.toMatchObject({ code: 'endpoint_refused' });
    await g.close();
  });
});

describe('guarded fetch over TLS', () => {
  it('keeps the URL host name for SNI and the certificate check while connecting to the checked address', async () => {
    const seen: unknown[] = [];
    const server = https.createServer({ cert, key }, (req, res) => {
      seen.push((req.socket as TLSSocket).servername);
      res.end('secure');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    try {
      const f = guardedFetch(connectGuard({ allowLoopback: true }, table({ 'wallet.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] })), { ca: cert });
      expect(await (await f(`https://wallet.test:${port}/`)).text()).toBe('secure');
      expect(seen).toEqual(['wallet.test']);
      // Same address, another name: the certificate (for wallet.test) does not match.
      await expect(f(`https://other.test:${port}/`)).rejects.toThrow();
      await f.close();
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('guard lookup (node:net)', () => {
  type Lookup = (host: string, options: object, cb: (...a: unknown[]) => void) => void;
  const call = (guard: ReturnType<typeof connectGuard>, o: object) => new Promise<unknown[]>((resolve) => (guard.lookup as unknown as Lookup)('two.test', o, (...a) => resolve(a)));

  it('answers with the checked addresses, all or the first, filtered by family', async () => {
    const guard = connectGuard({ allowLoopback: true }, table({ 'two.test': ['127.0.0.1', '::1'] }));
    expect(await call(guard, { all: true })).toEqual([null, [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]]);
    expect(await call(guard, {})).toEqual([null, '127.0.0.1', 4]);
    expect(await call(guard, { family: 6 })).toEqual([null, '::1', 6]);
  });

  it('answers a refused host with the endpoint_refused error', async () => {
    const [err] = await call(connectGuard({ allowLoopback: false }, table({ 'two.test': ['127.0.0.1'] })), {});
    expect(err).toMatchObject({ code: 'endpoint_refused' });
  });
});
