// The harness's link to the agent under test: a POST to its HTTP(S) endpoint, whose answer is
// recorded whole (status, content type, the start of the body) and read as a DIDComm message only
// when it is one, or a frame on one WebSocket, on which whatever arrives is a reply on the same
// connection (return route).
import { WebSocket } from 'ws';
import type { WsClosed } from '../didcomm/transport/ws.js';
import type { PlainMessage } from '../didcomm/types.js';
import { IdsyncError } from '../errors.js';
import { readBounded } from '../http-fetch.js';
import type { MessageCheck } from './check.js';
import type { HarnessTransport } from './endpoint.js';
import { isDidcommMediaType } from './modes.js';
import type { ExchangedMessage } from './types.js';
import { kept } from './wire.js';

export interface Received {
  packed: string;
  via: 'return-route' | 'endpoint';
  check: MessageCheck;
  message?: PlainMessage;
  entry: ExchangedMessage;
}

export interface PostOutcome {
  /** How it went: an HTTP POST, or a WebSocket frame (which has no status). */
  transport: 'http' | 'ws';
  /** HTTP status, or undefined when the POST failed (connection refused, timeout) or over WebSocket. */
  status?: number;
  error?: string;
  /** What kind of failure `error` is: no answer in time, or no connection at all. */
  errorKind?: 'timeout' | 'network';
  /** The temporary redirects (307) followed before the answer in `status`, in order. */
  redirects?: { status: number; location: string }[];
  /** Where the answer in `status` redirected to, when it is a redirect the harness did not follow. */
  location?: string;
  received: Received[];
  entry: ExchangedMessage;
  /** Over WebSocket: the socket the frame went on, and how it closed once it has. */
  socket?: SocketWatch;
}

/**
 * A WebSocket of the harness's. A frame written on it is no receipt: an agent that closed it (RFC
 * 6455 §7.4.1, e.g. 1009 after an oversized frame) read nothing written after its close frame
 * left, so an answer still awaited on it will not come, and its close code is what it said.
 */
export interface SocketWatch {
  /** Settles when the socket closes. */
  closed: Promise<WsClosed>;
  /** Set once it has closed. */
  close?: WsClosed;
}

/**
 * DIDComm v2.1 §Transports (HTTPS): "HTTPS Redirects SHOULD be followed. Only temporary redirects
 * (307) are acceptable." The harness, as a sender, follows a 307 (the same POST again at its
 * Location) this many times; another redirect is the answer it records and judges.
 */
export const MAX_REDIRECTS = 3;

