// POST /api/v1/auth/token: OAuth 2.0 client credentials (RFC 6749 §4.4) with the spec's JSON
// body (service-interface.md "Auth"). Scopes: omitted → all the client holds; each requested
// one must be known and held, otherwise 400 invalid_scope.
import type { App } from '../app-types.js';
import type { ServiceDeps } from '../deps.js';
import type { TokenService } from '../tokens.js';
import type { RateLimiter } from '../rate-limit.js';
import { TokenRequest, TokenResponse } from '../schemas/token.js';
import { problemResponses } from '../schemas/common.js';
import { verifyClientSecret } from '../client-secret.js';
import { problem } from '../problem.js';
import { isKnownScope } from '../scopes.js';
import { rateLimitProblem } from '../rate-limit-problem.js';

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
  if (unknown.length) throw problem('invalid_scope', 400, `unknown scope: ${unknown.join(' ')}`, { scopes: unknown });
  const missing = requested.filter((s) => !held.includes(s));
  if (missing.length) throw problem('invalid_scope', 400, `the client is not granted: ${missing.join(' ')}`, { scopes: missing });
  return requested;
}

export async function tokenRoutes(app: App, ctx: { deps: ServiceDeps; tokens: TokenService; limiter: RateLimiter }): Promise<void> {
  const { deps, tokens, limiter } = ctx;
  app.post(
    '/api/v1/auth/token',
    {
      schema: {
        tags: ['Auth'],
        summary: 'Get an access token (client credentials)',
        description: 'Scopes omitted: every scope the client holds. A scope the client lacks or an unknown one: 400 invalid_scope.',
        body: TokenRequest,
        response: { 200: TokenResponse, ...problemResponses([400, 401, 413, 415, 429]) },
      },
    },
    async (request, reply) => {
      const { clientId, clientSecret } = request.body;
      // Guessing secrets is rate limited per client id like any other traffic.
      const decision = limiter.take(`token:${clientId}`);
      if (!decision.allowed) throw rateLimitProblem(decision.retryAfterSeconds);
      const client = await deps.config.getClient(clientId);
      const ok = await verifyClientSecret(clientSecret, client?.secretHash);
      if (!client || !ok) throw problem('invalid_client', 401, 'unknown client or wrong secret');
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
