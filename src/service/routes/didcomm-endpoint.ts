// POST /didcomm: the service's DIDComm v2 HTTP endpoint (DIDComm v2 §9.12, media types §2.4).
// The message goes to agent.receive when one is wired; otherwise it is logged and accepted (202).
// A message that failed for a reason that may pass (the agent resolves with `retryable`: its id
// was left free) is answered 503 with Retry-After (RFC 9110 §15.6.4) so that the sender resends
// it, instead of a 202 that would tell it the message was taken. A message refused for good that
// no problem report could answer (nobody to answer: the agent calls `info.refused`) gets 400 with
// its code, on every copy: it can never succeed, so it is never asked for again.
// The WebSocket endpoint on the same path is attached in app.ts (wsInboundHandler).
import type { FastifyReply } from 'fastify';
import type { App } from '../http/app-types.js';
import type { ServiceDeps } from '../deps.js';
import type { InboundInfo, ReceiveOutcome } from '../didcomm-seam.js';
import { connectionReset, handleHttpInbound } from '../../didcomm/transport/http.js';
import type { InboundOutcome } from '../../didcomm/transport/media-type.js';
import type { WsInboundHandler } from '../../didcomm/transport/ws.js';
import { MEDIA_TYPES, type InboundRefusal } from '../../didcomm/types.js';
import { problemWithStatus } from '../http/problem.js';
import { problemAt } from '../http/problem-handlers.js';
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
    let refusal: InboundRefusal | undefined;
    await deps.agent.receive(packed, {
      ...info,
      retryable: (o) => {
        retry = o;
        info.retryable?.(o);
      },
      refused: (r) => {
        refusal = r;
        info.refused?.(r);
      },
    });
    return retry ? { ...retry, retryable: true } : refusal ? { refusal } : undefined;
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
    if (outcome?.refusal) {
      // Nothing to answer with on a socket either; refused for good, so not a warning about us.
      deps.logger.info(
        { code: outcome.refusal.code, problemCode: outcome.refusal.problemCode, transport: 'ws', connection: info.connection.id },
        'DIDComm message over WebSocket refused for good; its sender could not be told',
      );
    } else if (outcome?.retryable) {
      deps.logger.warn(
        { code: 'temporarily_unavailable', cause: outcome.code, transport: 'ws', connection: info.connection.id },
        'DIDComm message over WebSocket failed for a reason that may pass; not answered with a retry signal',
      );
    }
  };
}

type InboundHandle = ReturnType<typeof inboundHandler>;

/** POST /didcomm's answer to a message: a 2xx and what it carries, or the problem it throws for fastify's error handler. */
async function answerMessage(handle: InboundHandle, body: string, contentType: string | undefined): Promise<{ status: number; body?: string; contentType?: string; abandon?: true }> {
  const res = await handleHttpInbound({ body, contentType }, (packed, info) => handle(packed, { transport: 'http', reply: info.reply, parsed: info.parsed }));
  if (res.abandon) return res;
  if (res.status >= 400) {
    const p = res.problem ?? { code: 'invalid_request', detail: 'the message was refused' };
    // 503 temporarily_unavailable: Retry-After header and the `retryAfter` member, as for 429.
    const retryAfter = p.retryAfterSeconds;
    const headers = retryAfter !== undefined ? { 'Retry-After': String(retryAfter) } : undefined;
    // 400 for a message refused for good: its DIDComm problem code as the `problemCode` member.
    const extra = retryAfter !== undefined ? { retryAfter } : p.problemCode ? { problemCode: p.problemCode } : undefined;
    throw problemWithStatus(p.code, res.status, p.detail, extra, headers);
  }
  return res.body === undefined ? { status: res.status } : { status: res.status, body: res.body, contentType: res.contentType ?? MEDIA_TYPES.encrypted };
}

