import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebDid, didWebFromUrl, didWebUrl, resolveWeb } from '../../src/did/web.js';
import { createResolver } from '../../src/did/resolver.js';
import type { DIDDocument } from '../../src/did/types.js';

describe('did:web identifiers', () => {
  it('derives the DID from a URL, encoding the port as %3A (did:web §Create)', () => {
    expect(didWebFromUrl('http://127.0.0.1:8080')).toBe('did:web:127.0.0.1%3A8080');
    expect(didWebFromUrl('https://example.com/')).toBe('did:web:example.com');
    expect(didWebFromUrl('https://example.com/.well-known/did.json')).toBe('did:web:example.com');
    expect(didWebFromUrl('https://example.com/user/alice')).toBe('did:web:example.com:user:alice');
    expect(didWebFromUrl('https://example.com/user/alice/did.json')).toBe('did:web:example.com:user:alice');
  });

  it('maps the DID to its document URL, https except for localhost and 127.0.0.1 (did:web §Read)', () => {
    expect(didWebUrl('did:web:example.com')).toBe('https://example.com/.well-known/did.json');
    expect(didWebUrl('did:web:example.com%3A8443:user:alice')).toBe('https://example.com:8443/user/alice/did.json');
    expect(didWebUrl('did:web:127.0.0.1%3A8080')).toBe('http://127.0.0.1:8080/.well-known/did.json');
    expect(didWebUrl('did:web:localhost%3A3000:org')).toBe('http://localhost:3000/org/did.json');
    expect(didWebUrl('did:web:127.0.0.1%3A8080', [])).toBe('https://127.0.0.1:8080/.well-known/did.json');
  });

  it('refuses hosts and paths that would change the URL', () => {
    for (const bad of ['did:web:evil.com%2Fx', 'did:web:a@b.com', 'did:web:example.com:..', 'did:web:example.com:a%2Fb', 'did:web:%ZZ']) {
      expect(() => didWebUrl(bad), bad).toThrow(expect.objectContaining({ code: 'invalid_did' }));
    }
  });

  it('refuses, coded, a host its pattern admits but no URL holds, and a URL path with bad percent-encoding', () => {
    // An IPv6 literal of colons only, and a port over 65535.
    for (const bad of ['did:web:%5B%3A%3A%3A%3A%3A%3A%5D', 'did:web:%5B1.2.3%5D', 'did:web:example.com%3A99999']) {
      expect(() => didWebUrl(bad), bad).toThrow(expect.objectContaining({ code: 'invalid_did' }));
    }
    expect(() => didWebFromUrl('https://example.com/%zz')).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});

describe('did:web resolution over HTTP on 127.0.0.1', () => {
  let server: Server;
  let base: string;
  const docs = new Map<string, { status?: number; body?: string; location?: string }>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const entry = docs.get(req.url ?? '');
      if (!entry) return void res.writeHead(404).end();
      if (entry.location) return void res.writeHead(302, { location: entry.location }).end();
      res.writeHead(entry.status ?? 200, { 'content-type': 'application/did+json' }).end(entry.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('resolves a published document', async () => {
    const created = createWebDid({ url: base, endpoint: `${base}/didcomm` });
    docs.set('/.well-known/did.json', { body: JSON.stringify(created.document) });
    const result = await createResolver().resolve(`${created.did}#key-1`);
    expect(result.didResolutionMetadata.error).toBeUndefined();
    expect(result.didDocument).toEqual(created.document);
    const doc = result.didDocument as DIDDocument;
    expect(doc.verificationMethod!.map((m) => m.id)).toEqual([`${created.did}#key-1`, `${created.did}#key-2`]);
    expect(created.secrets.map((s) => s.id)).toEqual([`${created.did}#key-1`, `${created.did}#key-2`]);
    expect(doc.service![0]).toMatchObject({ id: `${created.did}#didcomm`, serviceEndpoint: { uri: `${base}/didcomm` } });
  });

  it('resolves the path form', async () => {
    const created = createWebDid({ url: `${base}/tenants/acme` });
    docs.set('/tenants/acme/did.json', { body: JSON.stringify(created.document) });
    expect((await resolveWeb(created.did)).didDocument?.id).toBe(created.did);
  });

  it('answers notFound with a message for 404, bad JSON, a document for another DID, and no server', async () => {
    const did = didWebFromUrl(base);
    const cases: [string, { status?: number; body?: string } | undefined, RegExp][] = [
      ['missing', undefined, /HTTP 404/],
      ['bad json', { body: '{not json' }, /could not fetch/],
      ['other id', { body: JSON.stringify({ id: 'did:web:other.example' }) }, /not for/],
    ];
    for (const [name, entry, message] of cases) {
      if (entry) docs.set('/.well-known/did.json', entry);
      else docs.delete('/.well-known/did.json');
      const result = await resolveWeb(did);
      expect(result.didResolutionMetadata.error, name).toBe('notFound');
      expect(String(result.didResolutionMetadata.message), name).toMatch(message);
    }
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const gone = await resolveWeb(`did:web:127.0.0.1%3A${port}`);
    expect(gone.didResolutionMetadata).toMatchObject({ error: 'notFound', message: expect.stringContaining('could not fetch') });
    // Why, for callers that tell "host down" from "no such DID" (resolutionError).
    expect(gone.didResolutionMetadata).toMatchObject({ code: 'transport_unreachable', url: `http://127.0.0.1:${port}/.well-known/did.json`, reason: 'ECONNREFUSED' });
  });

  it('refuses a redirect to plain HTTP on another host', async () => {
    docs.set('/moved/did.json', { location: 'http://example.com/moved/did.json' });
    const result = await resolveWeb(`${didWebFromUrl(base)}:moved`);
    expect(result.didResolutionMetadata).toMatchObject({ error: 'notFound', message: expect.stringContaining('plain HTTP') });
  });

  it('uses https for every host not on the allow list', async () => {
    const seen: string[] = [];
    const fakeFetch = (async (url: URL | string) => {
      seen.push(String(url));
      return new Response('nope', { status: 404 });
    }) as typeof fetch;
    const resolver = createResolver({ fetch: fakeFetch, webAllowHttpHosts: [] });
    await resolver.resolve('did:web:example.com');
    await resolver.resolve('did:web:127.0.0.1%3A1234:x');
    expect(seen).toEqual(['https://example.com/.well-known/did.json', 'https://127.0.0.1:1234/x/did.json']);
  });

  it('turns a throwing fetch into notFound', async () => {
    const resolver = createResolver({ fetch: (async () => { throw new Error('boom'); }) as typeof fetch });
    const result = await resolver.resolve('did:web:example.com');
    expect(result.didResolutionMetadata).toMatchObject({ error: 'notFound', message: expect.stringContaining('boom') });
  });
});
