// Retry signals across the transports (media-type.ts InboundOutcome): a receiving handler that
// says a message may be sent again gets the sender a 503 with Retry-After (HTTP) or a
// `transport_retry_later` (memory); a sending HTTP transport turns a peer's 503/429 into
// `transport_retry_later` with the Retry-After seconds; reply bodies are read with a byte cap.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import type { RouterResult } from '../../../src/router/types.js';
import { IdsyncError } from '../../../src/errors.js';
import { handleHttpInbound, httpTransport, startHttpEndpoint, type HttpInboundHandler } from '../../../src/didcomm/transport/http.js';
import { parseRetryAfter, retryHint } from '../../../src/didcomm/transport/media-type.js';
import { memoryNetwork } from '../../../src/didcomm/transport/memory.js';
import { deferred, encrypted, signed } from './helpers.js';

const ENC = 'application/didcomm-encrypted+json';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function endpoint(handler: HttpInboundHandler): Promise<string> {
  const ep = await startHttpEndpoint({ handler });
  cleanups.push(() => ep.close());
  return ep.url;
}

async function rawServer(onRequest: http.RequestListener): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer(onRequest);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function rejection(p: Promise<unknown>): Promise<IdsyncError> {
  try {
    await p;
  } catch (err) {
    return err as IdsyncError;
  }
  throw new Error('expected a rejection');
}

describe('a receiver asks for the message again', () => {
  it('answers 503 with Retry-After when the handler resolves with a retryable outcome, and drops its reply', async () => {
    let calls = 0;
    const url = await endpoint(async (_packed, info) => {
      calls++;
      await info.reply!(signed());
      // The router's result for a handler failure that may pass has this shape.
      if (calls === 1) return { retryable: true, retryAfterSeconds: 7 };
      return { retryable: false };
    });
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': ENC }, body: encrypted() });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ status: 503, code: 'temporarily_unavailable', retryAfter: 7 });
    // The same message again: handled, and its reply comes back.
    expect(await httpTransport().send(url, encrypted(), { returnRoute: true })).toEqual([signed()]);
  });

  it('takes the router\'s result as it is: a retryable failure is 503, a refusal for good is 202', async () => {
    const failed = (retryable?: boolean): RouterResult => ({ status: 'failed', code: 'store_error', conformance: [], replies: [], ...(retryable ? { retryable } : {}) });
    const url = await endpoint(async (packed) => failed(packed === encrypted(1)));
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': ENC }, body: encrypted(1) });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect((await fetch(url, { method: 'POST', headers: { 'content-type': ENC }, body: encrypted(2) })).status).toBe(202);
  });

  it('answers 503 (default Retry-After 5) when the handler throws an IdsyncError with details.retryable', async () => {
    const r = await handleHttpInbound({ body: encrypted(), contentType: ENC }, async () => {
      throw new IdsyncError('store_error', 'disk full at /var/secret', { details: { retryable: true } });
    });
    expect(r).toMatchObject({ status: 503, headers: { 'retry-after': '5' } });
    expect(JSON.parse(r.body!)).toMatchObject({ code: 'temporarily_unavailable', retryAfter: 5 });
    // The failure's own message (internals) is not sent.
    expect(r.body).not.toContain('disk full');
  });

  it('ignores what a handler returns unless it is an object with retryable: true', async () => {
    for (const value of [undefined, 3, 'retryable', { retryable: 'yes' }, { status: 'failed' }, null]) {
      const r = await handleHttpInbound({ body: encrypted(), contentType: ENC }, (async () => value) as unknown as HttpInboundHandler);
      expect(r.status).toBe(202);
    }
    expect(retryHint({ retryable: true, retryAfterSeconds: 1e9 })).toEqual({ retryAfterSeconds: 86_400 });
    expect(retryHint({ retryable: true, retryAfterSeconds: -1 })).toEqual({ retryAfterSeconds: 5 });
  });

  it('turns the memory endpoint\'s retryable outcome or error into transport_retry_later', async () => {
    const net = memoryNetwork();
    net.endpoint('memory://a', async () => ({ retryable: true, retryAfterSeconds: 3 }));
    net.endpoint('memory://b', async () => {
      throw new IdsyncError('timeout', 'slow', { details: { retryable: true, retryAfterSeconds: 2 } });
    });
    const t = net.transport();
    await expect(t.send('memory://a', encrypted())).rejects.toMatchObject({ code: 'transport_retry_later', details: { status: 503, retryAfterSeconds: 3 } });
    await expect(t.send('memory://b', encrypted())).rejects.toMatchObject({ code: 'transport_retry_later', details: { status: 503, retryAfterSeconds: 2 } });
  });
});

