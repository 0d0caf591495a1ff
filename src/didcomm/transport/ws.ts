// DIDComm v2 WebSocket transport (spec "Transports › WebSocket"): each packed message is one
// text frame. The spec's baseline is transmit-only; with the return_route extension ('all' or
// 'thread') the server may send messages back on the socket the client opened, at any later
// time ("live mode" for wallets without an inbound endpoint).
//
// Replies and pushes on the client side all arrive through `onInbound`, in frame order.
// `send` never returns them: a packed reply cannot be matched to its request without
// unpacking, and a server may push before, between or long after the replies to a request,
// so any "replies to this send" collected by time or count would be a guess. Callers match
// replies by thread after unpacking (the router does), which is race-free.
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { shortForm } from '../../did/short-form.js';
import { IdsyncError, isIdsyncError, toIdsyncError } from '../../errors.js';
import { JSON_TOO_DEEP } from '../../json-depth.js';
import { ENDPOINT_REFUSED, refusedError, type ConnectGuard } from '../../net/connect-guard.js';
import { listen, urlHost } from '../../listen.js';
import { requestPath } from '../../net/request-target.js';
import type { InboundHandler, Transport } from '../types.js';
import { checkInboundMessage, DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS, detectMediaType, schemeOf } from './media-type.js';

const CLOSE_GRACE_MS = 1000;

// RFC 6455 §7.4.1 close codes.
export const WS_CLOSE = { normal: 1000, goingAway: 1001, invalidPayload: 1007, tooBig: 1009 } as const;

function text(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}

/** The failure of a connect or write that `signal` ended. */
function abortedError(what: string, signal: AbortSignal): IdsyncError {
  return new IdsyncError('aborted', `${what}: stopped`, { cause: signal.reason });
}

