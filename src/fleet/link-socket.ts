// Persistent connections over the fleet's link: what a wallet's WebSocket to the mediator started
// for the run carries (one DIDComm message per frame, in order, both ways; pushes at any time),
// without a loopback socket, an HTTP upgrade and frame masking on each side. Message Pickup 3.0
// §Live Mode: "Live Mode MUST only be enabled when a persistent transport is used, such as
// WebSockets": a link socket is one, open from `connect` until either end closes it or the link
// goes. The wallets' side is a WsTransport (wallet options `webSocket`), so the wallet's live
// mode, its replies on the socket and its "live ended" handling are the ones it has on a WebSocket;
// endpoints the link does not reach go to a real WebSocket.
import { IdsyncError, toIdsyncError } from '../errors.js';
import { WS_CLOSE, wsTransport, type WsTransport, type WsTransportOptions } from '../didcomm/transport/ws.js';
import { detectMediaType } from '../didcomm/transport/media-type.js';
import { underOrigin } from '../http-fetch.js';
import { wsUrlOf } from '../mediator/identity.js';

/** One end of a persistent connection. */
export interface LinkSocket {
  readonly open: boolean;
  /** Sends one frame to the other end; rejects once the socket is closed. */
  send(data: string): Promise<void>;
  /** Closes the socket at both ends (the other end's `closed` runs). */
  close(): void;
}

/** What an end does with the other end's frames, and when the socket closes (once). */
export interface SocketHandlers {
  frame(data: string): void;
  closed(): void;
}

/** The accepting end: handlers for a socket the other end opened to `url`. */
export type SocketAcceptor = (socket: LinkSocket, url: string) => SocketHandlers;

/** The opening end: a socket to `url`, open once the other end accepted it. */
export type SocketOpener = (url: string, handlers: SocketHandlers) => Promise<LinkSocket>;

/**
 * Link wire messages of the sockets (link.ts carries them with its requests, on the same port).
 * `sid` is the opener's number for the socket; `a` marks what the accepting end sends, so that
 * sockets opened from both ends never mix.
 */
export type SocketWire =
  | { t: 'open'; sid: number; url: string }
  | { t: 'opened'; sid: number }
  | { t: 'frame'; sid: number; a: boolean; data: string }
  | { t: 'shut'; sid: number; a: boolean };

const SOCKET_WIRE = new Set(['open', 'opened', 'frame', 'shut']);

/** The sockets of one link end: `post` sends a wire message to the other end. */
export function linkSockets(post: (m: SocketWire) => void, accept?: SocketAcceptor) {
  interface Entry {
    socket: LinkSocket;
    shut(): void;
    handlers?: SocketHandlers;
    opening?: { resolve: (s: LinkSocket) => void; reject: (e: Error) => void };
  }
  // Sockets this end opened by their number, those it accepted by -1 - the opener's number.
  const sockets = new Map<number, Entry>();
  let next = 0;
  let gone = false;

  /** The socket known here as `key`, on the wire as `sid` (`accepted`: the other end opened it). */
  function entry(key: number, sid: number, accepted: boolean): Entry {
    let open = true;
    const e: Entry = {
      shut() {
        if (!open) return;
        open = false;
        sockets.delete(key);
        e.opening?.reject(new IdsyncError('transport_unreachable', 'the fleet link refused the socket'));
        e.handlers?.closed();
      },
      socket: {
        get open() {
          return open;
        },
        send(data) {
          if (!open) return Promise.reject(new IdsyncError('transport_unreachable', 'the fleet link socket is closed'));
          post({ t: 'frame', sid, a: accepted, data });
          return Promise.resolve();
        },
        close() {
          if (!open) return;
          if (!gone) post({ t: 'shut', sid, a: accepted });
          e.shut();
        },
      },
    };
    sockets.set(key, e);
    return e;
  }

  return {
    /** Opens a socket to the other end's acceptor. */
    open(url: string, handlers: SocketHandlers): Promise<LinkSocket> {
      if (gone) return Promise.reject(new IdsyncError('transport_unreachable', 'the fleet link is closed'));
      const sid = next++;
      return new Promise<LinkSocket>((resolve, reject) => {
        const e = entry(sid, sid, false);
        e.handlers = handlers;
        e.opening = { resolve, reject };
        post({ t: 'open', sid, url });
      });
    },
    /** A wire message from the other end; false when it is not a socket's. */
    receive(m: { t: string }): boolean {
      if (!SOCKET_WIRE.has(m.t)) return false;
      const w = m as SocketWire;
      if (w.t === 'open') {
        if (!accept || gone) {
          post({ t: 'shut', sid: w.sid, a: true });
          return true;
        }
        const e = entry(-1 - w.sid, w.sid, true);
        post({ t: 'opened', sid: w.sid });
        e.handlers = accept(e.socket, w.url);
        return true;
      }
      if (w.t === 'opened') {
        const e = sockets.get(w.sid);
        const opening = e?.opening;
        if (e && opening) {
          delete e.opening;
          opening.resolve(e.socket);
        }
        return true;
      }
      // What the acceptor sends is about a socket opened here, and the reverse.
      const e = sockets.get(w.a ? w.sid : -1 - w.sid);
      if (w.t === 'frame') e?.handlers?.frame(w.data);
      else e?.shut();
      return true;
    },
    /** The link is gone: every socket closes. */
    closeAll(): void {
      gone = true;
      for (const e of [...sockets.values()]) e.shut();
    },
  };
}

