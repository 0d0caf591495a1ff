// GET /problems/:code: what a problem `type` URI points at (RFC 9457 §3.1.1 "type" SHOULD be
// dereferenceable): the code's status, title and meaning from the error catalogue, and the
// report-problem code a DIDComm peer gets for it when it has one.
import { Type } from '@fastify/type-provider-typebox';
import { errorEntry, isErrorCode } from '../../errors.js';
import type { App } from '../http/app-types.js';
import { problem } from '../http/problem.js';
import { problemResponses } from '../http/schemas.js';

export async function problemRoutes(app: App): Promise<void> {
  app.get(
    '/problems/:code',
    {
      schema: {
        tags: ['Service'],
        summary: 'Describe a problem type',
        params: Type.Object({ code: Type.String({ maxLength: 64 }) }),
        response: {
          200: Type.Object({
            code: Type.String(),
            status: Type.Integer(),
            title: Type.String(),
            meaning: Type.String(),
            problemCode: Type.Optional(Type.String({ description: 'the DIDComm report-problem 2.0 code of the same error' })),
          }),
          ...problemResponses([404]),
        },
      },
    },
    async (request) => {
      const { code } = request.params;
      // Only codes an HTTP response can carry are problem types.
      const entry = isErrorCode(code) ? errorEntry(code) : undefined;
      if (!entry?.status || !entry.title) throw problem('not_found', `no problem type ${code}`);
      return { code, status: entry.status, title: entry.title, meaning: entry.meaning, ...(entry.problem ? { problemCode: entry.problem } : {}) };
    },
  );
}
