// GET /problems/:code: what a problem `type` URI points at (RFC 9457 §3.1.1 "type" SHOULD be
// dereferenceable): the code's title and meaning from the error catalogue, its status when the
// catalogue fixes one (codes relayed from the DIDComm side by POST /didcomm take the status of
// the answer they came in), and the report-problem code a DIDComm peer gets for it when it has one.
import { Type } from '@fastify/type-provider-typebox';
import { errorEntry, isErrorCode } from '../../errors.js';
import type { App } from '../http/app-types.js';
import { problem, problemTitle } from '../http/problem.js';
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
            status: Type.Optional(Type.Integer({ description: 'absent: the status is the answer\'s own' })),
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
      // Every code of the catalogue: POST /didcomm relays what the DIDComm side answers, whatever its code.
      if (!isErrorCode(code)) throw problem('not_found', `no problem type ${code}`);
      const entry = errorEntry(code);
      return { code, ...(entry.status ? { status: entry.status } : {}), title: problemTitle(code), meaning: entry.meaning, ...(entry.problem ? { problemCode: entry.problem } : {}) };
    },
  );
}
