// POST /didcomm: the service's DIDComm v2 HTTP endpoint (DIDComm v2 §9.12, media types §2.4).
// The message goes to agent.receive when one is wired; otherwise it is logged and accepted (202).
// The WebSocket endpoint on the same path is attached in app.ts.
import type { FastifyReply } from 'fastify';
import type { App } from '../app-types.js';
import type { ServiceDeps } from '../deps.js';
import type { InboundInfo } from '../agent.js';
import { handleHttpInbound } from '../../didcomm/transport/http.js';
import { MEDIA_TYPES } from '../../didcomm/types.js';
import { problem } from '../problem.js';
import { problemResponses } from '../schemas/common.js';
import { addressKey, type RateLimiter } from '../rate-limit.js';
import { rateLimitProblem } from '../rate-limit-problem.js';

export const DIDCOMM_MEDIA_TYPES: string[] = Object.values(MEDIA_TYPES);

/** What inbound endpoints call: the agent's receive, or log-and-accept while no agent handles DIDComm. */
export function inboundHandler(deps: ServiceDeps) {
  return async (packed: string, info: InboundInfo): Promise<void> => {
    if (deps.agent.receive) return deps.agent.receive(packed, info);
    deps.logger.info({ transport: info.transport, bytes: packed.length }, 'DIDComm message received (no agent wired)');
  };
}

export async function didcommRoutes(app: App, deps: ServiceDeps, limiter?: RateLimiter): Promise<void> {
  const handle = inboundHandler(deps);
  app.post(
    '/didcomm',
    {
      // Per remote address, before the body is read (docs/service.md "Limits"): anyone may post here.
      onRequest: async (request) => {
        const decision = limiter?.take(`didcomm:${addressKey(request.ip)}`);
        if (decision && !decision.allowed) throw rateLimitProblem(decision.retryAfterSeconds);
      },
      schema: {
        tags: ['DIDComm'],
        summary: 'DIDComm v2 HTTP endpoint',
        description: 'POST a packed message (application/didcomm-encrypted+json, -signed+json or -plain+json). 202, or 200 with a return-routed reply.',
        consumes: DIDCOMM_MEDIA_TYPES,
        response: {
          200: { description: 'Return-routed reply (a packed DIDComm message)', content: { [MEDIA_TYPES.encrypted]: { schema: { type: 'string' } } } },
          202: { description: 'Accepted', type: 'null' },
          ...problemResponses([400, 413, 415, 429]),
        },
      },
    },
    async (request, typedReply) => {
      // Raw packed strings are sent as they are, not through a response schema.
      const reply = typedReply as unknown as FastifyReply;
      const body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body ?? '');
      const res = await handleHttpInbound({ body, contentType: request.headers['content-type'] }, (packed, info) =>
        handle(packed, { transport: 'http', reply: info.reply }),
      );
      if (res.status >= 400) {
        let code = 'invalid_request';
        let detail = 'the message was refused';
        try {
          const parsed = JSON.parse(res.body ?? '{}') as { code?: string; title?: string };
          code = parsed.code ?? code;
          detail = parsed.title ?? detail;
        } catch {
          // keep the defaults
        }
        throw problem(code, res.status, detail);
      }
      reply.code(res.status);
      if (res.body === undefined) return reply.send();
      return reply.type(res.contentType ?? MEDIA_TYPES.encrypted).send(res.body);
    },
  );
}
