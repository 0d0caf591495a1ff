// DIDComm v2 HTTP(S) transport (spec "Transports › HTTP(S)"): the sender POSTs the packed
// message with its media type as Content-Type; a receiver answers 2xx, preferably 202
// Accepted. When the handler return-routes a reply (DIDComm v2 return_route extension), the
// reply travels back in the response body with status 200: HTTP carries at most one.
//
// Retries: a receiver whose handler says the message may be sent again (InboundOutcome
// `retryable`, media-type.ts) answers 503 with Retry-After; a sender that gets 503 or 429 throws
// `transport_retry_later` with the Retry-After seconds, so its caller can back off and resend.
import http from 'node:http';
import { systemClock, type Clock } from '../../clock.js';
import { httpStatusOf, IdsyncError, isIdsyncError, type ErrorCode } from '../../errors.js';
import { inProcessExchange, networkError } from '../../http-fetch.js';
import { plainReply, replyOutcome, responseReply, withTimeout, type Reply } from './http-reply.js';
import { listen, urlHost } from '../../listen.js';
import { NOT_A_PATH, requestUrl } from '../../net/request-target.js';
import { answerClientError, problemDocument } from '../../problem-details.js';
import { JSON_TOO_DEEP } from '../../json-depth.js';
import type { InboundHandler, InboundRefusal, Transport } from '../types.js';
import {
  byteLength, DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS, detectMediaType, isDidcommMediaType, parseInboundMessage, processGone, refusalOf, RETRY_LATER_CODE, retryHint,
  schemeOf, statusForHandlerError, type InboundOutcome,
} from './media-type.js';

export type { InboundOutcome } from './media-type.js';

export interface HttpTransportOptions {
  /** Whole exchange, redirects and reply included (default 10 s). */
  timeoutMs?: number;
  /** Temporary redirects (307) followed; others are rejections (default 3). */
  maxRedirects?: number;
  /** Largest reply body read (default 1 MiB); a longer one is cancelled, not read to its end. */
  maxReplyBytes?: number;
  /** For tests or proxies; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Reads a Retry-After given as an HTTP-date (default the system clock). */
  clock?: Clock;
}

/**
 * The sending side. `send` resolves once the receiver answered 2xx; it returns the reply in a
 * 200 body (a return-routed message) as the only element, or [] for 202 / an empty body.
 * The reply is returned whatever `returnRoute` says: it is already on the wire.
 * An endpoint the fetch reaches in this process (http-fetch.ts IN_PROCESS: the fleet's link) is
 * sent the same request as plain data and its answer read the same way, without fetch's objects.
 */
export function httpTransport(options: HttpTransportOptions = {}): Transport {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRedirects = options.maxRedirects ?? 3;
  const maxReplyBytes = options.maxReplyBytes ?? DEFAULT_MAX_BYTES;
  const doFetch = options.fetch ?? fetch;
  const clock = options.clock ?? systemClock;

  return {
    schemes: ['http', 'https'],
    async send(endpoint, packed, options) {
      const scheme = schemeOf(endpoint);
      if (scheme !== 'http' && scheme !== 'https') throw new IdsyncError('unsupported_scheme', `the HTTP transport cannot send to ${scheme}:`, { details: { endpoint } });
      // The packer's media type when the sender gives it; otherwise judged from the JSON shape.
      const contentType = options?.mediaType ?? detectMediaType(packed);
      // One deadline for the whole exchange, redirects included.
      const deadline = performance.now() + timeoutMs;
      let signal: AbortSignal | undefined;
      let url = endpoint;
      try {
        for (let hop = 0; ; hop++) {
          const exchange = inProcessExchange(doFetch, url);
          let res: Reply;
          if (exchange) {
            const answer = exchange({ method: 'POST', url, headers: { 'content-type': contentType }, body: packed });
            res = plainReply(await withTimeout(answer, Math.max(0, Math.ceil(deadline - performance.now()))), endpoint);
          } else {
            signal ??= AbortSignal.timeout(Math.max(0, Math.ceil(deadline - performance.now())));
            res = responseReply(await doFetch(url, { method: 'POST', headers: { 'content-type': contentType }, body: packed, redirect: 'manual', signal }), endpoint);
          }
          // "HTTP Redirects SHOULD be followed. Only Temporary Redirects (307) are acceptable."
          const location = res.status === 307 ? res.header('location') : null;
          if (location && hop < maxRedirects) {
            await res.discard();
            url = new URL(location, url).href;
            continue;
          }
          return await replyOutcome(res, endpoint, maxReplyBytes, clock);
        }
      } catch (err) {
        throw networkError(err, endpoint);
      }
    },
  };
}

export interface HttpInboundRequest {
  body: string;
  contentType?: string | null;
}

export interface HttpInboundResponse {
  status: number;
  body?: string;
  contentType?: string;
  /** Extra response headers (Retry-After on a 503). */
  headers?: Record<string, string>;
  /** A refusal (status >= 400), coded: what `body` says as a problem document, for callers that answer in their own way. */
  problem?: InboundProblem;
  /** The handler's process died (media-type.ts processGone): answer nothing, reset the connection. */
  abandon?: true;
}