function sendFrame(ws: WebSocket, packed: string, timeoutMs: number, what: string, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedError(what, signal));
  if (ws.readyState !== WebSocket.OPEN) {
    return Promise.reject(new IdsyncError('transport_unreachable', `${what}: the socket is closed`));
  }
  return new Promise<void>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
    };
    const aborted = () => {
      done();
      reject(abortedError(what, signal!));
    };
    const timer = setTimeout(() => {
      done();
      reject(new IdsyncError('transport_timeout', `${what}: the frame was not written in time`));
    }, timeoutMs);
    signal?.addEventListener('abort', aborted, { once: true });
    ws.send(packed, (err) => {
      done();
      if (err) reject(new IdsyncError('transport_unreachable', `${what}: ${err.message}`, { cause: err }));
      else resolve();
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Client

export interface WsTransportOptions {
  /** Every message the server sends on a socket of ours (return-routed replies and pushes). */
  onInbound?: InboundHandler;
  /** Connect and write timeout (default 10 s). */
  timeoutMs?: number;
  /** Largest frame accepted (default 1 MiB). */
  maxBytes?: number;
  /** Errors from onInbound or of frames nobody handles; never thrown. */
  onError?: (err: IdsyncError) => void;
  /** A socket of ours closed (the next send to `endpoint` reconnects). */
  onClose?: (endpoint: string, code: number) => void;
  /**
   * Checks where sockets go (src/net/connect-guard.ts): the URL before connecting, and every
   * address its host resolves to through the guard's `lookup`, which the socket then connects to.
   */
  guard?: Pick<ConnectGuard, 'staticRefusal' | 'lookup'>;
  /**
   * Ends the connects and writes under way, and refuses those to come, with code 'aborted' (as an
   * aborted fetch ends an HTTP request): what waits on one fails at once. Open sockets stay open
   * until close().
   */
  signal?: AbortSignal;
}

/** How a socket closed: the close frame's code and reason (RFC 6455 §7.4.1; 1006 when none came). */
export interface WsClosed {
  code: number;
  reason: string;
}

export interface WsTransport extends Transport {
  /**
   * Sends like `send`, then waits for `answer` (the caller's own wait for the reply, matched after
   * unpacking). A frame written is no receipt (DIDComm v2.1 §Transports): a peer that closed the
   * socket (RFC 6455 §7.4.1: 1009 after an oversized frame, say) reads nothing written on it after
   * its close frame left, even if ours went out before that frame arrived. So when the socket the
   * frame went on closes before `answer` settles, this rejects at once with transport_unreachable
   * (details: endpoint, code, reason) instead of leaving the caller to wait out its timeout.
   */
  request<T>(endpoint: string, packed: string, answer: Promise<T>): Promise<T>;
  /** Opens (or reuses) the socket to `endpoint` without sending: to listen in live mode. */
  connect(endpoint: string): Promise<void>;
  isOpen(endpoint: string): boolean;
  /** Drops the socket to `endpoint` at once (as a network failure would); the next send reconnects. */
  disconnect(endpoint: string): void;
  close(): Promise<void>;
}

/** One socket per endpoint, opened on first use and reopened on the next send after it closed. */
export function wsTransport(options: WsTransportOptions = {}): WsTransport {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const onError = options.onError ?? (() => {});
  const sockets = new Map<string, Promise<WebSocket>>();
  const live = new Set<WebSocket>();
  /** Settles when each socket closes (ours or the peer's doing). */
  const closings = new WeakMap<WebSocket, Promise<WsClosed>>();

  const signal = options.signal;

  function open(endpoint: string): Promise<WebSocket> {
    const scheme = schemeOf(endpoint);
    if (scheme !== 'ws' && scheme !== 'wss') {
      return Promise.reject(new IdsyncError('unsupported_scheme', `the WebSocket transport cannot send to ${scheme}:`, { details: { endpoint } }));
    }
    const refused = options.guard?.staticRefusal(endpoint);
    if (refused) return Promise.reject(refusedError(new URL(endpoint).host, refused));
    if (signal?.aborted) return Promise.reject(abortedError(`connect to ${endpoint}`, signal));
    const opening = new Promise<WebSocket>((resolve, reject) => {
      let ws: WebSocket;
      try {
        ws = new WebSocket(endpoint, { handshakeTimeout: timeoutMs, maxPayload: maxBytes, ...(options.guard ? { lookup: options.guard.lookup } : {}) });
      } catch (err) {
        reject(new IdsyncError('transport_unreachable', `cannot connect to ${endpoint}`, { details: { endpoint }, cause: err }));
        return;
      }
      live.add(ws);
      // Frames are handed on one at a time (below). The close is told once those that came before
      // it are handled: an answer in the last frame before a close is an answer, not a silence.
      let chain = Promise.resolve();
      closings.set(
        ws,
        new Promise<WsClosed>((done) =>
          ws.once('close', (code, reason) => {
            const closed = { code, reason: reason.toString('utf8') };
            void chain.then(() => done(closed));
          }),
        ),
      );
      let settled = false;
      let opened = false;
      let stopped = false;
      // Aborted while connecting: the socket goes, and the connect fails now, not at its timeout.
      const aborted = () => {
        if (settled) return;
        settled = true;
        stopped = true;
        reject(abortedError(`connect to ${endpoint}`, signal!));
        ws.terminate();
      };
      signal?.addEventListener('abort', aborted, { once: true });
      ws.once('close', () => signal?.removeEventListener('abort', aborted));
      ws.on('unexpected-response', (req, res) => {
        settled = true;
        reject(new IdsyncError('transport_rejected', `${endpoint} refused the WebSocket upgrade with ${res.statusCode}`, { details: { endpoint, status: res.statusCode } }));
        res.resume();
        req.destroy();
      });
      ws.on('error', (err: Error & { code?: string }) => {
        // The handshake this transport cut short when aborted is no error to report.
        if (stopped) return;
        if (settled) return onError(toIdsyncError(err, 'transport_error'));
        settled = true;
        // The guard's lookup refused where the host name led: say so, not "unreachable".
        if (isIdsyncError(err) && err.code === ENDPOINT_REFUSED) return reject(err);
        const timedOut = /timed out/i.test(err.message) || err.code === 'ETIMEDOUT';
        reject(
          new IdsyncError(timedOut ? 'transport_timeout' : 'transport_unreachable', `cannot connect to ${endpoint} (${err.code ?? err.message})`, {
            details: { endpoint, reason: err.code },
            cause: err,
          }),
        );
      });
      ws.on('open', () => {
        settled = true;
        opened = true;
        resolve(ws);
      });
      ws.on('message', (data) => {
        const packed = text(data);
        // One frame at a time, in order: a thread's messages must not overtake each other.
        chain = chain.then(async () => {
          if (!options.onInbound) return onError(new IdsyncError('transport_unhandled', `a message from ${endpoint} arrived and no onInbound is set`));
          try {
            await options.onInbound(packed, { transport: 'ws', reply: (p) => sendFrame(ws, p, timeoutMs, `reply to ${endpoint}`, signal) });
          } catch (err) {
            onError(toIdsyncError(err, 'transport_error'));
          }
        });
      });
      ws.on('close', (code) => {
        live.delete(ws);
        if (sockets.get(endpoint) === opening) sockets.delete(endpoint);
        if (!settled) {
          settled = true;
          reject(new IdsyncError('transport_unreachable', `${endpoint} closed the connection`, { details: { endpoint } }));
        }
        if (opened) options.onClose?.(endpoint, code);
      });
    });
    sockets.set(endpoint, opening);
    opening.catch(() => {
      if (sockets.get(endpoint) === opening) sockets.delete(endpoint);
    });
    return opening;
  }

  async function socketFor(endpoint: string): Promise<WebSocket> {
    const existing = sockets.get(endpoint);
    if (existing) {
      const ws = await existing.catch(() => undefined);
      if (ws && ws.readyState === WebSocket.OPEN) return ws;
      if (sockets.get(endpoint) === existing) sockets.delete(endpoint);
    }
    return sockets.get(endpoint) ?? open(endpoint);
  }

  return {
    schemes: ['ws', 'wss'],

    async send(endpoint, packed) {
      detectMediaType(packed);
      const ws = await socketFor(endpoint);
      await sendFrame(ws, packed, timeoutMs, `send to ${endpoint}`, signal);
      return [];
    },

    async request(endpoint, packed, answer) {
      detectMediaType(packed);
      const ws = await socketFor(endpoint);
      await sendFrame(ws, packed, timeoutMs, `send to ${endpoint}`, signal);
      const closed = closings.get(ws)!.then((c) => {
        throw new IdsyncError('transport_unreachable', `${endpoint} closed the socket (${c.code}${c.reason ? ` ${c.reason}` : ''}) before answering`, { details: { endpoint, code: c.code, reason: c.reason } });
      });
      // The loser of the race must not become an unhandled rejection.
      closed.catch(() => undefined);
      return Promise.race([answer, closed]);
    },

    async connect(endpoint) {
      await socketFor(endpoint);
    },

    isOpen(endpoint) {
      for (const ws of live) if (ws.url === endpoint && ws.readyState === WebSocket.OPEN) return true;
      return false;
    },

    disconnect(endpoint) {
      sockets.delete(endpoint);
      for (const ws of live) if (ws.url === endpoint) ws.terminate();
    },

    async close() {
      const all = [...live];
      sockets.clear();
      await Promise.all(
        all.map(
          (ws) =>
            new Promise<void>((resolve) => {
              if (ws.readyState === WebSocket.CLOSED) return resolve();
              ws.once('close', () => resolve());
              if (ws.readyState === WebSocket.CONNECTING) return ws.terminate();
              const grace = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
              ws.once('close', () => clearTimeout(grace));
              ws.close(WS_CLOSE.normal);
            }),
        ),
      );
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Server

/** A client socket on the server side. */
export interface WsConnection {
  readonly id: number;
  /**
   * The peer's IP address as the upgrade request's socket saw it (node:net `remoteAddress`, e.g.
   * '127.0.0.1' or '::ffff:127.0.0.1'); undefined when the socket no longer knew it. Behind a
   * proxy this is the proxy's address.
   */
  readonly remoteAddress?: string;
  /** Keys (DIDs, in their short form: did/short-form.ts) bound to this socket. */
  readonly keys: ReadonlySet<string>;
  readonly open: boolean;
  send(packed: string): Promise<void>;
  /** Makes the socket the live route for `key` (a DID): pushTo(key) delivers here. */
  bind(key: string): void;
  close(code?: number, reason?: string): void;
}

export interface WsInboundInfo {
  transport: 'ws';
  /** Sends on the socket the message came from (return route). */
  reply(packed: string): Promise<void>;
  /** Binds a key (the sender's DID once known) to this socket for later pushes. */
  bind(key: string): void;
  connection: WsConnection;
}

// The outcome is ignored: a WebSocket has no status to answer with (the service logs it).
export type WsInboundHandler = (packed: string, info: WsInboundInfo) => Promise<unknown>;

export interface WsEndpointOptions {
  path?: string;
  handler: WsInboundHandler;
  /** Largest frame accepted; bigger ones close the socket with 1009 (default 1 MiB). */
  maxBytes?: number;
  timeoutMs?: number;
  onError?: (err: IdsyncError) => void;
  /** A socket closed; `keys` it was bound to. */
  onDisconnect?: (connection: WsConnection) => void;
}

export interface WsEndpoint {
  readonly sockets: ReadonlySet<WsConnection>;
  /** Sends to the newest open socket bound to `key`; false when there is none (queue it instead). */
  pushTo(key: string, packed: string): Promise<boolean>;
  isConnected(key: string): boolean;
  close(): Promise<void>;
}

/** Accepts DIDComm WebSocket connections on `path` of an existing node:http server. */
export function attachWsEndpoint(server: http.Server, options: WsEndpointOptions): WsEndpoint {
  const path = options.path ?? '/didcomm';
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const onError = options.onError ?? (() => {});
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxBytes ?? DEFAULT_MAX_BYTES });
  const sockets = new Set<WsConnection>();
  const raws = new Map<WsConnection, WebSocket>();
  const bound = new Map<string, WsConnection[]>();
  let nextId = 1;

  function accept(ws: WebSocket, req: http.IncomingMessage): void {
    const keys = new Set<string>();
    const remoteAddress = req.socket.remoteAddress;
    const conn: WsConnection = {
      id: nextId++,
      ...(remoteAddress !== undefined ? { remoteAddress } : {}),
      keys,
      get open() {
        return ws.readyState === WebSocket.OPEN;
      },
      send: (packed) => sendFrame(ws, packed, timeoutMs, `push on socket ${conn.id}`),
      bind(key) {
        // A did:ion or did:peer:4 in either form is one party (DID Peer §Method 4: the long form
        // in a first message, the short form after it): a push to either form finds this socket.
        const k = shortForm(key);
        keys.add(k);
        const list = (bound.get(k) ?? []).filter((c) => c !== conn);
        list.push(conn);
        bound.set(k, list);
      },
      close: (code = WS_CLOSE.normal, reason) => ws.close(code, reason),
    };
    sockets.add(conn);
    raws.set(conn, ws);
    ws.on('error', (err) => onError(toIdsyncError(err, 'transport_error')));
    ws.on('close', () => {
      sockets.delete(conn);
      raws.delete(conn);
      for (const k of keys) {
        const list = (bound.get(k) ?? []).filter((c) => c !== conn);
        if (list.length) bound.set(k, list);
        else bound.delete(k);
      }
      options.onDisconnect?.(conn);
    });
    let chain = Promise.resolve();
    ws.on('message', (data) => {
      const packed = text(data);
      chain = chain.then(async () => {
        try {
          checkInboundMessage(packed);
        } catch (err) {
          // Not a DIDComm message at all (HTTP would answer 400): RFC 6455 §7.4.1 1007, inconsistent
          // payload data; the reason names a JSON nesting bound that was passed (media-type.ts).
          const tooDeep = isIdsyncError(err) && err.code === JSON_TOO_DEEP;
          ws.close(WS_CLOSE.invalidPayload, tooDeep ? 'JSON nested too deeply' : 'not a DIDComm message');
          return;
        }
        try {
          await options.handler(packed, { transport: 'ws', reply: conn.send, bind: conn.bind, connection: conn });
        } catch (err) {
          onError(isIdsyncError(err) ? err : toIdsyncError(err, 'transport_error'));
        }
      });
    });
  }

  const onUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const pathname = requestPath(req.url);
    if (pathname !== path) {
      // Another endpoint on the same server may own this path; refuse only when none does.
      if (server.listenerCount('upgrade') === 1) {
        socket.on('error', () => {});
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      }
      return;
    }
    socket.on('error', () => {});
    wss.handleUpgrade(req, socket, head, accept);
  };
  server.on('upgrade', onUpgrade);

  return {
    sockets,
    async pushTo(key, packed) {
      const list = bound.get(shortForm(key)) ?? [];
      for (const conn of [...list].reverse()) {
        if (!conn.open) continue;
        try {
          await conn.send(packed);
          return true;
        } catch {
          // closed under us: try an older socket bound to the same key
        }
      }
      return false;
    },
    isConnected(key) {
      return (bound.get(shortForm(key)) ?? []).some((c) => c.open);
    },
    async close() {
      server.off('upgrade', onUpgrade);
      for (const conn of sockets) conn.close(WS_CLOSE.goingAway, 'endpoint closing');
      // A peer that does not answer the close handshake is cut off after a grace period
      // (ws itself would wait 30 s).
      const grace = setTimeout(() => {
        for (const ws of raws.values()) ws.terminate();
      }, CLOSE_GRACE_MS);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      clearTimeout(grace);
    },
  };
}

export interface StandaloneWsEndpoint extends WsEndpoint {
  /** ws://host:port/path */
  readonly url: string;
  readonly server: http.Server;
}

/** A node:http server with only a WebSocket endpoint (plain HTTP requests get 426). */
export async function startWsEndpoint(options: WsEndpointOptions & { host?: string; port?: number }): Promise<StandaloneWsEndpoint> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/didcomm';
  const server = http.createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket', connection: 'close' });
    res.end('WebSocket only');
  });
  const endpoint = attachWsEndpoint(server, { ...options, path });
  const port = await listen(server, options.port ?? 0, host);
  return {
    url: `ws://${urlHost(host)}:${port}${path}`,
    server,
    get sockets() {
      return endpoint.sockets;
    },
    pushTo: endpoint.pushTo,
    isConnected: endpoint.isConnected,
    async close() {
      await endpoint.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
