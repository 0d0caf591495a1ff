import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATAPOINT_KEYS } from '../../src/credentials/datapoints.js';
import { prng } from '../fuzz-kit.js';
import { startService, type Harness } from './http-helpers.js';

describe('fuzzing the HTTP API', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await startService();
    token = await h.token();
    await h.call('PUT', '/api/v1/provider/users/fuzz', { token, body: { settings: { isSyncOn: true } } });
  });
  afterAll(() => h.close());

  it('never answers 5xx to a few hundred random requests', async () => {
    const rnd = prng(20260101);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
    const int = (n: number) => Math.floor(rnd() * n);
    const strings = ['', ' ', 'a', 'null', '0', '-1', '1e309', '%', '%00', '\u0000', '😀', '../..', '<script>', 'did:ion:x', 'x'.repeat(3000), '__proto__', 'constructor', '{"a":', '[]'];
    const keys = [...DATAPOINT_KEYS, 'datapoints', 'settings', 'isSyncOn', 'autoSync', 'noAutoSync', 'scopes', 'clientId', 'clientSecret', '__proto__', 'constructor', 'residentialAddress', 'residentialAddressountry'];
    function value(depth: number): unknown {
      switch (int(depth > 3 ? 5 : 8)) {
        case 0: return pick(strings);
        case 1: return rnd() < 0.5;
        case 2: return pick([0, -1, 1.5, 1e308, Number.MAX_SAFE_INTEGER]);
        case 3: return null;
        case 4: return pick(strings) + String(int(1000));
        case 5: return Array.from({ length: int(4) }, () => value(depth + 1));
        default: return Object.fromEntries(Array.from({ length: int(5) }, () => [pick(keys), value(depth + 1)]));
      }
    }
    const bases = h.service.scopedRoutes.map((r) => r.url);
    const paths = [
      ...bases,
      '/api/v1/provider/users/fuzz', '/api/v1/provider/users/fuzz/datapoints', '/api/v1/provider/users/fuzz/claims',
      '/api/v1/provider/users/fuzz/sync-context', '/api/v1/provider/users/fuzz/invite', '/api/v1/provider/users/fuzz/sync',
      '/api/v1provider/users/fuzz/sync', '/api/v1/auth/token', '/connect', '/didcomm', '/.well-known/did.json',
      '/health', '/openapi.json', '/problems/x', '/docs', '/nope',
    ];
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];
    const contentTypes = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/merge-patch+json', 'application/didcomm-plain+json', 'application/didcomm-encrypted+json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=latin1'];
    const auths = [undefined, `Bearer ${token}`, 'Bearer', 'Bearer x.y.z', `Bearer ${token}x`, 'Basic Zm9vOmJhcg==', `bearer ${token}`, 'Bearer ' + 'a'.repeat(5000)];
    const queries = ['', '?autoSync=false', '?autoSync=maybe', '?noAutoSync', '?limit=-3', '?limit=1&offset=1', '?cursor=%%%', '?_oob=%7B', '?a[b]=1&a[c]=2', `?_oob=${Buffer.from(JSON.stringify(value(0))).toString('base64url')}`];

    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const total = 400;
    for (let batch = 0; batch < total / 10; batch++) {
      await Promise.all(Array.from({ length: 10 }, async () => {
        const method = pick(methods);
        let path = pick(paths).replace(/:[A-Za-z]+/g, () => encodeURIComponent(String(pick(strings)) || 'x'));
        if (rnd() < 0.2) path = path.replace(/\/[^/]*$/, '/' + encodeURIComponent(pick(strings)));
        path += pick(queries);
        const headers: Record<string, string> = {};
        const auth = pick(auths);
        if (auth) headers.authorization = auth;
        if (rnd() < 0.3) headers.accept = pick(['application/json', 'text/html', '*/*', 'application/problem+json', 'image/png']);
        let body: string | undefined;
        if (!['GET', 'HEAD'].includes(method) && rnd() < 0.85) {
          headers['content-type'] = pick(contentTypes);
          body = rnd() < 0.8 ? JSON.stringify(value(0)) : pick(strings);
        }
        try {
          const res = await fetch(h.url + path, { method, headers, body });
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status >= 500) failures.push(`${res.status} ${method} ${path} ${body?.slice(0, 100)}`);
        } catch (err) {
          // Requests fetch itself refuses to send (illegal header values) are not the server's fault.
          if (!(err instanceof TypeError)) failures.push(`${method} ${path}: ${String(err)}`);
        }
      }));
    }
    expect(failures).toEqual([]);
    // The fuzz reached handlers, not just the auth wall.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(10);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(10);
  }, 60_000);
});