/** What a killed process answers: nothing (the caller resets the connection). */
const ABANDONED: HttpInboundResponse = { status: 0, abandon: true };

/** What a caller in this process sees of a server killed mid-request (an `abandon` answer). */
export function connectionReset(): Error {
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
}

export interface InboundProblem {
  code: ErrorCode;
  /** What went wrong with this message (the body's `detail`). */
  detail: string;
  /** 503: seconds after which the sender should send the message again. */
  retryAfterSeconds?: number;
  /** 400 for a message refused for good: the DIDComm problem code of the refusal. */
  problemCode?: string;
}

/**
 * An inbound handler for the HTTP side: an InboundHandler that may also resolve with an
 * InboundOutcome; `{retryable: true}` (e.g. the router's result for a message whose handler
 * failed for a reason that may pass) is answered 503 with Retry-After instead of 202.
 */
export type HttpInboundHandler = (packed: string, info: Parameters<InboundHandler>[1]) => Promise<void | InboundOutcome>;

export interface HttpInboundOptions {
  /** Largest accepted body (default 1 MiB). */
  maxBytes?: number;
}

/**
 * An RFC 9457 problem details response; the status is the catalogue's unless a handler's error
 * named another 4xx (statusForHandlerError). `problemCode` is an extension member (RFC 9457 §3.2).
 */
export function problemResponse(code: ErrorCode, detail: string, status: number = httpStatusOf(code), problemCode?: string): HttpInboundResponse {
  const extra = problemCode ? { problemCode } : {};
  return { status, contentType: 'application/problem+json', body: JSON.stringify(problemDocument(status, code, detail, extra)), problem: { code, detail, ...extra } };
}

/** 400 for a request-target that is neither a path nor an absolute URL (RFC 9112 §3.2: requestUrl gave none). */
export function badTargetResponse(): HttpInboundResponse {
  return problemResponse('invalid_request', NOT_A_PATH);
}

/**
 * 503 with Retry-After (RFC 9110 §10.2.3, §15.6.4): the message was not processed; send it again.
 * A `reason` the handler gave (code, problem code) is named, so a sender with no other way to be
 * told (an anoncrypted forward) learns why.
 */
export function retryLaterResponse(retryAfterSeconds: number, reason?: InboundRefusal): HttpInboundResponse {
  const code = reason?.code ?? RETRY_LATER_CODE;
  const detail = reason?.message ?? 'the message could not be processed now; send it again later';
  const extra = reason?.problemCode ? { problemCode: reason.problemCode } : {};
  return {
    status: 503,
    contentType: 'application/problem+json',
    body: JSON.stringify(problemDocument(503, code, detail, { ...extra, retryAfter: retryAfterSeconds })),
    headers: { 'retry-after': String(retryAfterSeconds) },
    problem: { code, detail, ...extra, retryAfterSeconds },
  };
}

/**
 * The receiving side as a plain function, for any HTTP framework. Calls `handler` and waits
 * for it; the handler may call `info.reply(packed)` once before it resolves to return-route
 * a reply in the response. A second reply, or one after the handler resolved, is refused with
 * `transport_reply_unavailable` so the caller can deliver it another way.
 *
 * A handler that resolves with `{retryable: true}` or throws an IdsyncError with
 * `details.retryable` gets 503 with Retry-After (a reply it made is not sent: the sender will
 * send the message again and get its answer then). One that resolves with `{refusal}` (refused
 * for good, no problem report sent) gets 400 with the refusal's code and problem code.
 */
export async function handleHttpInbound(req: HttpInboundRequest, handler: HttpInboundHandler, options: HttpInboundOptions = {}): Promise<HttpInboundResponse> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (!isDidcommMediaType(req.contentType)) {
    return problemResponse('unsupported_media_type', 'Content-Type must be a DIDComm v2 media type (application/didcomm-encrypted+json, -signed+json or -plain+json)');
  }
  if (byteLength(req.body) > maxBytes) return problemResponse('payload_too_large', `a message may have at most ${maxBytes} bytes`);
  let parsed: Record<string, unknown>;
  try {
    parsed = parseInboundMessage(req.body).json;
  } catch (err) {
    if (isIdsyncError(err) && err.code === JSON_TOO_DEEP) return problemResponse(err.code, err.message);
    return problemResponse('invalid_message', (err as Error).message);
  }

  let reply: { packed: string; contentType: string } | undefined;
  let open = true;
  const info = {
    transport: 'http',
    parsed,
    reply: async (packed: string) => {
      if (!open || reply !== undefined) {
        throw new IdsyncError('transport_reply_unavailable', 'an HTTP response carries one return-routed message, sent when the handler resolves');
      }
      reply = { packed, contentType: detectMediaType(packed) };
    },
  };
  let outcome: void | InboundOutcome;
  try {
    outcome = await handler(req.body, info);
  } catch (err) {
    if (processGone(err)) return ABANDONED;
    const { status, code, message, retryAfterSeconds } = statusForHandlerError(err);
    if (retryAfterSeconds !== undefined) return retryLaterResponse(retryAfterSeconds);
    return problemResponse(code, message, status);
  } finally {
    open = false;
  }
  if (processGone(outcome)) return ABANDONED;
  const retry = retryHint(outcome);
  if (retry) return retryLaterResponse(retry.retryAfterSeconds, (outcome as InboundOutcome | undefined)?.reason);
  // Refused for good and no problem report could tell the sender: this answer does (never a 503
  // for a message that would fail the same way every time it is sent).
  const refusal = refusalOf(outcome);
  if (refusal) return problemResponse(refusal.code, refusal.message, 400, refusal.problemCode);
  if (reply === undefined) return { status: 202 };
  return { status: 200, body: reply.packed, contentType: reply.contentType };
}