/**
 * Sockets in one thread (a fleet without worker threads): an opener whose sockets `accept` takes,
 * their frames handed over in order as queued microtasks, as a port would hand them over.
 */
export function directSockets(accept: SocketAcceptor): SocketOpener {
  const opener = linkSockets((m) => queueMicrotask(() => acceptor.receive(m)));
  const acceptor = linkSockets((m) => queueMicrotask(() => opener.receive(m)), accept);
  return (url, handlers) => opener.open(url, handlers);
}

/**
 * The wallet's WebSocket client (wallet options `webSocket`) when a link reaches the server at
 * `url`: sockets to endpoints under its origin are link sockets (`open`), others real WebSockets.
 */
export function linkedWebSocket(open: SocketOpener, url: string): (options: WsTransportOptions) => WsTransport {
  // The origin of `url` (http or https) for WebSockets: ws://host:port or wss://host:port.
  const reaches = underOrigin(wsUrlOf(new URL(url).origin));
  return (options) => {
    const real = wsTransport(options);
    const onError = options.onError ?? (() => {});
    const sockets = new Map<string, Promise<LinkSocket>>();
    /** Settles when each link socket closes (WsTransport.request races its answer with it). */
    const closings = new WeakMap<LinkSocket, Promise<void>>();

    function socketFor(endpoint: string): Promise<LinkSocket> {
      const existing = sockets.get(endpoint);
      if (existing) return existing;
      // One frame at a time, in order, as on a WebSocket: a thread's messages must not overtake each other.
      let chain = Promise.resolve();
      let markClosed!: () => void;
      const closing = new Promise<void>((r) => (markClosed = r));
      // Replies and the close are told through the opening: a frame or a close may come in the
      // same turn as the acceptance, before anything awaiting it has run.
      const opening: Promise<LinkSocket> = open(endpoint, {
        frame(data) {
          chain = chain.then(async () => {
            if (!options.onInbound) return onError(new IdsyncError('transport_unhandled', `a message from ${endpoint} arrived and no onInbound is set`));
            try {
              await options.onInbound(data, { transport: 'link', reply: async (p) => (await opening).send(p) });
            } catch (err) {
              onError(toIdsyncError(err, 'transport_error'));
            }
          });
        },
        closed() {
          // Told once the frames before the close are handled, as on a WebSocket (transport/ws.ts).
          void chain.then(() => markClosed());
          if (sockets.get(endpoint) === opening) sockets.delete(endpoint);
          // RFC 6455 §7.4.1: 1000 when it was closed on purpose; the wallet hears it as a socket's
          // end. A socket refused before it opened is the opener's failure, not a close.
          void opening.then(() => options.onClose?.(endpoint, WS_CLOSE.normal), () => undefined);
        },
      });
      sockets.set(endpoint, opening);
      // Registered before anyone else awaits the opening, so it is set by the time they resume.
      void opening.then((s) => closings.set(s, closing), () => undefined);
      opening.catch(() => {
        if (sockets.get(endpoint) === opening) sockets.delete(endpoint);
      });
      return opening;
    }

    const isLive = async (endpoint: string) => {
      const s = await socketFor(endpoint);
      if (s.open) return s;
      sockets.delete(endpoint);
      return socketFor(endpoint);
    };

    return {
      schemes: ['ws', 'wss'],
      async send(endpoint, packed, o) {
        if (!reaches(endpoint)) return real.send(endpoint, packed, o);
        detectMediaType(packed);
        await (await isLive(endpoint)).send(packed);
        return [];
      },
      async request(endpoint, packed, answer) {
        if (!reaches(endpoint)) return real.request(endpoint, packed, answer);
        detectMediaType(packed);
        const socket = await isLive(endpoint);
        await socket.send(packed);
        const closed = (closings.get(socket) ?? new Promise<void>(() => {})).then(() => {
          throw new IdsyncError('transport_unreachable', `${endpoint} closed the socket (${WS_CLOSE.normal}) before answering`, { details: { endpoint, code: WS_CLOSE.normal, reason: '' } });
        });
        closed.catch(() => undefined);
        return Promise.race([answer, closed]);
      },
      async connect(endpoint) {
        if (!reaches(endpoint)) return real.connect(endpoint);
        await isLive(endpoint);
      },
      isOpen(endpoint) {
        if (!reaches(endpoint)) return real.isOpen(endpoint);
        return sockets.has(endpoint);
      },
      disconnect(endpoint) {
        if (!reaches(endpoint)) return real.disconnect(endpoint);
        const s = sockets.get(endpoint);
        sockets.delete(endpoint);
        void s?.then((socket) => socket.close(), () => undefined);
      },
      async close() {
        const all = [...sockets.values()];
        sockets.clear();
        for (const s of await Promise.allSettled(all)) if (s.status === 'fulfilled') s.value.close();
        await real.close();
      },
    };
  };
}
