// The fleet's link between its wallets and an embedded service: HTTP requests (REST calls,
// DIDComm POSTs both ways) handed over as plain data instead of through sockets. Across threads
// they travel on a MessagePort (strings are copied once; no HTTP parsing, no undici client, no
// loopback TCP); in one thread the handler is called directly. Each side answers exactly what
// its HTTP server would (the service through fastify's inject, the wallets through the same
// handleHttpInbound as their HTTP endpoint), and each side's sender reads the answer with its
// usual HTTP code, so statuses, problem documents and Retry-After keep their meaning.
import type { MessagePort } from 'node:worker_threads';
import { IdsyncError } from '../errors.js';
import type { Transport } from '../didcomm/types.js';
import { httpTransport } from '../didcomm/transport/http.js';
import { IN_PROCESS, NULL_BODY_STATUSES, splitFetch, underOrigin, type InProcessFetch, type PlainExchange, type PlainRequest, type PlainResponse } from '../http-fetch.js';
import { linkSockets, type SocketAcceptor, type SocketOpener, type SocketWire } from './link-socket.js';

/** A request over the link: what an HTTP request carries, as data (lower-case header names). */
export type LinkRequest = PlainRequest;
export type LinkResponse = PlainResponse;

/** Answers one request (the receiving side's server, without the socket). */
export type LinkHandler = PlainExchange;

type Wire =
  | { t: 'req'; id: number; req: LinkRequest }
  | { t: 'res'; id: number; res?: LinkResponse; error?: string }
  | { t: 'hello'; prefix: string }
  | SocketWire;

/**
 * A fetch whose every request goes to `call` (string bodies only, as our senders make them). It
 * also offers `call` itself (http-fetch.ts IN_PROCESS), so that the DIDComm HTTP transport hands
 * its messages over without a Response for each.
 */
export function linkFetch(call: LinkHandler): typeof fetch {
  const f = (async (input: string | URL | Request, init?: RequestInit) => {
    if (input instanceof Request) throw new TypeError('the fleet link takes a URL and init, not a Request');
    const body = init?.body;
    if (body !== undefined && body !== null && typeof body !== 'string') throw new TypeError('the fleet link sends string bodies only');
    const headers: Record<string, string> = {};
    const h = init?.headers;
    // Our senders give a plain object; anything else is read through Headers.
    if (h && !(h instanceof Headers) && !Array.isArray(h)) for (const [k, v] of Object.entries(h)) headers[k.toLowerCase()] = String(v);
    else if (h) new Headers(h).forEach((v, k) => (headers[k] = v));
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    const req: LinkRequest = { method: (init?.method ?? 'GET').toUpperCase(), url: String(input), headers, ...(body ? { body } : {}) };
    const answer = call(req);
    const res = signal
      ? await new Promise<LinkResponse>((resolve, reject) => {
          const onAbort = () => reject(signal.reason);
          signal.addEventListener('abort', onAbort, { once: true });
          answer.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
        })
      : await answer;
    const empty = NULL_BODY_STATUSES.has(res.status) || req.method === 'HEAD';
    return new Response(empty ? null : (res.body ?? ''), { status: res.status, headers: res.headers });
  }) as InProcessFetch;
  f[IN_PROCESS] = () => call;
  return f;
}

/** Sends requests under `origin` (scheme, host and port) to `local`, the rest to `remote`. */
export function byOrigin(origin: string, local: typeof fetch, remote: typeof fetch): typeof fetch {
  return splitFetch(underOrigin(new URL(origin).origin), local, remote);
}

/**
 * Wraps an HTTP(S) transport so that messages to endpoints a link reaches (`route` gives its
 * caller) go over it; anything else goes to `t` as before. Other transports pass unchanged.
 */
export function linkedTransport(t: Transport, route: (endpoint: string) => LinkHandler | undefined): Transport {
  if (!t.schemes.includes('http')) return t;
  const viaLink = new Map<LinkHandler, Transport>();
  return {
    schemes: t.schemes,
    send(endpoint, packed, options) {
      const call = route(endpoint);
      if (!call) return t.send(endpoint, packed, options);
      let linked = viaLink.get(call);
      if (!linked) viaLink.set(call, (linked = httpTransport({ fetch: linkFetch(call) })));
      return linked.send(endpoint, packed, options);
    },
    ...(t.close ? { close: () => t.close!() } : {}),
  };
}

export interface LinkEnd {
  /** Requests to the other end. */
  call: LinkHandler;
  /** Tells the other end the URL prefix of this end's endpoints (wallets: their inbound server). */
  hello(prefix: string): void;
  /** A persistent connection to the other end's acceptor (link-socket.ts). */
  open: SocketOpener;
  close(): void;
}

