// GET /admin/retries: what the DIDComm agent's one retry scheduler holds now (router/retry): how
// many messages wait for their time, are due, are being sent again, and were given up since the
// agent started, in all and by kind (protocol steps, redeliveries after a 503/429). Service-wide
// counts: they name no tenant's data. A service without a DIDComm agent retries nothing (zeros).
import { Type } from '@fastify/type-provider-typebox';
import type { App } from '../http/app-types.js';
import { requireScope } from '../auth/route-auth.js';
import { ADMIN_SCOPE } from '../auth/scopes.js';
import { responses } from '../http/schemas.js';
import type { ServiceDeps } from '../deps.js';
import { NO_RETRIES } from '../../router/retry/scheduler.js';

const Counts = {
  scheduled: Type.Integer({ description: 'Waiting for their time' }),
  due: Type.Integer({ description: 'Their time has come; not sent yet' }),
  retrying: Type.Integer({ description: 'Being sent again now' }),
  abandoned: Type.Integer({ description: 'Given up since the agent started (deadline passed, attempts used up)' }),
};
export const RetryCountsSchema = Type.Object(
  { ...Counts, byKind: Type.Record(Type.String(), Type.Object(Counts), { description: 'step: protocol messages waiting for an answer; redeliver: messages an endpoint asked to get later' }) },
  { title: 'RetryCounts' },
);

export function adminRetryRoutes(app: App, deps: ServiceDeps): void {
  app.get(
    '/admin/retries',
    {
      preHandler: requireScope(ADMIN_SCOPE),
      schema: { tags: ['Admin'], summary: 'What the retry scheduler holds', response: responses({ 200: RetryCountsSchema }) },
    },
    async () => deps.agent.retries?.() ?? NO_RETRIES,
  );
}
