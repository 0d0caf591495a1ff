import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebDid, didWebFromUrl, fetchBounded, redirectRefusal, resolveWeb } from '../../src/did/web.js';

/** A fetch that answers every URL from `routes` (status, headers, body) and records what was asked. */
function fakeFetch(routes: Record<string, { status?: number; location?: string; body?: string }>, seen: string[] = []): typeof fetch {
  return (async (input: URL | string) => {
    const url = String(input);
    seen.push(url);
    const r = routes[url];
    if (!r) return new Response('nope', { status: 404 });
    if (r.location) return new Response(null, { status: 302, headers: { location: r.location } });
    return new Response(r.body ?? '', { status: r.status ?? 200 });
  }) as typeof fetch;
}

describe('did:web redirects', () => {
  it('refuses a redirect to another host, even over https', async () => {
    const seen: string[] = [];
    const result = await resolveWeb('did:web:example.com', {
      fetch: fakeFetch({ 'https://example.com/.well-known/did.json': { location: 'https://internal.example/.well-known/did.json' } }, seen),
    });
    expect(result.didResolutionMetadata).toMatchObject({ error: 'notFound', message: expect.stringContaining('another host') });
    expect(seen).toEqual(['https://example.com/.well-known/did.json']);
  });

  it('refuses a redirect from https to plain http, on the same host or to localhost', async () => {
    const seen: string[] = [];
    const routes = {
      'https://example.com/.well-known/did.json': { location: 'http://example.com/.well-known/did.json' },
      // localhost is on the plain-http allow list, but only for DIDs that name it.
      'https://example.org/.well-known/did.json': { location: 'http://127.0.0.1:8080/.well-known/did.json' },
      'https://127.0.0.1:8443/.well-known/did.json': { location: 'http://127.0.0.1:8443/.well-known/did.json' },
    };
    const remote = await resolveWeb('did:web:example.com', { fetch: fakeFetch(routes, seen) });
    expect(remote.didResolutionMetadata).toMatchObject({ error: 'notFound', message: expect.stringContaining('plain HTTP') });
    const toLocal = await resolveWeb('did:web:example.org', { fetch: fakeFetch(routes, seen) });
    expect(toLocal.didResolutionMetadata).toMatchObject({ error: 'notFound', message: expect.stringContaining('plain HTTP') });
    const local = await resolveWeb('did:web:127.0.0.1%3A8443', { fetch: fakeFetch(routes, seen), allowHttpHosts: [] });
    expect(local.didResolutionMetadata).toMatchObject({ error: 'notFound', message: expect.stringContaining('plain HTTP') });
    expect(seen.every((u) => u.startsWith('https:'))).toBe(true);
  });

  it('refuses a redirect to a Location that is not a URL, as the DID not found', async () => {
    const result = await resolveWeb('did:web:example.com', { fetch: fakeFetch({ 'https://example.com/.well-known/did.json': { location: 'https://[::1' } }) });
    expect(result.didResolutionMetadata).toMatchObject({ error: 'notFound', message: expect.stringContaining('a Location that is not a URL') });
  });

  it('refuses a redirect from local http to another port', () => {
    expect(redirectRefusal(new URL('http://127.0.0.1:8080/did.json'), new URL('http://127.0.0.1:9090/did.json'))).toContain('another host');
    expect(redirectRefusal(new URL('http://127.0.0.1:8080/a'), new URL('http://127.0.0.1:8080/b'))).toBeUndefined();
    expect(redirectRefusal(new URL('http://localhost:8080/a'), new URL('https://localhost:8080/b'))).toBeUndefined();
    expect(redirectRefusal(new URL('https://example.com/a'), new URL('file:///etc/passwd'))).toContain('not HTTP(S)');
  });

  it('follows a redirect on the same host over https', async () => {
    const created = createWebDid({ url: 'https://example.com/users/ada' });
    const result = await resolveWeb(created.did, {
      fetch: fakeFetch({
        'https://example.com/users/ada/did.json': { location: '/moved/ada/did.json' },
        'https://example.com/moved/ada/did.json': { body: JSON.stringify(created.document) },
      }),
    });
    expect(result.didDocument?.id).toBe(created.did);
  });

  it('refuses a first URL that is plain http to a host not on the allow list', async () => {
    await expect(fetchBounded(new URL('http://example.com/x'), { maxBytes: 10, accept: '*/*', fetch: fakeFetch({}) })).rejects.toMatchObject({ code: 'fetch_refused' });
  });
});

describe('did:web document size', () => {
  let server: Server;
  let base: string;
  /** What the streaming route wrote, and whether the client hung up before the end. */
  const stream = { written: 0, total: 32 * 1024 * 1024, closedEarly: false };
  const routes = new Map<string, (res: ServerResponse) => void>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const route = routes.get(req.url ?? '');
      if (!route) return void res.writeHead(404).end();
      route(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  }));

  it('stops reading a document that grows past the limit, without buffering it whole', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let ended: () => void;
    const finished = new Promise<void>((resolve) => (ended = resolve));
    routes.set('/big/did.json', (res) => {
      // Chunked, no Content-Length: the size is only known by reading.
      res.writeHead(200, { 'content-type': 'application/did+json' });
      res.on('close', () => {
        stream.closedEarly = stream.written < stream.total;
        ended();
      });
      const write = () => {
        while (stream.written < stream.total) {
          stream.written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', write);
        }
        res.end();
      };
      write();
    });
    const result = await resolveWeb(`${didWebFromUrl(base)}:big`);
    expect(result.didResolutionMetadata).toMatchObject({ error: 'notFound', message: expect.stringContaining('262144-byte limit') });
    await finished;
    expect(stream.closedEarly).toBe(true);
    expect(stream.written).toBeLessThan(stream.total / 2);
  });

  it('refuses a declared Content-Length over the limit before reading, and honours the maxBytes option', async () => {
    const created = createWebDid({ url: `${base}/small` });
    const body = JSON.stringify(created.document);
    routes.set('/small/did.json', (res) => void res.writeHead(200, { 'content-type': 'application/did+json', 'content-length': Buffer.byteLength(body) }).end(body));
    expect((await resolveWeb(created.did)).didDocument?.id).toBe(created.did);
    const limited = await resolveWeb(created.did, { maxBytes: 256 });
    expect(limited.didResolutionMetadata).toMatchObject({ error: 'notFound', message: expect.stringContaining('256-byte limit') });
  });
});

describe('did:web default fetch (src/net guard)', () => {
  it('refuses a did:web whose host is a metadata address in any form, or a private literal, without fetching', async () => {
    for (const did of ['did:web:169.254.169.254', 'did:web:%5B64%3Aff9b%3A%3Aa9fe%3Aa9fe%5D', 'did:web:169.254.169.254.nip.io', 'did:web:10.0.0.8']) {
      const result = await resolveWeb(did);
      expect(result.didResolutionMetadata.error, did).toBe('notFound');
      expect(String(result.didResolutionMetadata.message), did).toMatch(/not allowed|never allowed/);
    }
  });
});
