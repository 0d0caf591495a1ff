import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpStatusListFetch } from '../../src/wallet/credential-check.js';

const LIST = { id: 'https://issuer.example/status/1', type: ['VerifiableCredential', 'BitstringStatusListCredential'] };

describe('status list fetch', () => {
  let server: Server;
  let base: string;
  let written = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/list') return void res.writeHead(200, { 'content-type': 'application/vc+ld+json' }).end(JSON.stringify(LIST));
      if (req.url === '/jwt') return void res.writeHead(200, { 'content-type': 'application/vc+jwt' }).end('aaa.bbb.ccc\n');
      if (req.url === '/huge') {
        // Chunked: the size is only known by reading.
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const write = () => {
          while (written < 16 * 1024 * 1024) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', write);
          }
          res.end();
        };
        return write();
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  }));

  it('fetches a JSON list or a VC-JWT over http from 127.0.0.1 (the local service twin)', async () => {
    const get = httpStatusListFetch();
    expect(await get(`${base}/list`)).toEqual(LIST);
    expect(await get(`${base}/jwt`)).toBe('aaa.bbb.ccc');
    expect(await get(`${base}/missing`)).toBeUndefined();
  });

  it('never fetches plain http from other hosts, nor other schemes', async () => {
    const seen: string[] = [];
    const get = httpStatusListFetch((async (u: URL | string) => {
      seen.push(String(u));
      return new Response(JSON.stringify(LIST));
    }) as typeof fetch);
    for (const url of ['http://issuer.example/status/1', 'http://169.254.169.254/latest/meta-data', 'file:///etc/passwd', 'ftp://issuer.example/x', 'not a url']) {
      expect(await get(url), url).toBeUndefined();
    }
    expect(seen).toEqual([]);
    expect(await get('https://issuer.example/status/1')).toEqual(LIST);
    expect(seen).toEqual(['https://issuer.example/status/1']);
  });

  it('gives up on a list larger than the limit while it streams in', async () => {
    const get = httpStatusListFetch(fetch, { maxBytes: 64 * 1024 });
    await expect(get(`${base}/huge`)).rejects.toMatchObject({ code: 'response_too_large' });
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it('gives up when the server does not answer within the timeout', async () => {
    // A fetch that only ends when its signal aborts: without a timeout it would hang forever.
    const hanging = ((_u: URL | string, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        const signal = init?.signal;
        if (!signal) return;
        signal.addEventListener('abort', () => reject(signal.reason));
      })) as typeof fetch;
    const get = httpStatusListFetch(hanging, { timeoutMs: 20 });
    await expect(get('https://issuer.example/status/1')).rejects.toMatchObject({ name: 'TimeoutError' });
  }, 5000);

  it('refuses a redirect to another host', async () => {
    const get = httpStatusListFetch((async () => new Response(null, { status: 302, headers: { location: 'https://elsewhere.example/list' } })) as typeof fetch);
    await expect(get('https://issuer.example/status/1')).rejects.toMatchObject({ code: 'fetch_refused' });
  });
});
