// POST /api/v1/auth/token: OAuth 2.0 client credentials (RFC 6749 §4.4) with the spec's JSON
// body (service-interface.md "Auth"). Scopes: omitted → all the client holds; each requested
// one must be known and held, otherwise 400 invalid_scope.
import type { App } from '../http/app-types.js';
import type { ServiceDeps } from '../deps.js';
import type { TokenService } from '../auth/tokens.js';
import { addressKey, type RateLimiter } from '../http/rate-limit.js';
import type { AddressLimits } from '../http/rate-limit.js';
import { isIdsyncError } from '../../errors.js';
import { TokenRequest, TokenResponse } from './schemas/token.js';
import { problemResponses } from '../http/schemas.js';
import { verifyClientSecret } from '../auth/client-secret.js';
import { problem } from '../http/problem.js';
import { isKnownScope } from '../auth/scopes.js';
import { rateLimitProblem } from '../http/rate-limit-problem.js';

/** `scopes` may be an array or a space-separated string; `scope` (OAuth style) too. Empty → omitted. */
export function requestedScopes(body: { scopes?: string[] | string; scope?: string }): string[] | undefined {
  const raw = body.scopes ?? body.scope;
  if (raw === undefined) return undefined;
  const list = (Array.isArray(raw) ? raw : raw.split(' ')).map((s) => s.trim()).filter(Boolean);
  return list.length === 0 ? undefined : [...new Set(list)];
}

export function grantScopes(held: string[], requested: string[] | undefined): string[] {
  if (requested === undefined) return [...held];
  const unknown = requested.filter((s) => !isKnownScope(s));
  if (unknown.length) throw problem('invalid_scope', `unknown scope: ${unknown.join(' ')}`, { scopes: unknown });
  const missing = requested.filter((s) => !held.includes(s));
  if (missing.length) throw problem('invalid_scope', `the client is not granted: ${missing.join(' ')}`, { scopes: missing });
  return requested;
}

export async function tokenRoutes(app: App, ctx: { deps: ServiceDeps; tokens: TokenService; limiter: RateLimiter; limits?: Pick<AddressLimits, 'token' | 'secretChecks'> }): Promise<void> {
  const { deps, tokens, limiter, limits } = ctx;
  app.post(
    '/api/v1/auth/token',
    {
      schema: {
        tags: ['Auth'],
        summary: 'Get an access token (client credentials)',
        body: TokenRequest,
        description:
          'Scopes omitted: every scope the client holds. A scope the client lacks or an unknown one: 400 invalid_scope. ' +
          '429 rate_limited (Retry-After) per remote address, per client id, or while too many secret checks are waiting.',
        response: { 200: TokenResponse, ...problemResponses([400, 401, 413, 415, 429]) },
      },
    },
    async (request, reply) => {
      const { clientId, clientSecret } = request.body;
      // Every request costs an scrypt check (unknown clients too, to hide which exist): limited per
      // remote address (random client ids each get their own per-client bucket) ...
      const byAddress = limits?.token.take(`token:${addressKey(request.ip)}`);
      if (byAddress && !byAddress.allowed) throw rateLimitProblem(byAddress.retryAfterSeconds);
      // ... and per client id like any other traffic (slows guessing one client's secret).
      const decision = limiter.take(`token:${clientId}`);
      if (!decision.allowed) throw rateLimitProblem(decision.retryAfterSeconds);
      const client = await deps.config.getClient(clientId);
      // ... and only a few checks run at once; a full queue is answered 429 at once.
      const check = () => verifyClientSecret(clientSecret, client?.secretHash);
      let ok: boolean;
      try {
        ok = limits ? await limits.secretChecks.run(check) : await check();
      } catch (err) {
        if (isIdsyncError(err) && err.code === 'busy') throw rateLimitProblem(1);
        throw err;
      }
      if (!client || !ok) throw problem('invalid_client', 'unknown client or wrong secret');
      const scopes = grantScopes(client.scopes, requestedScopes(request.body));
      const project = await deps.config.defaultProject(client.tenantId);
      const { accessToken, expiresIn } = await tokens.issue({
        clientId,
        tenantId: client.tenantId,
        scopes,
        dataProfileId: project?.dataProfileId,
      });
      // RFC 6749 §5.1: token responses are not cached.
      reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
      return { tokenType: 'Bearer' as const, scope: scopes.join(' '), accessToken, expiresIn };
    },
  );
}