export interface HttpEndpointOptions extends HttpInboundOptions {
  host?: string;
  port?: number;
  /** The path messages are POSTed to (default '/didcomm'). */
  path?: string;
  handler: HttpInboundHandler;
  /**
   * Many endpoints on one server: the handler for a request path under `path` + '/' (e.g. one
   * per simulated wallet at /w/17); undefined answers 404. `handler` keeps `path` itself.
   */
  handlerFor?: (subpath: string) => HttpInboundHandler | undefined;
  /** How long close() lets requests in flight finish their answers before cutting them off (default 10 s). */
  closeGraceMs?: number;
}

const CLOSE_GRACE_MS = 10_000;

export interface HttpEndpoint {
  /** The endpoint URL to publish in a DID document, e.g. http://127.0.0.1:50123/didcomm. */
  readonly url: string;
  readonly server: http.Server;
  close(): Promise<void>;
}

function sendResponse(res: http.ServerResponse, r: HttpInboundResponse, extra: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const headers: Record<string, string | number> = { ...r.headers, ...extra };
  if (r.body !== undefined) {
    headers['content-type'] = r.contentType ?? 'application/octet-stream';
    headers['content-length'] = Buffer.byteLength(r.body);
  } else {
    headers['content-length'] = 0;
  }
  res.writeHead(r.status, headers);
  res.end(r.body);
}

/** A node:http server receiving DIDComm messages on one path. */
export async function startHttpEndpoint(options: HttpEndpointOptions): Promise<HttpEndpoint> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/didcomm';
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;

  // Requests being answered, and whether close() began: it lets them finish (see close below).
  let inFlight = 0;
  let closing = false;
  const server = http.createServer((req, res) => {
    inFlight++;
    res.once('close', () => {
      inFlight--;
    });
    // While closing, each answer ends its connection: no keep-alive connection outlives close().
    const send = (r: HttpInboundResponse, extra?: Record<string, string>) => {
      if (r.abandon) return void req.socket.destroy();
      if (closing) res.shouldKeepAlive = false;
      sendResponse(res, r, extra);
    };
    const url = requestUrl(req.url);
    if (!url) return send(badTargetResponse());
    const pathname = url.pathname;
    const handler = pathname === path ? options.handler : options.handlerFor && pathname.startsWith(`${path}/`) ? options.handlerFor(pathname.slice(path.length + 1)) : undefined;
    if (!handler) return send(problemResponse('not_found', `messages go to ${path}`));
    if (req.method !== 'POST') return send(problemResponse('method_not_allowed', 'messages are POSTed'), { allow: 'POST' });
    const tooLarge = () => {
      // Answer, then drop the connection instead of reading the rest of an oversized body.
      send(problemResponse('payload_too_large', `a message may have at most ${maxBytes} bytes`), { connection: 'close' });
      res.once('finish', () => req.destroy());
    };
    if (Number(req.headers['content-length'] ?? 0) > maxBytes) return tooLarge();

    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      total += chunk.length;
      if (total > maxBytes) {
        done = true;
        return tooLarge();
      }
      chunks.push(chunk);
    });
    req.on('error', () => {
      done = true;
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      const body = Buffer.concat(chunks).toString('utf8');
      handleHttpInbound({ body, contentType: req.headers['content-type'] }, handler, { maxBytes })
        .then((r) => send(r))
        .catch(() => send(problemResponse('internal_error', 'the message could not be processed')));
    });
  });
  // What the parser refuses gets problem details too, not Node's bare 400.
  server.on('clientError', answerClientError);

  const port = await listen(server, options.port ?? 0, host);
  return {
    url: `http://${urlHost(host)}:${port}${path}`,
    server,
    // Graceful: no new connections, idle ones closed at once, and the requests in flight get
    // their answers (a sender whose message was handled must not see its connection reset). One
    // still unanswered after the grace period is cut off.
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        const cut = setTimeout(() => server.closeAllConnections(), options.closeGraceMs ?? CLOSE_GRACE_MS);
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
        if (inFlight === 0) server.closeAllConnections();
      }),
  };
}