/** The per-address bucket of POST /didcomm (docs/service.md "Limits"): anyone may post here. */
function checkRate(limiter: RateLimiter | undefined, ip: string): void {
  const decision = limiter?.take(`didcomm:${addressKey(ip)}`);
  if (decision && !decision.allowed) throw rateLimitProblem(decision.retryAfterSeconds);
}

/** A POST /didcomm made in this process, as plain data (the fleet's link). */
export interface InProcessDidcommPost {
  /** The request's path and query, as `request.url` would give it. */
  url: string;
  contentType: string | undefined;
  body: string;
}

/** What the route's HTTP response carries: status, headers (lower-case) and body. */
export interface InProcessDidcommAnswer {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

/**
 * POST /didcomm answered without fastify, for a caller in this process (the fleet's link):
 * the same rate limit, handler and problem documents as the route, as an inject from 127.0.0.1
 * would get them, without light-my-request's request and response objects. Only the usual
 * request is taken (a DIDComm media type as the whole Content-Type, a body within the body
 * limit); undefined for anything else, which the caller sends through fastify.
 */
export type DidcommInProcess = (req: InProcessDidcommPost) => Promise<InProcessDidcommAnswer | undefined>;

declare module 'fastify' {
  interface FastifyInstance {
    /** POST /didcomm for callers in this process (didcomm-endpoint.ts). */
    didcommInProcess: DidcommInProcess;
  }
}

/** The Content-Type fastify sends a string body with: a JSON type without a charset gets `; charset=utf-8`. */
function withCharset(type: string): string {
  return type.includes('json') && !/;\s*charset=/i.test(type) ? `${type}; charset=utf-8` : type;
}

function inProcessPost(app: App, handle: InboundHandle, limiter: RateLimiter | undefined): DidcommInProcess {
  const bodyLimit = app.initialConfig.bodyLimit ?? 1024 * 1024;
  return async (req) => {
    if (req.contentType === undefined || !DIDCOMM_MEDIA_TYPES.includes(req.contentType)) return undefined;
    if (req.body.length > bodyLimit / 3 && Buffer.byteLength(req.body) > bodyLimit) return undefined;
    let res: Awaited<ReturnType<typeof answerMessage>>;
    try {
      checkRate(limiter, '127.0.0.1');
      res = await answerMessage(handle, req.body, req.contentType);
    } catch (err) {
      // As sendProblem() renders it: serialised here, with its headers, as application/problem+json.
      const { status, body, headers } = problemAt(req.url, err, app.log);
      const text = JSON.stringify(body);
      const out: Record<string, string> = { 'content-type': withCharset('application/problem+json'), 'content-length': String(Buffer.byteLength(text)) };
      for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
      return { status, headers: out, body: text };
    }
    // The service crashed while handling it: its caller sees the connection reset.
    if (res.abandon) throw connectionReset();
    if (res.body === undefined) return { status: res.status, headers: { 'content-length': '0' } };
    return { status: res.status, headers: { 'content-type': withCharset(res.contentType!), 'content-length': String(Buffer.byteLength(res.body)) }, body: res.body };
  };
}

export async function didcommRoutes(app: App, deps: ServiceDeps, limiter?: RateLimiter): Promise<void> {
  const handle = inboundHandler(deps);
  app.decorate('didcommInProcess', inProcessPost(app, handle, limiter));
  app.post(
    '/didcomm',
    {
      // Per remote address, before the body is read (docs/service.md "Limits"): anyone may post here.
      onRequest: async (request) => checkRate(limiter, request.ip),
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
      // DIDComm media types arrive as the raw string. Any other body was parsed as something else
      // and is refused for its Content-Type (415) without being serialised again.
      const body = typeof request.body === 'string' ? request.body : '';
      const res = await answerMessage(handle, body, request.headers['content-type']);
      if (res.abandon) {
        // The service crashed while handling it: no answer, the connection is reset.
        reply.hijack();
        request.raw.socket.destroy();
        return;
      }
      reply.code(res.status);
      if (res.body === undefined) return reply.send();
      return reply.type(res.contentType!).send(res.body);
    },
  );
}
