// POST /didcomm: the service's DIDComm v2 HTTP endpoint (DIDComm v2 §9.12, media types §2.4).
// The message goes to agent.receive when one is wired; otherwise it is logged and accepted (202).
// A message that failed for a reason that may pass (the agent resolves with `retryable`: its id
// was left free) is answered 503 with Retry-After (RFC 9110 §15.6.4) so that the sender resends
// it, instead of a 202 that would tell it the message was taken.
// The WebSocket endpoint on the same path is attached in app.ts (wsInboundHandler).
import type { FastifyReply } from 'fastify';
import type { App } from '../http/app-types.js';
import type { ServiceDeps } from '../deps.js';
import type { InboundInfo, ReceiveOutcome } from '../didcomm-seam.js';
import { handleHttpInbound } from '../../didcomm/transport/http.js';
import type { InboundOutcome } from '../../didcomm/transport/media-type.js';
import type { WsInboundHandler } from '../../didcomm/transport/ws.js';
import { MEDIA_TYPES } from '../../didcomm/types.js';
import { problemWithStatus } from '../http/problem.js';
import { problemResponses } from '../http/schemas.js';
import { addressKey, type RateLimiter } from '../http/rate-limit.js';
import { rateLimitProblem } from '../http/rate-limit-problem.js';

export const DIDCOMM_MEDIA_TYPES: string[] = Object.values(MEDIA_TYPES);

/**
 * What inbound endpoints call: the agent's receive, or log-and-accept while no agent handles
 * DIDComm. Resolves with `{retryable: true}` (the transport's InboundOutcome) when the agent
 * called `info.retryable`.
 */
export function inboundHandler(deps: ServiceDeps) {
  return async (packed: string, info: InboundInfo): Promise<void | (InboundOutcome & ReceiveOutcome)> => {
    if (!deps.agent.receive) {
      deps.logger.info({ transport: info.transport, bytes: packed.length }, 'DIDComm message received (no agent wired)');
      return;
    }
    let retry: ReceiveOutcome | undefined;
    await deps.agent.receive(packed, {
      ...info,
      retryable: (o) => {
        retry = o;
        info.retryable?.(o);
      },
    });
    return retry ? { ...retry, retryable: true } : undefined;
  };
}

/**
 * The WebSocket endpoint's handler. A frame has no status to answer with: a message that may be
 * retried is only logged (the router already told an authenticated sender with a transient
 * problem report, e.g. e.p.me.res.storage, where it could).
 */
export function wsInboundHandler(deps: ServiceDeps): WsInboundHandler {
  const handle = inboundHandler(deps);
  return async (packed, info) => {
    const outcome = await handle(packed, { transport: 'ws', reply: info.reply, bind: info.bind });
    if (outcome?.retryable) {
      deps.logger.warn(
        { code: 'temporarily_unavailable', cause: outcome.code, transport: 'ws', connection: info.connection.id },
        'DIDComm message over WebSocket failed for a reason that may pass; not answered with a retry signal',
      );
    }
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
          ...problemResponses([400, 413, 415, 429, 503]),
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
        const p = res.problem ?? { code: 'invalid_request', title: 'the message was refused' };
        // 503 temporarily_unavailable: Retry-After header and the `retryAfter` member, as for 429.
        const retryAfter = p.retryAfterSeconds;
        const headers = retryAfter !== undefined ? { 'Retry-After': String(retryAfter) } : undefined;
        throw problemWithStatus(p.code, res.status, p.title, retryAfter !== undefined ? { retryAfter } : undefined, headers);
      }
      reply.code(res.status);
      if (res.body === undefined) return reply.send();
      return reply.type(res.contentType ?? MEDIA_TYPES.encrypted).send(res.body);
    },
  );
}
