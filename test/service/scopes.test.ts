import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/service/auth/scopes.js';
import { expectProblem, startService, type Harness } from './http-helpers.js';

// The scope each of our routes needs (docs/service.md "Scopes"). The issuance, admin and dev routes are
// checked through service.scopedRoutes below.
const TABLE: Array<[method: string, url: string, scope: string]> = [
  ['GET', '/api/v1/provider/users', 'read:provider-users'],
  ['GET', '/api/v1/provider/users/:userId', 'read:provider-users'],
  ['PUT', '/api/v1/provider/users/:userId', 'upsert:provider-users'],
  ['GET', '/api/v1/provider/users/:userId/datapoints', 'read:provider-users'],
  ['PUT', '/api/v1/provider/users/:userId/datapoints', 'upsert:provider-user-claims'],
  ['PATCH', '/api/v1/provider/users/:userId/datapoints', 'upsert:provider-user-claims'],
  ['GET', '/api/v1/provider/users/:userId/claims', 'read:provider-users'],
  ['PUT', '/api/v1/provider/users/:userId/claims', 'upsert:provider-user-claims'],
  ['PATCH', '/api/v1/provider/users/:userId/claims', 'upsert:provider-user-claims'],
  ['GET', '/api/v1/provider/users/:userId/sync-context', 'read:provider-user-sync-sessions'],
  ['POST', '/api/v1/provider/users/:userId/invite', 'create:provider-user-sync-sessions'],
  ['POST', '/api/v1/provider/users/:userId/sync', 'start:provider-user-sync-sessions'],
  ['POST', '/api/v1provider/users/:userId/sync', 'start:provider-user-sync-sessions'],
  ['GET', '/api/v1/provider/projects/:projectId/users-by-did/:userDID', 'read:provider-users'],
];

function concrete(url: string): string {
  return url
    .replace(':userDID', 'did:ion:EiAxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx')
    .replace(/:[A-Za-z]+/g, 'x');
}

describe('scopes on every route', () => {
  let h: Harness;
  const tokens = new Map<string, string>();
  beforeAll(async () => {
    h = await startService();
    // One token per scope: every scope except that one.
    const scopes = new Set(h.service.scopedRoutes.map((r) => r.scope));
    for (const s of scopes) tokens.set(s, await h.token(ALL_SCOPES.filter((x) => x !== s)));
  });
  afterAll(() => h.close());

  it('maps our routes to the documented scopes', () => {
    const registered = h.service.scopedRoutes.map((r) => [r.method, r.url, r.scope]);
    for (const row of TABLE) expect(registered).toContainEqual(row);
  });

  it.each(TABLE)('%s %s needs %s (403 insufficient_scope without it)', async (method, url, scope) => {
    const res = await h.call(method, concrete(url), { token: tokens.get(scope), body: method === 'GET' ? undefined : {} });
    const p = expectProblem(res, 403, 'insufficient_scope');
    expect(p.requiredScope).toBe(scope);
    expect(res.headers.get('www-authenticate')).toContain(`scope="${scope}"`);
  });

  it('answers 403 on every scoped route, G\'s included, for a token lacking the scope', async () => {
    expect(h.service.scopedRoutes.length).toBeGreaterThanOrEqual(TABLE.length);
    for (const r of h.service.scopedRoutes) {
      const res = await h.call(r.method, concrete(r.url), { token: tokens.get(r.scope), body: r.method === 'GET' || r.method === 'DELETE' ? undefined : {} });
      expect([r.method, r.url, res.status, res.json?.code]).toEqual([r.method, r.url, 403, 'insufficient_scope']);
    }
  });

  it('answers 401 with WWW-Authenticate on every scoped route without a token', async () => {
    for (const r of h.service.scopedRoutes) {
      const res = await h.call(r.method, concrete(r.url), { body: r.method === 'GET' || r.method === 'DELETE' ? undefined : { junk: true } });
      expect([r.method, r.url, res.status]).toEqual([r.method, r.url, 401]);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      if (r.method === 'GET') expect((await h.call('HEAD', concrete(r.url))).status).toBe(401);
    }
  });

  it('documents each scoped operation\'s scope in the OpenAPI', async () => {
    const doc = (await h.call('GET', '/openapi.json')).json;
    for (const r of h.service.scopedRoutes) {
      const path = r.url.replace(/:([A-Za-z]+)/g, '{$1}');
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${path}`).toBeDefined();
      expect(op['x-required-scope']).toBe(r.scope);
      expect(op.security).toEqual([{ bearerAuth: [r.scope] }]);
    }
  });
});
