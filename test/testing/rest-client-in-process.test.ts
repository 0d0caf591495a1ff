// The REST client's in-process path (http-fetch.ts IN_PROCESS, the fleet's link): a server in this
// process is sent the request as plain data, and its answer must read exactly as the same answer
// in a fetch Response: bodies, headers, problems, empty bodies.
import { describe, expect, it } from 'vitest';
import { IN_PROCESS, type InProcessFetch, type PlainRequest, type PlainResponse } from '../../src/http-fetch.js';
import { createServiceClient } from '../../src/testing/rest-client.js';

const URL_BASE = 'http://svc.test';

/** The service's answers, by method and path. */
function answer(req: PlainRequest): PlainResponse {
  const path = req.url.slice(URL_BASE.length);
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  if (path === '/api/v1/auth/token') return json(200, { accessToken: 't1', expiresIn: 3600 });
  if (req.headers.authorization !== 'Bearer t1') return json(401, { code: 'unauthorized', title: 'no token' });
  if (path === '/api/v1/provider/users/u1') return json(200, { userId: 'u1', echo: JSON.parse(req.body ?? 'null'), accept: req.headers.accept });
  if (path === '/api/v1/provider/users/u1/datapoints') return json(200, { email: 'a@b.c' }, { 'idsync-sync-operation': 'op-1' });
  if (path === '/api/v1/provider/users/u2') return json(404, { code: 'not_found', title: 'no such user', status: 404 });
  if (path === '/api/v1/provider/users/u1/invite') return { status: 204, headers: {}, body: 'ignored' };
  return { status: 500, headers: {}, body: 'plain text' };
}

/** A fetch that answers with Responses built from `answer`. */
const responseFetch = (async (url: string, init: RequestInit) => {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(init.headers as Record<string, string>)) headers[k.toLowerCase()] = v;
  const res = answer({ method: init.method!, url, headers, ...(typeof init.body === 'string' ? { body: init.body } : {}) });
  return new Response([204, 205, 304].includes(res.status) ? null : (res.body ?? ''), { status: res.status, headers: res.headers });
}) as typeof fetch;

/** A fetch that must never be called as one: every request goes to the in-process exchange. */
function inProcessFetch(seen: PlainRequest[]): typeof fetch {
  const f = (async () => {
    throw new Error('fetch called');
  }) as unknown as InProcessFetch;
  f[IN_PROCESS] = () => async (req) => (seen.push(req), answer(req));
  return f;
}

async function outcomes(f: typeof fetch): Promise<unknown[]> {
  const client = createServiceClient({ url: URL_BASE, clientId: 'c', clientSecret: 's', fetch: f });
  const settle = async (p: Promise<unknown>) => {
    try {
      return { value: await p };
    } catch (err) {
      const e = err as { code?: string; message: string; details?: unknown };
      return { code: e.code, message: e.message, details: e.details };
    }
  };
  return [
    await settle(client.putUser('u1', { settings: { isSyncOn: true } })),
    await settle(client.putDatapoints('u1', { email: 'a@b.c' })),
    await settle(client.getUser('u2')),
    await settle(client.request('POST', '/api/v1/provider/users/u1/invite').then((r) => ({ status: r.status, body: r.body }))),
    await settle(client.request('GET', '/elsewhere').then((r) => r.body)),
  ];
}

describe('service client, a server in this process', () => {
  it('reads every answer as it reads the same answer in a Response, without calling fetch', async () => {
    const seen: PlainRequest[] = [];
    const viaResponse = await outcomes(responseFetch);
    const inProcess = await outcomes(inProcessFetch(seen));
    expect(inProcess).toEqual(viaResponse);
    expect(viaResponse[0]).toMatchObject({ value: { userId: 'u1', echo: { settings: { isSyncOn: true } }, accept: 'application/json' } });
    expect(viaResponse[1]).toMatchObject({ value: { syncOperationId: 'op-1' } });
    expect(viaResponse[2]).toMatchObject({ code: 'not_found' });
    expect(viaResponse[3]).toEqual({ value: { status: 204, body: undefined } });
    expect(seen.map((r) => `${r.method} ${r.url.slice(URL_BASE.length)}`)).toContain('PUT /api/v1/provider/users/u1');
    expect(seen.find((r) => r.method === 'PUT')!.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer t1' });
  });
});
