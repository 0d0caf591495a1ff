// Where a message for a wallet goes (docs/protocols.md "Message Pickup 3.0"): pushed on a live
// socket the wallet bound, else POSTed to the DIDComm endpoint in its DID document, else queued
// durably for pickup: when the document names no endpoint, names this service's own endpoint
// (a wallet that uses us as its mediator), or the endpoint cannot be reached or is refused.
//
// Two guards (docs/service.md "Outbound endpoints"): an endpoint is only called when the
// endpoint policy allows its address (endpoint-policy.ts: never link-local or cloud metadata;
// loopback by default, private ranges when configured; a literal is judged here, a host name by
// the transports' guard once it is resolved: `endpoint_refused`), and a message is only queued for a DID
// the service has a relationship with (relationships.ts). Anything else is dropped: logged,
// emitted as 'message-dropped' and recorded in the message log with result 'dropped'.
//
// An endpoint that answers 503 or 429 (`transport_retry_later`: "not now, send it again") gets
// the same treatment as an unreachable one (kept for a related recipient, dropped otherwise), and
// a kept message is also handed to `retryLater` (redelivery.ts), which sends it again after the
// peer's Retry-After.
import type { EventEmitter } from 'node:events';
import { pack as packEnvelope } from '../../didcomm/envelope/index.js';
import type { Outbound, PackFn } from '../../router/router.js';
import { multiTransport } from '../../didcomm/transport/index.js';
import type { Transport } from '../../didcomm/types.js';
import { shortForm } from '../../did/short-form.js';
import type { DocumentResolver } from '../../did/types.js';
import { peerRoute } from '../../router/peer-route.js';
import { toIdsyncError } from '../../errors.js';
import { ENDPOINT_REFUSED } from '../../net/connect-guard.js';
import type { ServiceLogger } from '../context.js';
import { endpointRefusal, type EndpointPolicy } from '../net/endpoint-policy.js';
import type { LiveRoutes } from '../../mediator/live.js';
import type { MessageQueue, QueuedMessage } from '../../mediator/queue.js';
import type { AttemptOutcome } from './redelivery.js';
import { failureOutcome, type SendOutcome } from '../../router/retry/backoff.js';
import type { Relationships } from './relationships.js';
import { setBounded } from '../../bounded.js';

/** How a recipient is reached right now. */
export type Route =
  | { kind: 'live' }
  | { kind: 'remote'; endpoint: string }
  | { kind: 'mediated'; reason: 'no-endpoint' | 'self' };

const norm = (url: string): string => url.replace(/\/+$/, '').toLowerCase();

export interface OutboundDeps {
  resolve: DocumentResolver;
  queue: MessageQueue;
  live: LiveRoutes;
  transports: Transport[];
  /** Endpoint URLs of this service (they change when listen() binds a port). */
  ownEndpoints(): string[];
  events: EventEmitter;
  /** Whether messages for a DID may be queued (relationships.ts). */
  relationships: Pick<Relationships, 'reason'>;
  /** Which endpoint addresses may be called (read at every send). */
  endpointPolicy(): EndpointPolicy;
  logger?: ServiceLogger;
  /** A message the peer's endpoint answered 503/429 for was queued: schedule it to be sent again. */
  retryLater?(entry: QueuedMessage, o: { returnRoute: boolean; retryAfterSeconds?: number; reason: string }): Promise<void>;
  /** Return-routed replies to a message sent again by `redeliver`. */
  onReplies?(replies: string[]): Promise<void>;
}

export type DeliveryOutcome = 'queued' | 'delivered' | 'dropped';

export interface ServiceOutbound {
  route(did: string): Promise<Route>;
  /** Router pack: no routing forwards for a message we will queue or push ourselves. */
  pack: PackFn;
  /** Router delivery. */
  deliver: Outbound;
  /** Sends a queued message again on the recipient's current route (redelivery.ts). */
  redeliver(entry: QueuedMessage, returnRoute: boolean): Promise<AttemptOutcome>;
  /** How a recent message left: queued for pickup, delivered (push or endpoint), or dropped. */
  outcome(messageId: string): DeliveryOutcome | undefined;
  /**
   * A recent message the recipient's endpoint did not take (unreachable, timed out, 503/429): it
   * was kept for pickup, and a retry may deliver it; with the peer's Retry-After when it gave one.
   */
  undelivered(messageId: string): SendOutcome | undefined;
  close(): Promise<void>;
}

