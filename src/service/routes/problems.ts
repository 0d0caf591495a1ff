// GET /problems/:code: what a problem `type` URI points at (RFC 9457 §3.1.1 "type" SHOULD be
// dereferenceable): the code's status and title from the catalogue.
import { Type } from '@fastify/type-provider-typebox';
import type { App } from '../http/app-types.js';
import { problem, problemEntry } from '../http/problem.js';
import { problemResponses } from '../http/schemas.js';

export async function problemRoutes(app: App): Promise<void> {
  app.get(
    '/problems/:code',
    {
      schema: {
        tags: ['Service'],
        summary: 'Describe a problem type',
        params: Type.Object({ code: Type.String({ maxLength: 64 }) }),
        response: { 200: Type.Object({ code: Type.String(), status: Type.Integer(), title: Type.String() }), ...problemResponses([404]) },
      },
    },
    async (request) => {
      const { code } = request.params;
      const entry = problemEntry(code);
      if (!entry) throw problem('not_found', 404, `no problem type ${code}`);
      return { code, status: entry.status, title: entry.title };
    },
  );
}
