// Every JSON body the service takes in is bounded in nesting depth (json-depth.ts): REST bodies,
// POST /didcomm whatever its Content-Type, WebSocket frames and the `_oob` of /connect. A body
// nested 5,000 levels deep used to overflow the stack in a re-serialisation (a 500 without a
// token); now each entry point answers a coded 400 (or closes the socket with 1007).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { b64uEncode } from '../../src/encoding.js';
import { MAX_JSON_DEPTH } from '../../src/json-depth.js';
import { expectProblem, startService, type Harness } from './http-helpers.js';

const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('JSON nesting depth at every entry point of the service', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startService();
  });
  afterAll(() => h.close());

  it('POST /didcomm with content-type application/json, 5,000 levels deep: 400 json_too_deep, not 500', async () => {
    const res = await h.call('POST', '/didcomm', { raw: true, body: deepObject(5000), headers: { 'content-type': 'application/json' } });
    expect(expectProblem(res, 400, 'json_too_deep').maxDepth).toBe(MAX_JSON_DEPTH);
  });

  it('POST /didcomm with shallow application/json is refused for its media type without being re-serialised', async () => {
    expectProblem(await h.call('POST', '/didcomm', { raw: true, body: '{"a":[1]}', headers: { 'content-type': 'application/json' } }), 415, 'unsupported_media_type');
  });

  it('POST /didcomm with a DIDComm media type nested too deeply: 400 json_too_deep', async () => {
    for (const ct of ['application/didcomm-plain+json', 'application/didcomm-encrypted+json']) {
      expectProblem(await h.call('POST', '/didcomm', { raw: true, body: deepObject(5000), headers: { 'content-type': ct } }), 400, 'json_too_deep');
    }
  });

  it('REST bodies (application/json and +json) one level past the bound: 400 json_too_deep, before authentication', async () => {
    const body = `{"clientId":"x","clientSecret":"y","extra":${deepArray(MAX_JSON_DEPTH)}}`;
    expectProblem(await h.call('POST', '/api/v1/auth/token', { raw: true, body }), 400, 'json_too_deep');
    expectProblem(
      await h.call('PATCH', '/api/v1/provider/users/u1', { raw: true, body: deepObject(5000), headers: { 'content-type': 'application/merge-patch+json' } }),
      400,
      'json_too_deep',
    );
    // At the bound it is parsed as usual (and refused or taken for what it says).
    const ok = await h.call('POST', '/api/v1/auth/token', { raw: true, body: `{"clientId":"x","clientSecret":"y","extra":${deepArray(MAX_JSON_DEPTH - 1)}}` });
    expect(ok.json.code).not.toBe('json_too_deep');
  });

  it('GET /connect with an _oob invitation nested too deeply: 400 json_too_deep', async () => {
    const res = await h.call('GET', `/connect?_oob=${b64uEncode(Buffer.from(deepObject(MAX_JSON_DEPTH + 1)))}`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('json_too_deep');
  });

  it('a WebSocket frame nested too deeply closes the socket with 1007 and says why', async () => {
    const ws = new WebSocket(`${h.url.replace(/^http/, 'ws')}/didcomm`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    ws.send(deepObject(5000));
    expect(await closed).toEqual({ code: 1007, reason: 'JSON nested too deeply' });
  });

  it('still serves after all of it', async () => {
    expect((await h.call('GET', '/.well-known/did.json')).status).toBe(200);
  });
});