export function serviceOutbound(d: OutboundDeps): ServiceOutbound {
  const transport = multiTransport(d.transports);
  // Recent outcomes by message id, bounded (the message log and deliverInvitation read them right after sending).
  const outcomes = new Map<string, DeliveryOutcome>();
  const note = (id: string, o: DeliveryOutcome) => {
    setBounded(outcomes, id, o, 1000);
  };
  // Recent sends the endpoint did not take (bounded like `outcomes`): read right after the send.
  const failed = new Map<string, SendOutcome>();
  const noteFailed = (id: string, e: { code: string; details?: unknown }, retryAfterSeconds?: number) => {
    setBounded(failed, id, failureOutcome(e, retryAfterSeconds !== undefined ? retryAfterSeconds * 1000 : undefined), 1000);
  };
  // Messages kept for pickup after their endpoint failed, by message id (bounded): when a retry
  // (resend.ts) then delivers one, its queued copy goes, so a redelivery (redelivery.ts) finds
  // nothing left to send and a wallet that never picks up holds nothing twice.
  const kept = new Map<string, { to: string; queueId: string }>();
  async function delivered(message: Sent, via: 'live' | 'endpoint', to: string): Promise<void> {
    note(message.id, 'delivered');
    d.events.emit('message-delivered', { to: shortForm(to), messageId: message.id, type: message.type, via });
    const copy = kept.get(message.id);
    if (!copy) return;
    kept.delete(message.id);
    await d.queue.remove(copy.to, [copy.queueId]).catch(() => undefined);
  }

  async function route(did: string): Promise<Route> {
    if (d.live.has(did)) return { kind: 'live' };
    // A wallet behind a mediator names the mediator's DID as its endpoint: the message goes to the
    // mediator's URI, wrapped in a forward by pack() (router/peer-route.ts, shared with the wallet).
    const uri = (await peerRoute(did, d.resolve)).endpoints[0];
    if (!uri) return { kind: 'mediated', reason: 'no-endpoint' };
    const own = d.ownEndpoints().map(norm);
    if (own.includes(norm(uri))) return { kind: 'mediated', reason: 'self' };
    return { kind: 'remote', endpoint: uri };
  }

  type Sent = { id: string; thid?: string; pthid?: string; type: string };

  function drop(to: string, message: Sent, reason: string): void {
    note(message.id, 'dropped');
    d.logger?.info({ to: shortForm(to).slice(0, 120), messageId: message.id, type: message.type, reason }, 'outbound DIDComm message dropped');
    d.events.emit('message-dropped', { to: shortForm(to), messageId: message.id, type: message.type, reason });
  }

  /**
   * Keeps the message for pickup when the service has a relationship with `to`; drops it
   * otherwise. `retry`: the endpoint asked for it later (503/429), so it is also scheduled to be
   * sent again.
   */
  async function keep(to: string, packed: string, message: Sent, reason: string, retry?: { returnRoute: boolean; retryAfterSeconds?: number }): Promise<void> {
    const related = await d.relationships.reason(to, message);
    if (!related) return drop(to, message, `no relationship with the recipient (${reason})`);
    let entry;
    try {
      entry = await d.queue.enqueue(to, packed, { messageId: message.id, thid: message.thid ?? message.id, type: message.type });
    } catch (err) {
      const e = toIdsyncError(err);
      if (e.code === 'queue_full') return drop(to, message, `the recipient's queue is full (${reason})`);
      throw err;
    }
    note(message.id, 'queued');
    if (retry || reason.startsWith('unreachable')) {
      setBounded(kept, message.id, { to, queueId: entry.id }, 10_000);
    }
    d.events.emit('message-queued', {
      to: shortForm(to), queueId: entry.id, messageId: message.id, thid: entry.thid, type: message.type, reason, relationship: related,
      ...(retry?.retryAfterSeconds !== undefined ? { retryAfterSeconds: retry.retryAfterSeconds } : {}),
    });
    if (retry && d.retryLater) await d.retryLater(entry, { ...retry, reason });
  }

  /** The peer's Retry-After (seconds) of a `transport_retry_later`, when it gave one. */
  const retryAfterOf = (e: { details?: Record<string, unknown> }): number | undefined =>
    typeof e.details?.retryAfterSeconds === 'number' ? e.details.retryAfterSeconds : undefined;

  return {
    route,
    outcome: (id) => outcomes.get(id),
    undelivered: (id) => failed.get(id),
    async pack(message, options, ctx) {
      if (options.forward === false) return packEnvelope(message, options, ctx);
      const to = options.to ?? message.to?.[0];
      const r = to ? await route(to).catch(() => undefined) : undefined;
      return packEnvelope(message, { ...options, forward: r?.kind === 'remote' }, ctx);
    },
    async deliver(packed, target) {
      const { to, message } = target;
      failed.delete(message.id);
      if (d.live.has(to) && (await d.live.push(to, packed))) {
        await delivered(message, 'live', to);
        return [];
      }
      const r = await route(to);
      if (r.kind === 'remote') {
        const endpoint = target.endpoint ?? r.endpoint;
        const refused = endpointRefusal(endpoint, d.endpointPolicy());
        if (refused) {
          await keep(to, packed, message, `endpoint refused: ${refused}`);
          return [];
        }
        try {
          const replies = await transport.send(endpoint, packed, { returnRoute: target.returnRoute, messageType: message.type, ...(target.mediaType ? { mediaType: target.mediaType } : {}) });
          await delivered(message, 'endpoint', to);
          return replies;
        } catch (err) {
          const e = toIdsyncError(err);
          if (e.code === 'transport_retry_later') {
            // "Not now" (503/429): keep it, and send it again after the peer's Retry-After.
            const retryAfterSeconds = retryAfterOf(e);
            noteFailed(message.id, e, retryAfterSeconds);
            await keep(to, packed, message, `endpoint asked to retry later (${String(e.details?.status ?? 503)})`, {
              returnRoute: target.returnRoute,
              ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
            });
            return [];
          }
          // Refused when connecting: the endpoint's host name led to an address the policy refuses.
          if (e.code === ENDPOINT_REFUSED) {
            await keep(to, packed, message, `endpoint refused: ${String(e.details?.reason ?? e.message)}`);
            return [];
          }
          // Unreachable: keep it for pickup rather than lose it.
          noteFailed(message.id, e);
          await keep(to, packed, message, `unreachable: ${e.code}`);
          return [];
        }
      }
      await keep(to, packed, message, r.kind === 'mediated' ? r.reason : 'live-gone');
      return [];
    },
    async redeliver(entry, returnRoute) {
      const to = entry.recipient;
      if (d.live.has(to) && (await d.live.push(to, entry.packed))) return { kind: 'delivered', via: 'live' };
      const r = await route(to);
      if (r.kind !== 'remote') return { kind: 'stop', reason: r.kind === 'mediated' ? `no endpoint of its own (${r.reason})` : 'live socket gone' };
      const refused = endpointRefusal(r.endpoint, d.endpointPolicy());
      if (refused) return { kind: 'stop', reason: `endpoint refused: ${refused}` };
      let replies: string[];
      try {
        replies = await transport.send(r.endpoint, entry.packed, { returnRoute, ...(entry.type ? { messageType: entry.type } : {}) });
      } catch (err) {
        const e = toIdsyncError(err);
        if (e.code === ENDPOINT_REFUSED) return { kind: 'stop', reason: `endpoint refused: ${String(e.details?.reason ?? e.message)}` };
        const retryAfterSeconds = e.code === 'transport_retry_later' ? retryAfterOf(e) : undefined;
        return { kind: 'retry', reason: e.code, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) };
      }
      // Delivered; what comes back on the return route is handled like any reply.
      if (replies.length && d.onReplies) {
        await d.onReplies(replies).catch((err) => d.logger?.warn({ code: toIdsyncError(err).code }, 'reply to a redelivered DIDComm message failed'));
      }
      return { kind: 'delivered', via: 'endpoint' };
    },
    close: () => transport.close(),
  };
}
