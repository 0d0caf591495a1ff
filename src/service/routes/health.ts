// GET /health (readiness) and GET /openapi.json (the OpenAPI 3.1 document of this API).
import { Type } from '@fastify/type-provider-typebox';
import type { App } from '../http/app-types.js';

export async function healthRoutes(app: App): Promise<void> {
  app.get(
    '/health',
    { schema: { tags: ['Service'], summary: 'Readiness', response: { 200: Type.Object({ status: Type.Literal('ok') }) } } },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/openapi.json',
    { schema: { tags: ['Service'], summary: 'This API as OpenAPI 3.1', hide: true } },
    async (_request, reply) => reply.type('application/json').send(JSON.stringify(app.swagger())),
  );
}
