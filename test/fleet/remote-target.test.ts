// A fleet against a service elsewhere starts by reading the service's DID from
// /.well-known/did.json: when that fails, the run stops at once with service_unreachable and why.
// Then it gets a token once: wrong client credentials stop the run before any wallet is made.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteTarget } from '../../src/fleet/target.js';

const credentials = { clientId: 'a', clientSecret: 'b' };

describe('remoteTarget', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.method === 'POST' && req.url?.endsWith('/api/v1/auth/token')) {
        let body = '';
        req.on('data', (c) => (body += c)).on('end', () => {
          const ok = (JSON.parse(body) as { clientSecret?: string }).clientSecret === 'b';
          if (ok) res.writeHead(200, { 'content-type': 'application/json' }).end('{"tokenType":"Bearer","accessToken":"t","expiresIn":3600}');
          else res.writeHead(401, { 'content-type': 'application/problem+json' }).end('{"type":"about:blank","title":"Unauthorized","status":401,"code":"invalid_client","detail":"unknown client or wrong secret"}');
        });
        return;
      }
      if (req.url?.startsWith('/missing/')) return void res.writeHead(404).end();
      if (req.url?.startsWith('/junk/')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('<html>');
      if (req.url?.startsWith('/nodid/')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":5}');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"did:web:example.org"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reads the DID the service names', async () => {
    expect(await remoteTarget(`${base}/`, credentials)).toMatchObject({ url: base, did: 'did:web:example.org', embedded: false });
  });

  it('says why it cannot: nobody listening (the socket\'s reason), an error status, no JSON, no DID', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(remoteTarget(gone, credentials)).rejects.toMatchObject({ code: 'service_unreachable', message: `cannot reach ${gone} (ECONNREFUSED)` });
    await expect(remoteTarget(`${base}/missing`, credentials)).rejects.toMatchObject({ code: 'service_unreachable', message: `${base}/missing/.well-known/did.json answered 404` });
    await expect(remoteTarget(`${base}/junk`, credentials)).rejects.toMatchObject({ code: 'service_unreachable', message: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/junk\/\.well-known\/did\.json is not JSON \(/) });
    await expect(remoteTarget(`${base}/nodid`, credentials)).rejects.toMatchObject({ code: 'service_unreachable', message: `${base}/nodid/.well-known/did.json names no DID` });
  });

  it('does not wait for ever on a token request that is never answered', async () => {
    // The DID is answered, the token request never: only its time bound ends the wait.
    const hanging: typeof fetch = (input, init) =>
      String(input).endsWith('/auth/token')
        ? new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)))
        : fetch(input, init);
    const started = Date.now();
    await expect(remoteTarget(base, credentials, hanging, 300)).rejects.toMatchObject({ code: 'service_unreachable' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses wrong client credentials before the run, with the service\'s own code', async () => {
    await expect(remoteTarget(base, { clientId: 'a', clientSecret: 'wrong' })).rejects.toMatchObject({ code: 'invalid_client', message: expect.stringMatching(/auth\/token: 401 unknown client or wrong secret/) });
  });
});
