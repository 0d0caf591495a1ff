// Console access on the service twin: the credentials the service already has. Signing in is a
// token request for the idsync:admin scope (POST /api/v1/auth/token, made in-process on behalf of
// the browser's address), so the same scrypt check, per-address and per-client limits and
// queue of secret checks apply as to any client; a script sends that token as a bearer. The
// console shows one tenant's data: the signed-in client's.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticate } from '../service/auth/route-auth.js';
import { ADMIN_SCOPE } from '../service/auth/scopes.js';
import type { ServiceDeps } from '../service/deps.js';
import { problem } from '../service/http/problem.js';
import { rateLimitProblem } from '../service/http/rate-limit-problem.js';
import type { ConsoleAuth } from './auth.js';

function codeOf(body: string): unknown {
  try {
    return (JSON.parse(body) as { code?: unknown }).code;
  } catch {
    return undefined;
  }
}

export function serviceAuth(app: FastifyInstance, deps: ServiceDeps): ConsoleAuth {
  const admin = async (clientId: string): Promise<{ tenantId: string } | undefined> => {
    const client = await deps.config.getClient(clientId);
    return client && client.scopes.includes(ADMIN_SCOPE) ? { tenantId: client.tenantId } : undefined;
  };
  return {
    form: { id: 'Client id', secret: 'Client secret', hint: 'A client of this service holding the idsync:admin scope (the demo tenant’s, or IDSYNC_CLIENT_ID / IDSYNC_CLIENT_SECRET).' },
    async signIn({ id, secret }, request: FastifyRequest) {
      const clientId = id ?? '';
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/auth/token',
        payload: { clientId, clientSecret: secret, scopes: [ADMIN_SCOPE] },
        // The limits per remote address count the browser's address, not this process.
        remoteAddress: request.ip,
      });
      if (res.statusCode === 200) {
        const client = await admin(clientId);
        if (client) return { subject: clientId, tenantId: client.tenantId };
      }
      if (res.statusCode === 429) throw rateLimitProblem(Number(res.headers['retry-after'] ?? 1) || 1);
      // Right secret, but the client lacks the scope: the token request says invalid_scope.
      if (res.statusCode === 400 && codeOf(res.body) === 'invalid_scope') {
        throw problem('insufficient_scope', `the console needs a client holding ${ADMIN_SCOPE}`, { requiredScope: ADMIN_SCOPE });
      }
      throw problem('invalid_client', 'unknown client or wrong secret');
    },
    async bearer(request) {
      const auth = await authenticate(request);
      if (!auth.scopes.includes(ADMIN_SCOPE)) throw problem('insufficient_scope', `the console needs the scope ${ADMIN_SCOPE}`, { requiredScope: ADMIN_SCOPE });
      return { subject: auth.clientId, tenantId: auth.tenantId };
    },
    async stillAllowed(p) {
      const client = await admin(p.subject);
      return client !== undefined && client.tenantId === p.tenantId;
    },
  };
}
