// Bearer-token authentication and scope checks for routes (RFC 6750). app.ts decorates the
// fastify instance with `idsyncAuth`; routes only say which scope they need:
//   app.get('/x', { preHandler: requireScope('read:provider-users') }, handler)
// app.ts reads `requiredScope` off the preHandler to document it in the OpenAPI
// (`security` and `x-required-scope`).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerChallenge } from '../http/bearer-challenge.js';
import { problem } from '../http/problem.js';

/** Who is calling: set on `request.auth` once the bearer token verified. */
export interface AuthContext {
  clientId: string;
  tenantId: string;
  scopes: string[];
  /** The token's jti. */
  tokenId: string;
  /** Correlation id carried by the token (vendor-facts: namespaced claim). */
  correlationId?: string;
}

export interface Authenticator {
  /** Verifies the request's bearer token and applies the client's rate limit; throws 401/429 problems. */
  authenticate(request: FastifyRequest): Promise<AuthContext>;
}

declare module 'fastify' {
  interface FastifyInstance {
    idsyncAuth: Authenticator;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

export type ScopedPreHandler = ((request: FastifyRequest, reply: FastifyReply) => Promise<void>) & {
  readonly requiredScope: string;
};


/** Authenticates once per request; later calls reuse `request.auth`. */
export async function authenticate(request: FastifyRequest): Promise<AuthContext> {
  if (request.auth) return request.auth;
  const auth = await request.server.idsyncAuth.authenticate(request);
  request.auth = auth;
  return auth;
}

/** A preHandler that requires a verified token holding `scope` (401 without one, 403 without the scope). */
export function requireScope(scope: string): ScopedPreHandler {
  const handler = async (request: FastifyRequest): Promise<void> => {
    const auth = await authenticate(request);
    if (!auth.scopes.includes(scope)) {
      throw problem(
        'insufficient_scope',
        `this operation needs the scope ${scope}`,
        { requiredScope: scope },
        { 'WWW-Authenticate': bearerChallenge('insufficient_scope', undefined, scope) },
      );
    }
  };
  return Object.assign(handler, { requiredScope: scope });
}

/** The caller of a route guarded by requireScope. */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) {
    throw problem('unauthorized', 'no access token', undefined, { 'WWW-Authenticate': bearerChallenge() });
  }
  return request.auth;
}
