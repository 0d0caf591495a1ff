import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, decodeJwt, decodeProtectedHeader, importJWK } from 'jose';
import { ManualClock } from '../../src/clock.js';
import { CLAIMS, TOKEN_LIFETIME_S } from '../../src/service/auth/tokens.js';
import { ALL_SCOPES } from '../../src/service/auth/scopes.js';
import { CLIENT, expectProblem, startService, type Harness } from './http-helpers.js';

describe('POST /api/v1/auth/token', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  let h: Harness;
  beforeAll(async () => {
    h = await startService({ clock });
  });
  afterAll(() => h.close());

  const post = (body: unknown) => h.call('POST', '/api/v1/auth/token', { body });

  it('grants every scope the client holds when scopes are omitted', async () => {
    const res = await post({ clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.json).toMatchObject({ tokenType: 'Bearer', expiresIn: 86400 });
    expect(res.json.scope.split(' ').sort()).toEqual([...ALL_SCOPES].sort());
    expect(res.json.scope.split(' ')).toContain('create:issuance-workflows');
  });

  it('grants exactly the requested scopes, as an array or a space-separated string', async () => {
    const a = await post({ ...CLIENT, scopes: ['read:provider-users', 'create:issuance-workflows'] });
    expect(a.json.scope).toBe('read:provider-users create:issuance-workflows');
    const b = await post({ ...CLIENT, scopes: 'send:issuance-workflows read:provider-users' });
    expect(b.json.scope).toBe('send:issuance-workflows read:provider-users');
    const c = await post({ ...CLIENT, scope: 'read:provider-users' });
    expect(c.json.scope).toBe('read:provider-users');
  });

  it('signs an EdDSA JWT with kid, iss, aud, exp, iat, jti, sub and namespaced tenant/correlation claims', async () => {
    const res = await post({ ...CLIENT, scopes: ['read:provider-users'] });
    const header = decodeProtectedHeader(res.json.accessToken);
    expect(header.alg).toBe('EdDSA');
    expect(typeof header.kid).toBe('string');
    const claims = decodeJwt(res.json.accessToken);
    expect(claims.sub).toBe(CLIENT.clientId);
    expect(claims.iss).toBeTruthy();
    expect(claims.aud).toBeTruthy();
    expect(claims.iat).toBe(clock.now() / 1000);
    expect(claims.exp).toBe(clock.now() / 1000 + TOKEN_LIFETIME_S);
    expect(typeof claims.jti).toBe('string');
    expect(claims.scope).toBe('read:provider-users');
    expect(claims[CLAIMS.tenantId]).toBe('default');
    expect(typeof claims[CLAIMS.correlationId]).toBe('string');
  });

  it('refuses an unknown scope and one the client lacks with 400 invalid_scope', async () => {
    expectProblem(await post({ ...CLIENT, scopes: ['read:provider-users', 'fly:to-the-moon'] }), 400, 'invalid_scope');
    const limited = { clientId: 'limited', clientSecret: 'limited-secret' };
    await h.service.deps.config.putClient({
      clientId: limited.clientId,
      tenantId: 'default',
      secretHash: (await import('../../src/service/auth/client-secret.js').then((m) => m.hashClientSecret(limited.clientSecret))),
      scopes: ['read:provider-users'],
      createdAt: new Date(clock.now()).toISOString(),
    });
    const p = expectProblem(await post({ ...limited, scopes: ['upsert:provider-users'] }), 400, 'invalid_scope');
    expect(p.scopes).toEqual(['upsert:provider-users']);
    const ok = await post({ ...limited });
    expect(ok.json.scope).toBe('read:provider-users');
  });

  it('answers a wrong secret and an unknown client alike: 401 invalid_client', async () => {
    const wrong = expectProblem(await post({ clientId: CLIENT.clientId, clientSecret: 'nope' }), 401, 'invalid_client');
    const unknown = expectProblem(await post({ clientId: 'who', clientSecret: 'nope' }), 401, 'invalid_client');
    expect(wrong.detail).toBe(unknown.detail);
  });

  it('refuses a body without clientId with 400 invalid_request and field errors', async () => {
    const p = expectProblem(await post({ clientSecret: 'x' }), 400, 'invalid_request');
    expect(p.errors).toContainEqual(expect.objectContaining({ field: 'body/clientId' }));
  });

  it('rejects an expired token with 401 token_expired and WWW-Authenticate', async () => {
    const token = await h.token(['read:provider-users']);
    expect((await h.call('GET', '/api/v1/provider/users', { token })).status).toBe(200);
    clock.advance(TOKEN_LIFETIME_S * 1000 + 1000);
    const res = await h.call('GET', '/api/v1/provider/users', { token });
    expectProblem(res, 401, 'token_expired');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it('rejects tampered, alg:none and foreign-key tokens with 401 invalid_token', async () => {
    const token = await h.token();
    const [head, body, sig] = token.split('.');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, scope: 'idsync:admin' })).toString('base64url');
    for (const bad of [
      `${head}.${forged}.${sig}`,
      `${Buffer.from('{"alg":"none"}').toString('base64url')}.${body}.`,
      `${Buffer.from('{"alg":"HS256","kid":"x"}').toString('base64url')}.${body}.${sig}`,
      'not-a-jwt',
    ]) {
      const res = await h.call('GET', '/api/v1/provider/users', { token: bad });
      expectProblem(res, 401, 'invalid_token');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="idsync"/);
    }
  });

  it('accepts only typ at+jwt (RFC 9068 §4): the same claims signed by the same key as typ JWT, or with no typ, are refused', async () => {
    const token = await h.token(['read:provider-users']);
    const header = decodeProtectedHeader(token);
    expect(header.typ).toBe('at+jwt');
    const { jwk } = (await h.service.deps.store.collection<{ jwk: Record<string, string> }>('svc-identity').get('jwt-signing-key'))!;
    const key = await importJWK(jwk, 'EdDSA');
    const resign = (typ: string | undefined) => {
      const h2: Record<string, string> = { alg: 'EdDSA', kid: header.kid! };
      if (typ !== undefined) h2.typ = typ;
      return new SignJWT(decodeJwt(token)).setProtectedHeader(h2 as { alg: string }).sign(key);
    };
    // Control: the same key and claims with the media-type form of at+jwt pass.
    expect((await h.call('GET', '/api/v1/provider/users', { token: await resign('application/at+jwt') })).status).toBe(200);
    for (const typ of ['JWT', 'jwt', undefined]) {
      expectProblem(await h.call('GET', '/api/v1/provider/users', { token: await resign(typ) }), 401, 'invalid_token');
    }
  });

  it('answers a missing or non-Bearer Authorization with 401 and a challenge', async () => {
    const none = await h.call('GET', '/api/v1/provider/users');
    expectProblem(none, 401, 'unauthorized');
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="idsync"');
    const basic = await h.call('GET', '/api/v1/provider/users', { headers: { authorization: 'Basic YTpi' } });
    expectProblem(basic, 401, 'invalid_token');
  });

  it('stops honouring scopes withdrawn from the client after the token was issued', async () => {
    const client = { clientId: 'shrinking', clientSecret: 'shrinking-secret' };
    const { hashClientSecret } = await import('../../src/service/auth/client-secret.js');
    const rec = {
      clientId: client.clientId,
      tenantId: 'default',
      secretHash: await hashClientSecret(client.clientSecret),
      scopes: ['read:provider-users'],
      createdAt: new Date(clock.now()).toISOString(),
    };
    await h.service.deps.config.putClient(rec);
    const token = await h.token(undefined, client);
    expect((await h.call('GET', '/api/v1/provider/users', { token })).status).toBe(200);
    await h.service.deps.config.putClient({ ...rec, scopes: [] });
    expectProblem(await h.call('GET', '/api/v1/provider/users', { token }), 403, 'insufficient_scope');
  });
});
