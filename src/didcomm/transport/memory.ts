// An in-process network for tests: endpoints are `memory://<name>` URLs registered with a
// handler, and a transport delivers to them directly. It behaves like the HTTP transport
// (replies made while the handler runs come back from `send`; a handler error becomes
// `transport_rejected`; a handler that says the message may be sent again, by resolving with
// `{retryable: true}` or throwing with `details.retryable`, becomes `transport_retry_later`, the
// HTTP sender's answer to a 503; one resolving with `{refusal}` becomes `transport_rejected` with
// status 400, as over HTTP) plus the WebSocket live mode (replies after that, and pushes to a
// bound key, reach the sending transport's `onInbound`).
import { IdsyncError, isIdsyncError, toIdsyncError } from '../../errors.js';
import { shortForm } from '../../did/short-form.js';
import type { InboundHandler, Transport } from '../types.js';
import { detectMediaType, refusalOf, retryHint, retryLaterError, schemeOf, statusForHandlerError, type InboundOutcome } from './media-type.js';

export interface MemoryInboundInfo {
  transport: 'memory';
  /** Return route: while the handler runs, the reply goes back from `send`; later, to the sender's onInbound. */
  reply(packed: string): Promise<void>;
  /** Binds a key (a DID) to the sending transport for `network.pushTo`. */
  bind(key: string): void;
}

export type MemoryInboundHandler = (packed: string, info: MemoryInboundInfo) => Promise<void | InboundOutcome>;

export interface MemoryTransportOptions {
  /** Live-mode messages: late replies and pushes. */
  onInbound?: InboundHandler;
  onError?: (err: IdsyncError) => void;
}

export interface MemoryTransport extends Transport {
  close(): Promise<void>;
}

export interface MemoryNetwork {
  /** Registers `handler` at `url` (e.g. 'memory://service'); replaces any previous one. */
  endpoint(url: string, handler: MemoryInboundHandler): { url: string; close(): void };
  transport(options?: MemoryTransportOptions): MemoryTransport;
  /** Delivers to the live transport bound to `key`; false when none is. */
  pushTo(key: string, packed: string): Promise<boolean>;
  readonly urls: string[];
}

interface Live {
  closed: boolean;
  deliver(packed: string): Promise<void>;
}

/** A fresh turn of the event loop, so a delivery never runs inside the sender's stack. */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

export function memoryNetwork(): MemoryNetwork {
  const handlers = new Map<string, MemoryInboundHandler>();
  const bound = new Map<string, Live>();

  return {
    get urls() {
      return [...handlers.keys()];
    },

    endpoint(url, handler) {
      if (schemeOf(url) !== 'memory') throw new IdsyncError('unsupported_scheme', `a memory endpoint URL starts with memory: (${url})`);
      handlers.set(url, handler);
      return {
        url,
        close: () => {
          if (handlers.get(url) === handler) handlers.delete(url);
        },
      };
    },

    async pushTo(key, packed) {
      const live = bound.get(shortForm(key));
      if (!live || live.closed) return false;
      await live.deliver(packed);
      return true;
    },

    transport(options = {}) {
      const onError = options.onError ?? (() => {});
      let chain = Promise.resolve();
      const live: Live = {
        closed: false,
        // Serial, like frames on one socket.
        deliver(packed) {
          const run = chain.then(async () => {
            await tick();
            if (live.closed) return;
            if (!options.onInbound) return onError(new IdsyncError('transport_unhandled', 'a live message arrived and no onInbound is set'));
            try {
              await options.onInbound(packed, { transport: 'memory' });
            } catch (err) {
              onError(toIdsyncError(err, 'transport_error'));
            }
          });
          chain = run;
          return run;
        },
      };

      return {
        schemes: ['memory'],
        async send(endpoint, packed, sendOptions) {
          if (live.closed) throw new IdsyncError('transport_unreachable', 'this memory transport is closed');
          if (schemeOf(endpoint) !== 'memory') throw new IdsyncError('unsupported_scheme', `the memory transport cannot send to ${endpoint}`);
          // What HTTP would refuse is refused here too; a message its packer labelled is one.
          if (!sendOptions?.mediaType) detectMediaType(packed);
          const handler = handlers.get(endpoint);
          if (!handler) throw new IdsyncError('transport_unreachable', `no memory endpoint at ${endpoint}`, { details: { endpoint } });
          await tick();
          const replies: string[] = [];
          let during = true;
          const info: MemoryInboundInfo = {
            transport: 'memory',
            async reply(p) {
              detectMediaType(p);
              if (during) replies.push(p);
              else if (options.onInbound && !live.closed) void live.deliver(p);
              else throw new IdsyncError('transport_reply_unavailable', 'the sender is not listening for return-routed messages any more');
            },
            bind(key) {
              // Either form of a did:ion or did:peer:4 is one party (DID Peer §Method 4), as in ws.ts.
              bound.set(shortForm(key), live);
            },
          };
          let outcome: void | InboundOutcome;
          try {
            outcome = await handler(packed, info);
          } catch (err) {
            // The receiving end went away mid-request (a process killed in a test): what a reset
            // connection is over HTTP, not an answer.
            if (isIdsyncError(err) && err.code === 'transport_unreachable') throw err;
            // The same answer the HTTP endpoint would give.
            const { status, code, retryAfterSeconds } = statusForHandlerError(err);
            if (retryAfterSeconds !== undefined) throw retryLaterError(endpoint, status, retryAfterSeconds, code, err);
            throw new IdsyncError('transport_rejected', `${endpoint} answered ${status}`, { details: { endpoint, status, problemCode: code }, cause: err });
          } finally {
            during = false;
          }
          const retry = retryHint(outcome);
          if (retry) throw retryLaterError(endpoint, 503, retry.retryAfterSeconds, 'temporarily_unavailable');
          // Refused for good with no problem report: what the HTTP sender gets from a 400.
          const refusal = refusalOf(outcome);
          if (refusal) {
            throw new IdsyncError('transport_rejected', `${endpoint} answered 400`, { details: { endpoint, status: 400, problemCode: refusal.code } });
          }
          return replies;
        },
        async close() {
          live.closed = true;
          for (const [k, l] of bound) if (l === live) bound.delete(k);
        },
      };
    },
  };
}
