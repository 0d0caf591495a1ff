// Verifies the bearer token of a request (RFC 6750 §2.1), re-checks the client (deleted
// clients and withdrawn scopes take effect at once) and applies the client's rate limit.
import type { FastifyRequest } from 'fastify';
import type { Authenticator } from './route-auth.js';
import { bearerChallenge } from '../http/bearer-challenge.js';
import type { ServiceBase } from '../context.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { rateLimitProblem } from '../http/rate-limit-problem.js';
import type { TokenService } from './tokens.js';
import { problem } from '../http/problem.js';

// RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export function createAuthenticator(ctx: { deps: Pick<ServiceBase, 'config'>; tokens: TokenService; limiter: RateLimiter }): Authenticator {
  return {
    async authenticate(request: FastifyRequest) {
      const header = request.headers.authorization;
      if (!header) {
        throw problem('unauthorized', 'send Authorization: Bearer <access token>', undefined, { 'WWW-Authenticate': bearerChallenge() });
      }
      const m = BEARER.exec(header);
      if (!m) {
        throw problem('invalid_token', 'the Authorization header is not a Bearer token', undefined, {
          'WWW-Authenticate': bearerChallenge('invalid_request', 'use the Bearer scheme'),
        });
      }
      const auth = await ctx.tokens.verify(m[1]);
      const client = await ctx.deps.config.getClient(auth.clientId);
      if (!client || client.tenantId !== auth.tenantId) {
        throw problem('invalid_token', 'the token\'s client no longer exists', undefined, {
          'WWW-Authenticate': bearerChallenge('invalid_token', 'unknown client'),
        });
      }
      auth.scopes = auth.scopes.filter((s) => client.scopes.includes(s));
      const decision = ctx.limiter.take(`client:${auth.clientId}`);
      if (!decision.allowed) throw rateLimitProblem(decision.retryAfterSeconds);
      return auth;
    },
  };
}
