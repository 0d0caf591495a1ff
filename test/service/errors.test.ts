import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ERRORS } from '../../src/errors.js';
import { rawExchange } from '../net/raw-exchange.js';
import { expectProblem, startService, type Harness } from './http-helpers.js';

describe('problem details for every failure', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await startService();
    token = await h.token();
    await h.call('PUT', '/api/v1/provider/users/e1', { token, body: {} });
  });
  afterAll(() => h.close());

  it('answers an unknown route with 404 route_not_found', async () => {
    const p = expectProblem(await h.call('GET', '/api/v1/nothing-here'), 404, 'route_not_found');
    expect(p.instance).toBe('/api/v1/nothing-here');
    expectProblem(await h.call('DELETE', '/api/v1/provider/users', { token }), 404, 'route_not_found');
  });

  it('answers what the HTTP parser refuses as problem details too, and lives on', async () => {
    for (const raw of [
      'GET api/v1/provider/users HTTP/1.1\r\nHost: x\r\n\r\n', // no leading slash
      'FOO / HTTP/1.1\r\nHost: x\r\n\r\n', // an unknown method
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab', // two lengths
      'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', // a bad chunk
    ]) {
      const a = await rawExchange(h.url, raw);
      expect(a, raw).toMatchObject({ status: 400, contentType: 'application/problem+json', json: { type: '/problems/invalid_request', status: 400, code: 'invalid_request' } });
    }
    const big = await rawExchange(h.url, `GET /api/v1/provider/users/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(big).toMatchObject({ status: 431, contentType: 'application/problem+json', json: { type: '/problems/headers_too_large', title: 'Request header fields too large', status: 431, code: 'headers_too_large' } });
    expect((await h.call('GET', String(big.json.type))).json).toMatchObject({ code: 'headers_too_large', status: 431 });
    expect((await h.call('GET', '/health')).status).toBe(200);
  });

  it('answers a static file outside the docs folder with 403 forbidden, the code its status has', async () => {
    const a = await rawExchange(h.url, 'GET /docs/static/../../package.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(a).toMatchObject({ status: 403, json: { type: '/problems/forbidden', code: 'forbidden' } });
  });

  it('answers malformed JSON with 400 malformed_json', async () => {
    const res = await h.call('PUT', '/api/v1/provider/users/e1', { token, body: '{"settings": ', raw: true });
    expectProblem(res, 400, 'malformed_json');
  });

  it('refuses prototype-poisoning JSON with 400', async () => {
    const res = await h.call('PUT', '/api/v1/provider/users/e1', { token, body: '{"__proto__":{"x":1}}', raw: true });
    expectProblem(res, 400, 'malformed_json');
  });

  it('answers a body over 1 MiB with 413 payload_too_large', async () => {
    const big = JSON.stringify({ datapoints: { firstName: 'x'.repeat(1024 * 1024) } });
    expectProblem(await h.call('PUT', '/api/v1/provider/users/e1/datapoints', { token, body: big, raw: true }), 413, 'payload_too_large');
  });

  it('answers an unsupported content type with 415 unsupported_media_type', async () => {
    const res = await h.call('PUT', '/api/v1/provider/users/e1', { token, body: '<x/>', raw: true, headers: { 'content-type': 'application/xml' } });
    expectProblem(res, 415, 'unsupported_media_type');
  });

  it('accepts application/merge-patch+json for PATCH', async () => {
    const res = await h.call('PATCH', '/api/v1/provider/users/e1/datapoints', {
      token,
      body: JSON.stringify({ datapoints: { firstName: 'Mo' } }),
      raw: true,
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(res.status).toBe(200);
  });

  it('reads numbers in a query string as written: 1.5, true, 0x10 or 1e2 are no page size', async () => {
    for (const limit of ['1.5', 'true', '0x10', '0b11', '1e2', '+5', ' 5', '']) {
      const p = expectProblem(await h.call('GET', `/api/v1/provider/users?limit=${encodeURIComponent(limit)}`, { token }), 400, 'invalid_request');
      expect(p.errors, limit).toEqual([expect.objectContaining({ field: 'querystring/limit' })]);
    }
    const page = await h.call('GET', '/api/v1/provider/users?limit=5', { token });
    expect(page.status).toBe(200);
    expect(JSON.stringify(page.json)).toMatch(/"limit":5\b/);
  });

  it('answers a bad path parameter with 400 invalid_request', async () => {
    expectProblem(await h.call('GET', `/api/v1/provider/users/${'a'.repeat(300)}`, { token }), 400, 'invalid_request');
    expectProblem(await h.call('GET', '/api/v1/provider/users/%E0%A4%A', { token }), 400, 'invalid_request');
  });

  it('makes every problem type URI resolvable to its catalogue entry', async () => {
    const p = expectProblem(await h.call('GET', '/api/v1/provider/users/ghost', { token }), 404, 'user_not_found');
    const res = await h.call('GET', p.type);
    expect(res.json).toEqual({ code: 'user_not_found', status: 404, title: 'User not found', meaning: ERRORS.user_not_found.meaning });
    expectProblem(await h.call('GET', '/problems/constructor'), 404, 'not_found');
  });

  it('describes a problem type from the error catalogue, with its report-problem code', async () => {
    const forbidden = await h.call('GET', '/problems/forbidden');
    expect(forbidden.json).toEqual({ code: 'forbidden', status: 403, title: 'Forbidden', meaning: ERRORS.forbidden.meaning, problemCode: 'e.p.trust.forbidden' });
    // A code relayed from the DIDComm side has no status of its own, and a title all the same.
    expect((await h.call('GET', '/problems/sender_not_authenticated')).json).toEqual({
      code: 'sender_not_authenticated',
      title: 'Sender not authenticated',
      meaning: ERRORS.sender_not_authenticated.meaning,
      problemCode: 'e.p.trust',
    });
    // A name the catalogue lacks is no problem type.
    expectProblem(await h.call('GET', '/problems/no_such_code'), 404, 'not_found');
  });

  it('serves the DID document without any private key material', async () => {
    const res = await h.call('GET', '/.well-known/did.json');
    expect(res.status).toBe(200);
    expect(res.text).not.toMatch(/"d"\s*:/);
    const doc = res.json;
    expect(doc.id).toBe(h.service.deps.serviceDid);
    expect(doc.id).toBe(`did:web:127.0.0.1%3A${new URL(h.url).port}`);
    expect(doc.authentication).toEqual([`${doc.id}#key-1`]);
    expect(doc.keyAgreement).toEqual([`${doc.id}#key-2`]);
    expect(doc.assertionMethod).toEqual([`${doc.id}#key-3`]);
    expect(doc.service).toEqual([
      expect.objectContaining({ type: 'DIDCommMessaging', serviceEndpoint: expect.objectContaining({ uri: `${h.url}/didcomm`, accept: ['didcomm/v2'] }) }),
      expect.objectContaining({ type: 'DIDCommMessaging', serviceEndpoint: expect.objectContaining({ uri: `${h.url.replace('http', 'ws')}/didcomm` }) }),
    ]);
    const crv = doc.verificationMethod.map((m: { publicKeyJwk: { crv: string } }) => m.publicKeyJwk.crv);
    expect(crv).toEqual(['Ed25519', 'X25519', 'Ed25519']);
  });

  it('accepts DIDComm messages on POST /didcomm with 202 and refuses other media types with 415', async () => {
    const ok = await h.call('POST', '/didcomm', { body: '{"protected":"e30","ciphertext":"x"}', raw: true, headers: { 'content-type': 'application/didcomm-encrypted+json' } });
    expect(ok.status).toBe(202);
    const bad = await h.call('POST', '/didcomm', { body: '{"a":1}', raw: true, headers: { 'content-type': 'application/json' } });
    expectProblem(bad, 415, 'unsupported_media_type');
  });

  it('answers a body that is no DIDComm message at all with 400 invalid_message, and still 202 to a message it cannot open', async () => {
    for (const junk of ['{"hello":"world"}', '{}', '{"ciphertext":1}', '{"payload":"x"}', '{"id":1,"type":"t"}', 'null', '"x"', '{oops']) {
      const res = await h.call('POST', '/didcomm', { body: junk, raw: true, headers: { 'content-type': 'application/didcomm-encrypted+json' } });
      const p = expectProblem(res, 400, 'invalid_message');
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(String(p.detail ?? p.title), junk).toMatch(/DIDComm message|JSON/);
    }
    // Shaped as a JWE, so a DIDComm message: taken (202) and logged as undecryptable by the agent.
    const jwe = '{"protected":"eyJhbGciOiJFQ0RILUVTK0EyNTZLVyJ9","recipients":[],"iv":"","ciphertext":"x","tag":""}';
    expect((await h.call('POST', '/didcomm', { body: jwe, raw: true, headers: { 'content-type': 'application/didcomm-encrypted+json' } })).status).toBe(202);
  });

  it('closes a WebSocket that sends no DIDComm message with 1007, as HTTP answers 400', async () => {
    const { WebSocket } = await import('ws');
    const ws = new WebSocket(`${h.url.replace('http', 'ws')}/didcomm`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send('{"hello":"world"}');
    expect(await closed).toBe(1007);
  });

  it('hands inbound DIDComm to agent.receive and return-routes its reply', async () => {
    const received: string[] = [];
    const prev = h.service.deps.agent;
    h.service.deps.agent = {
      ...prev,
      async receive(packed, info) {
        received.push(packed);
        await info.reply?.('{"id":"r1","type":"https://didcomm.org/trust-ping/2.0/ping-response","body":{}}');
      },
    };
    try {
      const res = await h.call('POST', '/didcomm', { body: '{"id":"1","type":"t","body":{}}', raw: true, headers: { 'content-type': 'application/didcomm-plain+json' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/didcomm-plain\+json/);
      expect(received).toHaveLength(1);
    } finally {
      h.service.deps.agent = prev;
    }
  });

  it('hands WebSocket DIDComm frames to agent.receive with a reply on the socket', async () => {
    const prev = h.service.deps.agent;
    h.service.deps.agent = {
      ...prev,
      async receive(_packed, info) {
        expect(info.transport).toBe('ws');
        await info.reply?.('{"id":"r2","type":"pong","body":{}}');
      },
    };
    const { WebSocket } = await import('ws');
    const ws = new WebSocket(`${h.url.replace('http', 'ws')}/didcomm`);
    try {
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      const reply = new Promise<string>((resolve) => ws.once('message', (d) => resolve(String(d))));
      ws.send('{"id":"2","type":"ping","body":{}}');
      expect(JSON.parse(await reply).id).toBe('r2');
    } finally {
      ws.close();
      h.service.deps.agent = prev;
    }
  });
});

describe('rate limit', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  let h: Harness;
  beforeAll(async () => {
    h = await startService({ clock, rateLimit: { burst: 3, perSecond: 0.5 } });
  });
  afterAll(() => h.close());

  it('answers 429 rate_limited with Retry-After once a client spends its bucket, and recovers as time passes', async () => {
    const token = await h.token();
    for (let i = 0; i < 3; i++) expect((await h.call('GET', '/api/v1/provider/users', { token })).status).toBe(200);
    const limited = await h.call('GET', '/api/v1/provider/users', { token });
    expectProblem(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).toBe('2');
    clock.advance(2000);
    expect((await h.call('GET', '/api/v1/provider/users', { token })).status).toBe(200);
  });

  it('limits token requests per client id too', async () => {
    // A fresh client id has a full bucket of 3 (token requests have their own bucket).
    const client = { clientId: 'guessed-client', clientSecret: 'wrong' };
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await h.call('POST', '/api/v1/auth/token', { body: client })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});