describe('a sender told to retry later', () => {
  it('surfaces a 503 and a 429 as transport_retry_later with the Retry-After seconds and the problem code', async () => {
    const { url } = await rawServer((req, res) => {
      req.resume();
      if (req.url === '/busy') {
        res.writeHead(503, { 'retry-after': '30', 'content-type': 'application/problem+json' });
        res.end(JSON.stringify({ status: 503, code: 'temporarily_unavailable' }));
      } else if (req.url === '/slow-down') {
        res.writeHead(429, { 'retry-after': 'Thu, 01 Jan 2026 00:02:00 GMT' }).end();
      } else {
        res.writeHead(503).end();
      }
    });
    const t = httpTransport({ clock: new ManualClock(Date.UTC(2026, 0, 1)) });
    expect(await rejection(t.send(`${url}/busy`, encrypted()))).toMatchObject({
      code: 'transport_retry_later',
      details: { status: 503, retryAfterSeconds: 30, problemCode: 'temporarily_unavailable' },
    });
    expect(await rejection(t.send(`${url}/slow-down`, encrypted()))).toMatchObject({ code: 'transport_retry_later', details: { status: 429, retryAfterSeconds: 120 } });
    const bare = await rejection(t.send(`${url}/bare`, encrypted()));
    expect(bare).toMatchObject({ code: 'transport_retry_later', details: { status: 503 } });
    expect(bare.details).not.toHaveProperty('retryAfterSeconds');
  });

  it('reads Retry-After as delay-seconds or an HTTP-date, capped at a day', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('99999999', now)).toBe(86_400);
    expect(parseRetryAfter(new Date(now + 90_500).toUTCString(), now)).toBe(90);
    expect(parseRetryAfter(new Date(now - 60_000).toUTCString(), now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('reply bodies are read with a byte cap', () => {
  it('refuses a reply whose Content-Length is over the cap without waiting for its body', async () => {
    const { url } = await rawServer((req, res) => {
      req.resume();
      // Announces 10 MB and never sends it: reading it would run into the timeout.
      res.writeHead(200, { 'content-type': 'application/didcomm-signed+json', 'content-length': String(10_000_000) });
      res.write('{');
    });
    const err = await rejection(httpTransport({ maxReplyBytes: 1000, timeoutMs: 5000 }).send(url, encrypted()));
    expect(err).toMatchObject({ code: 'transport_rejected', details: { status: 200, maxBytes: 1000 } });
  });

  it('stops reading a streamed reply once it passes the cap and drops the connection', async () => {
    const gone = deferred();
    let written = 0;
    const { url } = await rawServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/didcomm-signed+json' });
      res.on('close', () => gone.resolve());
      // Writes for as long as the client reads: an endless reply.
      const pump = () => {
        if (res.destroyed) return;
        written += 16 * 1024;
        if (res.write('x'.repeat(16 * 1024))) setImmediate(pump);
        else res.once('drain', pump);
      };
      pump();
    });
    const err = await rejection(httpTransport({ maxReplyBytes: 64 * 1024 }).send(url, encrypted()));
    expect(err).toMatchObject({ code: 'transport_rejected', details: { maxBytes: 64 * 1024 } });
    await gone.promise;
    // Far less than an unbounded read would have taken (socket buffers hold a few hundred KiB).
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });
});