/**
 * One end of a link on a MessagePort: answers the other end's requests with `serve` and sends
 * its own with `call`. `onHello` gets the prefix the other end announced (before any request it
 * sends after, messages on one port keep their order). `accept` takes the sockets the other end
 * opens (none are taken without it).
 */
export function portEnd(port: MessagePort, serve: LinkHandler, onHello?: (prefix: string) => void, accept?: SocketAcceptor): LinkEnd {
  const pending = new Map<number, { resolve: (r: LinkResponse) => void; reject: (e: Error) => void }>();
  let next = 0;
  let closed = false;
  // A message the port cannot copy (a value no structured clone takes) fails alone: a request is
  // refused to its caller, an answer becomes the error the other end's caller gets.
  const post = gatheredPost(port, (m, err) => {
    const why = err instanceof Error ? err.message : String(err);
    if (m.t === 'req') {
      const p = pending.get(m.id);
      pending.delete(m.id);
      p?.reject(new IdsyncError('transport_error', `the fleet link could not send the request: ${why}`));
    } else if (m.t === 'res') port.postMessage({ t: 'res', id: m.id, error: `its answer could not be sent: ${why}` } satisfies Wire);
  });
  const sockets = linkSockets((m) => post.send(m satisfies Wire), accept);
  port.on('message', (m: Wire | Wire[]) => {
    if (Array.isArray(m)) for (const one of m) receive(one);
    else receive(m);
  });
  function receive(m: Wire): void {
    if (sockets.receive(m)) return;
    if (m.t === 'req') {
      serve(m.req).then(
        (res) => post.send({ t: 'res', id: m.id, res }),
        (err: unknown) => post.send({ t: 'res', id: m.id, error: err instanceof Error ? err.message : String(err) }),
      );
    } else if (m.t === 'res') {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.res) p.resolve(m.res);
      else p.reject(new IdsyncError('transport_error', `the fleet link's other end failed: ${m.error}`));
    } else if (m.t === 'hello') onHello?.(m.prefix);
  }
  // The other end gone (its thread ended or failed): what it still owed will not come.
  port.on('close', () => {
    closed = true;
    for (const p of pending.values()) p.reject(new IdsyncError('transport_unreachable', 'the fleet link closed'));
    pending.clear();
    sockets.closeAll();
  });
  return {
    call(req) {
      if (closed) return Promise.reject(new IdsyncError('transport_unreachable', 'the fleet link is closed'));
      const id = next++;
      return new Promise<LinkResponse>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        post.send({ t: 'req', id, req });
      });
    },
    hello(prefix) {
      post.send({ t: 'hello', prefix });
    },
    open: (url, handlers) => sockets.open(url, handlers),
    close() {
      closed = true;
      for (const p of pending.values()) p.reject(new IdsyncError('transport_unreachable', 'the fleet link closed'));
      pending.clear();
      // Its sockets close with it (at the other end, when its port closes).
      sockets.closeAll();
      post.flush();
      port.close();
    },
  };
}

/**
 * Messages gathered into one post at most. Flushing only at the end of a turn made the two threads
 * take turns (one works while the other waits for its batch); a few messages at a time keep both
 * busy. 3,000 wallets, `--workers auto`: 4 to 16 took 15.2-16.5 s, 2 and 32 17.3 s, one post per
 * message 19.5-20.4 s (docs/performance.md "Messages gathered between threads").
 */
const POST_BATCH = 8;

/**
 * Posts on a port, gathered: what a turn of the event loop sends (every flow that moved in it
 * answers, asks or pushes) crosses in posts of up to POST_BATCH messages, an array, the rest at
 * the turn's end (setImmediate: after the turn's incoming messages are handled). Measured on a
 * fleet, this cut each thread's CPU per flow by about a quarter, far more than the posts' own
 * cost; one post per message deferred to the turn's end saved nothing (docs/performance.md).
 * Order is kept: one queue, flushed whole, read back in order.
 */
function gatheredPost(port: MessagePort, unsent: (m: Wire, err: unknown) => void): { send(m: Wire): void; flush(): void } {
  let queue: Wire[] | undefined;
  const alone = (m: Wire): void => {
    try {
      port.postMessage(m);
    } catch (err) {
      unsent(m, err);
    }
  };
  const flush = (): void => {
    const q = queue;
    if (!q) return;
    queue = undefined;
    try {
      port.postMessage(q.length === 1 ? q[0] : q);
    } catch {
      // Nothing of a batch is sent when one member cannot be copied: each goes alone instead.
      for (const m of q) alone(m);
    }
  };
  return {
    send(m) {
      if (!queue) {
        queue = [m];
        setImmediate(flush);
      } else if (queue.push(m) >= POST_BATCH) flush();
    },
    flush,
  };
}
