import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { IdsyncError } from '../../../src/errors.js';
import { handleHttpInbound, httpTransport, startHttpEndpoint, type HttpEndpoint } from '../../../src/didcomm/transport/http.js';
import type { InboundHandler } from '../../../src/didcomm/types.js';
import { encrypted, inbox, plain, signed } from './helpers.js';

const ENC = 'application/didcomm-encrypted+json';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function endpoint(handler: InboundHandler, options: { maxBytes?: number } = {}): Promise<HttpEndpoint> {
  const ep = await startHttpEndpoint({ handler, ...options });
  cleanups.push(() => ep.close());
  return ep;
}

/** A bare node:http server for answers our endpoint never gives. */
async function rawServer(onRequest: http.RequestListener): Promise<string> {
  const server = http.createServer(onRequest);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function rejection(p: Promise<unknown>): Promise<IdsyncError> {
  try {
    await p;
  } catch (err) {
    return err as IdsyncError;
  }
  throw new Error('expected a rejection');
}

describe('http transport', () => {
  it('POSTs a packed message and gets 202 with no replies', async () => {
    const got = inbox<{ packed: string; transport: string }>();
    const ep = await endpoint(async (packed, info) => got.push({ packed, transport: info.transport }));
    expect(ep.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/didcomm$/);
    const res = await fetch(ep.url, { method: 'POST', headers: { 'content-type': ENC }, body: encrypted() });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
    expect(await httpTransport().send(ep.url, encrypted(2))).toEqual([]);
    expect((await got.next()).packed).toBe(encrypted());
    expect(await got.next()).toEqual({ packed: encrypted(2), transport: 'http' });
  });

  it('sends the media type that matches the content', async () => {
    const types = inbox();
    const url = await rawServer((req, res) => {
      types.push(String(req.headers['content-type']));
      req.resume();
      req.on('end', () => res.writeHead(202).end());
    });
    const t = httpTransport();
    await t.send(url, encrypted());
    await t.send(url, signed());
    await t.send(url, plain());
    expect([await types.next(), await types.next(), await types.next()]).toEqual([
      'application/didcomm-encrypted+json',
      'application/didcomm-signed+json',
      'application/didcomm-plain+json',
    ]);
    await expect(t.send(url, 'not json')).rejects.toMatchObject({ code: 'transport_invalid_message' });
  });

  it('returns a return-routed reply from a 200 response with the reply media type', async () => {
    const ep = await endpoint(async (_packed, info) => info.reply!(signed()));
    const res = await fetch(ep.url, { method: 'POST', headers: { 'content-type': ENC }, body: encrypted() });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/didcomm-signed+json');
    expect(await res.text()).toBe(signed());
    expect(await httpTransport().send(ep.url, encrypted(), { returnRoute: true })).toEqual([signed()]);
  });

  it('refuses a second reply and a reply after the handler finished', async () => {
    const errors = inbox<unknown>();
    let late: ((p: string) => Promise<void>) | undefined;
    const ep = await endpoint(async (_packed, info) => {
      await info.reply!(encrypted(1));
      await info.reply!(encrypted(2)).catch((e) => errors.push(e));
      late = info.reply;
    });
    expect(await httpTransport().send(ep.url, encrypted())).toEqual([encrypted(1)]);
    expect(await errors.next()).toMatchObject({ code: 'transport_reply_unavailable' });
    await expect(late!(encrypted(3))).rejects.toMatchObject({ code: 'transport_reply_unavailable' });
  });

  it('answers 415 to a wrong media type, 400 to a non-JSON body and 413 to an oversized body', async () => {
    const got = inbox();
    const ep = await endpoint(async (p) => got.push(p), { maxBytes: 1000 });
    const post = (body: string, type: string | undefined) => fetch(ep.url, { method: 'POST', headers: type ? { 'content-type': type } : {}, body });
    const r415 = await post(encrypted(), 'text/plain');
    expect(r415.status).toBe(415);
    expect(r415.headers.get('content-type')).toBe('application/problem+json');
    expect(await r415.json()).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    expect((await post(encrypted(), undefined)).status).toBe(415);
    const r400 = await post('{not json', ENC);
    expect(r400.status).toBe(400);
    expect(await r400.json()).toMatchObject({ code: 'invalid_message' });
    expect((await post('[1,2]', ENC)).status).toBe(400);
    // JSON objects that are no DIDComm message at all (DIDComm v2 §Message Formats) are 400 too.
    for (const junk of ['{}', '{"hello":"world"}', '{"ciphertext":"x"}', '{"payload":"x"}', '{"id":"1"}']) {
      const r = await post(junk, ENC);
      expect(r.status, junk).toBe(400);
      expect(await r.json()).toMatchObject({ type: 'about:blank', title: 'Bad Request', code: 'invalid_message', detail: expect.stringContaining('no DIDComm message') });
    }
    const r413 = await post(JSON.stringify({ ciphertext: 'x'.repeat(2000) }), ENC);
    expect(r413.status).toBe(413);
    // Parameters and case in the media type are fine, and the server still serves.
    expect((await post(encrypted(), 'Application/DIDComm-Encrypted+JSON; charset=utf-8')).status).toBe(202);
    expect(got.items).toEqual([encrypted()]);
  });

  it('answers 413 to a chunked body that grows past the limit', async () => {
    const ep = await endpoint(async () => {}, { maxBytes: 1000 });
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(ep.url, { method: 'POST', headers: { 'content-type': ENC } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.write('{"ciphertext":"' + 'x'.repeat(800));
      req.write('x'.repeat(800));
      req.end('"}');
    });
    expect(status).toBe(413);
  });

  it('answers 404 off the path and 405 to other methods', async () => {
    const ep = await endpoint(async () => {});
    expect((await fetch(ep.url.replace('/didcomm', '/other'), { method: 'POST', headers: { 'content-type': ENC }, body: encrypted() })).status).toBe(404);
    const r = await fetch(ep.url);
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
  });

  it('turns a handler error into 400 for a bad message and 500 otherwise, without crashing', async () => {
    const ep = await endpoint(async (packed) => {
      if (packed.includes('"ciphertext":"c1"')) throw new IdsyncError('didcomm_malformed', 'bad envelope');
      if (packed.includes('"ciphertext":"c2"')) throw new Error('boom');
    });
    const t = httpTransport();
    const bad = await rejection(t.send(ep.url, encrypted(1)));
    expect(bad).toMatchObject({ code: 'transport_rejected', details: { status: 400, problemCode: 'didcomm_malformed' } });
    const broken = await rejection(t.send(ep.url, encrypted(2)));
    expect(broken).toMatchObject({ code: 'transport_rejected', details: { status: 500, problemCode: 'internal_error' } });
    expect(broken.message).not.toContain('boom');
    expect(await t.send(ep.url, encrypted(3))).toEqual([]);
  });

  it('reports transport_unreachable when nothing listens', async () => {
    const ep = await startHttpEndpoint({ handler: async () => {} });
    await ep.close();
    const err = await rejection(httpTransport().send(ep.url, encrypted()));
    expect(err).toMatchObject({ code: 'transport_unreachable', details: { endpoint: ep.url, reason: 'ECONNREFUSED' } });
  });

  it('close() lets a message being handled get its answer and takes no new connection meanwhile', async () => {
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const ep = await startHttpEndpoint({
      handler: async () => {
        entered();
        await released;
      },
    });
    const sent = httpTransport().send(ep.url, encrypted());
    await inHandler;
    const closed = ep.close();
    expect(await rejection(httpTransport().send(ep.url, encrypted(2)))).toMatchObject({ code: 'transport_unreachable' });
    release();
    expect(await sent).toEqual([]);
    await closed;
  });

  it('close() cuts a message still unanswered after the grace period', async () => {
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => (entered = r));
    const ep = await startHttpEndpoint({ handler: () => (entered(), new Promise<never>(() => undefined)), closeGraceMs: 50 });
    const sent = rejection(httpTransport().send(ep.url, encrypted()));
    await inHandler;
    await ep.close();
    expect((await sent).code).toMatch(/^transport_/);
  });

  it('reports transport_timeout when the receiver does not answer in time', async () => {
    const url = await rawServer(() => {
      /* never answers */
    });
    const err = await rejection(httpTransport({ timeoutMs: 150 }).send(url, encrypted()));
    expect(err.code).toBe('transport_timeout');
  });

  it('follows a 307 redirect but not a 302', async () => {
    const got = inbox();
    const ep = await endpoint(async (p) => got.push(p));
    const url = await rawServer((req, res) => {
      req.resume();
      res.writeHead(req.url === '/temp' ? 307 : 302, { location: ep.url }).end();
    });
    expect(await httpTransport().send(`${url}/temp`, encrypted())).toEqual([]);
    expect(await got.next()).toBe(encrypted());
    expect(await rejection(httpTransport().send(`${url}/found`, encrypted()))).toMatchObject({ code: 'transport_rejected', details: { status: 302 } });
  });

  it('refuses endpoints of other schemes', async () => {
    await expect(httpTransport().send('ws://127.0.0.1:1/x', encrypted())).rejects.toMatchObject({ code: 'unsupported_scheme' });
  });
});

describe('handleHttpInbound', () => {
  it('applies a 1 MiB default limit', async () => {
    const big = JSON.stringify({ ciphertext: 'x'.repeat(1024 * 1024) });
    expect((await handleHttpInbound({ body: big, contentType: ENC }, async () => {})).status).toBe(413);
    const small = await handleHttpInbound({ body: encrypted(), contentType: ENC }, async () => {});
    expect(small).toEqual({ status: 202 });
  });

  it('uses a 4xx status an IdsyncError asks for', async () => {
    const r = await handleHttpInbound({ body: encrypted(), contentType: ENC }, async () => {
      throw new IdsyncError('rate_limited', 'slow down', { details: { status: 429 } });
    });
    expect(r.status).toBe(429);
    expect(JSON.parse(r.body!)).toMatchObject({ code: 'rate_limited' });
  });

  it('hands the handler the JSON object it parsed while checking the message, so it is not parsed again', async () => {
    let given: unknown;
    const body = encrypted();
    expect(await handleHttpInbound({ body, contentType: ENC }, async (_packed, info) => void (given = info.parsed))).toEqual({ status: 202 });
    expect(given).toEqual(JSON.parse(body));
  });
});
