// The control API of `wallet serve` bounds JSON nesting like every other JSON entry point, takes
// only a JSON object as a body of at most 1 MiB, and answers a refusal of what was asked with a
// 4xx, not a 500, as RFC 9457 problem details.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { startControl, stopControl } from '../../src/cli/commands/wallet-control.js';
import { usageError } from '../../src/cli/errors.js';
import { IdsyncError } from '../../src/errors.js';

describe('wallet serve control API', () => {
  let server: Server;
  let url: string;
  const seen: unknown[] = [];
  beforeAll(async () => {
    server = await startControl('t0k3n', {
      'POST /echo': async (body) => (seen.push(body), { ok: true }),
      'POST /fail': async (body) => {
        if (body.kind === 'usage') throw usageError('invalid_argument', 'accept needs a url');
        if (body.kind === 'missing') throw new IdsyncError('not_found', 'no pending item nonexist');
        if (body.kind === 'refused') throw new IdsyncError('mediation_failed', 'no mediation');
        throw new TypeError('a bug');
      },
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => stopControl(server));

  const post = (body: string) => fetch(`${url}/echo`, { method: 'POST', headers: { authorization: 'Bearer t0k3n', 'content-type': 'application/json' }, body });

  it('answers 400 json_too_deep to a body nested 5,000 levels deep without calling the route', async () => {
    const res = await post('['.repeat(5000) + ']'.repeat(5000));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'json_too_deep' });
    expect(seen).toEqual([]);
    expect((await post('{"a":[1]}')).status).toBe(200);
    expect(seen).toEqual([{ a: [1] }]);
  });

  it('refuses a body that is not a JSON object with 400 invalid_request, without calling the route', async () => {
    for (const body of ['null', '[]', '5', '"x"']) {
      const res = await post(body);
      expect(res.status, body).toBe(400);
      expect(await res.json(), body).toMatchObject({ code: 'invalid_request' });
    }
    expect(seen).toEqual([{ a: [1] }]);
  });

  it('answers refusals with 4xx and keeps 500 for its own failures', async () => {
    const fail = async (kind: string) => {
      const res = await fetch(`${url}/fail`, { method: 'POST', headers: { authorization: 'Bearer t0k3n' }, body: JSON.stringify({ kind }) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect(await fail('usage')).toEqual({ status: 400, body: { type: 'about:blank', title: 'Bad Request', status: 400, detail: 'accept needs a url', code: 'invalid_argument', usage: true } });
    expect(await fail('missing')).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(await fail('refused')).toMatchObject({ status: 422, body: { code: 'mediation_failed' } });
    expect(await fail('bug')).toMatchObject({ status: 500, body: { code: 'internal_error' } });
  });

  it('answers every failure as RFC 9457 problem details; a 401 names its scheme; a body over 1 MiB is 413', async () => {
    const unauthorized = await fetch(`${url}/echo`, { method: 'POST', body: '{}' });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('www-authenticate')).toBe('Bearer');
    expect(unauthorized.headers.get('content-type')).toBe('application/problem+json');
    expect(await unauthorized.json()).toEqual({ type: 'about:blank', title: 'Unauthorized', status: 401, detail: 'wrong or missing control token', code: 'unauthorized' });
    const missing = await fetch(`${url}/nothing`, { headers: { authorization: 'Bearer t0k3n' } });
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
    expect(await missing.json()).toMatchObject({ status: 404, code: 'not_found', title: 'Not Found', detail: 'GET /nothing' });
    const big = await post(JSON.stringify({ url: 'x'.repeat(1024 * 1024) }));
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(seen).toEqual([{ a: [1] }]);
  });
});