/** A redirect's Location as an absolute http(s) URL, read against the URL that answered. */
function locationOf(res: Response, from: string): string | undefined {
  const raw = res.headers.get('location');
  if (!raw) return undefined;
  try {
    const url = new URL(raw, from);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

export interface AgentLinkOptions {
  /** Where the agent is reached, once known. */
  endpoint(): { uri: string; transport: HarnessTransport } | undefined;
  /** Why it cannot be reached, if so. */
  unreachable(): string | undefined;
  postTimeoutMs: number;
  /** An answer longer than this is not read (it is no answer to one message). */
  maxAnswerBytes: number;
  /** Records and checks a message the agent sent back on the connection. */
  take(text: string): Promise<Received>;
  /** Called once the POST (or the frame) has its outcome. */
  onAnswered(entry: ExchangedMessage): void;
}

export interface AgentLink {
  send(text: string, contentType: string, e: ExchangedMessage, returnRoute?: boolean): Promise<PostOutcome>;
  /** Drops every WebSocket ever opened (no close handshake to wait for). */
  close(): void;
}

const redirectNotes = (redirects: { status: number; location: string }[]) => redirects.map((r) => `redirected (HTTP ${r.status}) to ${r.location}`);

/** A JSON object with the members of a JWE, a JWS or a plaintext message. */
function looksLikeMessage(body: string): boolean {
  try {
    const v = JSON.parse(body) as Record<string, unknown>;
    return typeof v === 'object' && v !== null && ('ciphertext' in v || 'payload' in v || ('id' in v && 'type' in v));
  } catch {
    return false;
  }
}

export function agentLink(options: AgentLinkOptions): AgentLink {
  // One WebSocket to the agent, opened on first use and again after the agent closed it; what
  // arrives on it is a reply on the same connection (return route).
  let socket: Promise<WebSocket> | undefined;
  const sockets = new Set<WebSocket>();
  const watches = new WeakMap<WebSocket, SocketWatch>();
  const openSocket = (uri: string): Promise<WebSocket> => {
    if (socket) return socket;
    const opening = new Promise<WebSocket>((resolveWs, rejectWs) => {
      // Frames within the same bound as an HTTP answer: a larger one closes the socket (1009)
      // instead of being buffered whole (ws takes 100 MiB by default).
      const ws = new WebSocket(uri, { maxPayload: options.maxAnswerBytes });
      sockets.add(ws);
      // What came on the socket before it closed is read (opened and recorded) before the close
      // is told: an answer in the last frame is an answer, not a silence.
      let reading: Promise<unknown> = Promise.resolve();
      const watch: SocketWatch = {
        closed: new Promise<WsClosed>((closed) =>
          ws.once('close', (code, reason) => {
            const close = { code, reason: reason.toString('utf8') };
            void reading.then(() => {
              watch.close = close;
              closed(close);
            });
          }),
        ),
      };
      watches.set(ws, watch);
      ws.on('open', () => resolveWs(ws));
      ws.on('error', (err) => {
        if (socket === opening) socket = undefined;
        rejectWs(err);
      });
      // Only this socket's own close frees the slot: a newer one may hold it by now.
      ws.on('close', () => {
        if (socket === opening) socket = undefined;
      });
      ws.on('message', (data) => {
        const taking = options.take(data.toString()).catch(() => undefined);
        reading = Promise.all([reading, taking]);
      });
    });
    socket = opening;
    return opening;
  };
  const done = (o: PostOutcome): PostOutcome => {
    options.onAnswered(o.entry);
    return o;
  };

  async function send(text: string, contentType: string, e: ExchangedMessage, returnRoute = false): Promise<PostOutcome> {
    const targetEndpoint = options.endpoint();
    if (!targetEndpoint) throw new IdsyncError('invalid_argument', options.unreachable() ?? 'no agent under test to send to yet');
    if (targetEndpoint.transport === 'ws') {
      try {
        const uri = targetEndpoint.uri;
        const sendOnce = async () => {
          const ws = await openSocket(uri);
          if (ws.readyState !== WebSocket.OPEN) throw new Error(`WebSocket is not open (readyState ${ws.readyState})`);
          await new Promise<void>((resolveSend, rejectSend) => ws.send(text, (err) => (err ? rejectSend(err) : resolveSend())));
          return ws;
        };
        // The agent may have closed the connection (after junk, say): once more on a new one.
        const ws = await sendOnce().catch(() => {
          socket = undefined;
          return sendOnce();
        });
        return done({ transport: 'ws', received: [], entry: e, socket: watches.get(ws)! });
      } catch (err) {
        const error = (err as Error)?.message ?? String(err);
        e.note = [e.note, `WebSocket send failed: ${error}`].filter(Boolean).join('; ');
        return done({ transport: 'ws', error, errorKind: 'network', received: [], entry: e });
      }
    }
    let res: Response;
    const redirects: { status: number; location: string }[] = [];
    const followed = () => (redirects.length ? { redirects } : {});
    // One time limit for the POST and the redirects it follows.
    const signal = AbortSignal.timeout(options.postTimeoutMs);
    let uri = targetEndpoint.uri;
    try {
      for (;;) {
        res = await fetch(uri, { method: 'POST', headers: { 'content-type': contentType }, body: text, signal, redirect: 'manual' });
        const next = res.status === 307 && redirects.length < MAX_REDIRECTS ? locationOf(res, uri) : undefined;
        if (!next) break;
        await res.body?.cancel().catch(() => undefined);
        redirects.push({ status: res.status, location: next });
        uri = next;
      }
    } catch (err) {
      const error = (err as Error)?.message ?? String(err);
      const code = ((err as { cause?: { code?: unknown } })?.cause?.code as string | undefined) ?? undefined;
      e.note = [e.note, ...redirectNotes(redirects), `POST failed: ${error}${code ? ` (${code})` : ''}`].filter(Boolean).join('; ');
      return done({ transport: 'http', error: code ? `${error} (${code})` : error, errorKind: (err as Error)?.name === 'TimeoutError' ? 'timeout' : 'network', ...followed(), received: [], entry: e });
    }
    if (redirects.length) e.note = [e.note, ...redirectNotes(redirects)].filter(Boolean).join('; ');
    const location = res.status >= 300 && res.status < 400 ? (locationOf(res, uri) ?? res.headers.get('location') ?? undefined) : undefined;
    e.httpStatus = res.status;
    const type = res.headers.get('content-type') ?? undefined;
    let body: string;
    try {
      body = (await readBounded(res, options.maxAnswerBytes, () => new Error(`larger than ${options.maxAnswerBytes} bytes`))).toString('utf8');
    } catch (err) {
      e.http = { status: res.status, ...(type ? { contentType: type } : {}), body: `(body not read: ${(err as Error).message})` };
      return done({ transport: 'http', status: res.status, ...followed(), ...(location ? { location } : {}), received: [], entry: e });
    }
    // DIDComm v2.1 §Transports (HTTPS): a 2xx acknowledges receipt. Its body is a DIDComm message
    // only when it says so by its media type, or when the harness asked for a return route and the
    // body is shaped like one (agents answer JSON receipts too); anything else is a transport
    // answer, recorded and shown, never judged as a message.
    const ok = res.status >= 200 && res.status < 300;
    const readAsMessage = ok && body.trim() !== '' && (isDidcommMediaType(type) || (returnRoute && looksLikeMessage(body)));
    const k = kept(body);
    e.http = { status: res.status, ...(type ? { contentType: type } : {}), body: k.text, ...(k.truncated ? { truncated: true } : {}), ...(readAsMessage ? { readAsMessage: true } : {}) };
    const out: Received[] = [];
    if (readAsMessage) out.push(await options.take(body));
    return done({ transport: 'http', status: res.status, ...followed(), ...(location ? { location } : {}), received: out, entry: e });
  }

  return {
    send,
    close() {
      for (const ws of sockets) ws.terminate();
    },
  };
}
