// The mediator side of Message Pickup 3.0 (https://didcomm.org/messagepickup/3.0): status,
// delivery (anoncrypted outer layer, one attachment per queued packed message, attachment id =
// queue id), messages-received, and live mode over a persistent connection. Every request must
// come from an authenticated sender and reaches only its own messages: those queued for its own
// DID and for each recipient DID it registered (keylist.ts). "recipient_did is optional. When
// specified, the mediator MUST only return status related to that recipient did"; without it, a
// request covers all of them (the Identus SDK polls that way).
//
// Live pushes travel inside a `delivery` (threaded to the live-delivery-change that asked for
// them; the Identus SDK handles nothing else arriving on the socket) and stay queued until
// messages-received: a push the connection lost is delivered again by the next delivery-request.
import { didOf, sameDid } from '../didcomm/message.js';
import { shortForm } from '../did/short-form.js';
import { IdsyncError, isIdsyncError } from '../errors.js';
import { buildDelivery, buildStatus, messagePickupProtocol } from '../protocols/message-pickup.js';
import { protocolError } from '../protocols/protocol-kit.js';
import type { HandlerContext, ProtocolModule, Router } from '../router/router.js';
import type { MediatorCore } from './core.js';
import type { QueuedMessage } from './queue.js';
import type { Push } from './live.js';

/** Persistent connections can carry pushes after the request is answered (the fleet's link sockets too: server.ts attach). */
const PERSISTENT = new Set(['ws', 'memory', 'link']);

/** At most this many messages in one delivery, whatever the limit asked. */
export const MAX_DELIVERY = 100;

/**
 * At most this many bytes of packed messages in one delivery (one message always goes, however
 * large). Each may be up to the policy's maxMessageBytes (256 KiB), and a delivery carries them
 * base64-encoded and is then encrypted: ten large ones make a reply over 1 MiB, more than idsync's
 * wallet (and others) take in, and as the same oldest messages come first every time, pickup
 * would stall for good. §Delivery Request: `limit` is the most to deliver, so fewer may go.
 */
export const MAX_DELIVERY_BYTES = 512 * 1024;

interface Scope {
  /** The authenticated requester. */
  party: string;
  /** The recipient DIDs whose queues the request covers. */
  dids: string[];
}

export interface Pickup {
  protocol: ProtocolModule;
  /**
   * Pushes `entries` (queued for DIDs of `party`) on its live connection, inside a delivery sent
   * through `router` (the one the mediator is mounted on); false when it has none.
   */
  pushLive(router: Router, party: string, entries: QueuedMessage[]): Promise<boolean>;
}

/** The persistent connection a request came on (its push), if it came on one: an HTTP answer is no connection. */
function connectionOf(ctx: HandlerContext): Push | undefined {
  const info = ctx.received;
  return info?.reply && PERSISTENT.has(info.transport as string) ? (info.reply as Push) : undefined;
}

export function mediatorPickup(core: MediatorCore): Pickup {
  const deps = { clock: core.clock, ids: core.ids };
  /** The live-delivery-change that turned live mode on, by party: what live deliveries are threaded to. */
  const liveThreads = new Map<string, string>();

  async function scopeOf(ctx: HandlerContext, recipientDid?: string): Promise<Scope> {
    if (!ctx.sender || !ctx.metadata.authenticated) {
      throw new IdsyncError('sender_not_authenticated', 'pickup requests must be authcrypted by the recipient');
    }
    // §Requirements: "the return_route header extension must be set to all in all request submitted by the recipient".
    if (ctx.message.return_route !== 'all' && ctx.message.return_route !== 'thread') {
      throw new IdsyncError('return_route_required', 'pickup requests need return_route "all"');
    }
    const party = ctx.sender;
    if (recipientDid === undefined) {
      // A party that registered its own DID (idsync's wallet does) holds it once: each DID's queue is read once.
      // With the DIDs it removed while messages for them waited: those are still its to collect.
      const dids = [party, ...(await core.keylist.recipientsOf(party)), ...(await core.keylist.retiredOf(party))];
      const unique = [...new Map(dids.map((d) => [shortForm(d), d])).values()];
      const mine: string[] = [];
      for (const d of unique) if (!(await anotherParty(d, party))) mine.push(d);
      return { party, dids: mine };
    }
    if (sameDid(recipientDid, party)) return { party, dids: [party] };
    if (await anotherParty(recipientDid, party)) throw protocolError('forbidden', 'a recipient may only collect its own messages');
    const reg = await core.keylist.holding(recipientDid);
    if (!reg) throw protocolError('mediation_required', `no recipient registered ${recipientDid.slice(0, 200)} here`, { recipientDid: recipientDid.slice(0, 200) });
    if (!sameDid(reg.owner, party)) throw protocolError('forbidden', 'a recipient may only collect its own messages');
    return { party, dids: [reg.recipientDid] };
  }

  /**
   * Whether `did` (or the DID of a key id) is another party's own, granted mediation: its queue is
   * that party's alone, whatever registration another party made of it (keylist.ts lets those go
   * at the grant and refuses new ones; one kept from before is not read through).
   */
  async function anotherParty(did: string, party: string): Promise<boolean> {
    return !sameDid(did, party) && (await core.keylist.ownParty(didOf(did)));
  }

  /** The oldest deliverable messages across `dids` (queue ids sort by arrival), at most `limit`. */
  async function oldest(dids: string[], limit: number): Promise<QueuedMessage[]> {
    // Each DID's oldest `limit` hold the oldest `limit` of all: the rest are not read.
    const all = (await Promise.all(dids.map((d) => core.queue.list(d, limit)))).flat().sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return all.slice(0, limit);
  }

  async function status(ctx: HandlerContext, scope: Scope, recipientDid?: string): Promise<void> {
    // Counted from what the queue keeps of each message: none is read.
    const entries = (await Promise.all(scope.dids.map((d) => core.queue.waiting(d)))).flat();
    const now = core.clock.now();
    const span = timeSpan(entries);
    // Asked on a persistent connection: whether that connection is live; else whether any is.
    const connection = connectionOf(ctx);
    await ctx.reply(
      buildStatus(
        {
          thid: ctx.thid,
          messageCount: entries.length,
          // "If a recipient_did was specified in the status-request message, the matching value MUST be specified".
          ...(recipientDid !== undefined ? { recipientDid } : {}),
          ...(span
            ? {
                longestWaitedSeconds: Math.max(0, Math.floor((now - span.oldest) / 1000)),
                oldestReceivedTime: Math.floor(span.oldest / 1000),
                newestReceivedTime: Math.floor(span.newest / 1000),
                totalBytes: entries.reduce((n, e) => n + e.size, 0),
              }
            : {}),
          liveDelivery: connection ? core.live.bound(scope.party, connection) : core.live.has(scope.party),
        },
        deps,
      ),
    );
  }

  const protocol = messagePickupProtocol(
    {
      'status-request': async (ctx, parsed) => status(ctx, await scopeOf(ctx, parsed.recipientDid), parsed.recipientDid),

      'delivery-request': async (ctx, parsed) => {
        const scope = await scopeOf(ctx, parsed.recipientDid);
        const entries = withinBytes(await oldest(scope.dids, Math.min(parsed.limit, MAX_DELIVERY)), MAX_DELIVERY_BYTES);
        // §Delivery Request: "If no messages are available to be sent, a status message MUST be sent immediately."
        if (entries.length === 0) return status(ctx, scope, parsed.recipientDid);
        const delivery = buildDelivery(
          { thid: ctx.thid, messages: entries.map((e) => ({ id: e.id, packed: e.packed })), ...(parsed.recipientDid !== undefined ? { recipientDid: parsed.recipientDid } : {}) },
          deps,
        );
        // The delivery's outer layer is anoncrypted (the queued messages inside are encrypted for their recipients).
        await ctx.reply(delivery, { mode: 'anoncrypt' });
        core.crashPoint?.('mediator:delivered');
        core.events.emit('pickup-delivered', { to: shortForm(scope.party), queueIds: entries.map((e) => e.id) });
      },

      'messages-received': async (ctx, parsed) => {
        const scope = await scopeOf(ctx);
        // "Delivered messages MUST NOT be deleted until delivery is acknowledged by a messages-received message."
        // Across all the party's DIDs in one write (queue.ts remove()).
        const removed = await core.queue.remove(scope.dids, parsed.messageIds);
        core.crashPoint?.('mediator:received');
        core.events.emit('pickup-received', { to: shortForm(scope.party), removed, queueIds: parsed.messageIds });
        // "The mediator SHOULD send an updated status message reflecting the changes to the queue."
        // It answers on the connection the confirmation came on (return_route "all", which §Basic
        // Walkthrough has every recipient request set); a recipient that confirms as it disconnects
        // has closed it, and a status built, packed and stored for it could only fail to send.
        if (ctx.received.open?.() === false) return;
        await status(ctx, scope);
      },

      'live-delivery-change': async (ctx, parsed) => {
        const scope = await scopeOf(ctx);
        const info = ctx.received;
        if (parsed.liveDelivery) {
          // "Live Mode MUST only be enabled when a persistent transport is used, such as WebSockets."
          if (!info?.reply || !PERSISTENT.has(info.transport as string)) {
            throw protocolError('live_mode_not_supported', 'live delivery needs a persistent connection (WebSocket)');
          }
          core.live.bind(scope.party, info.reply);
          liveThreads.set(shortForm(scope.party), ctx.message.id);
          info.bind?.(scope.party);
        } else {
          // Off on the connection that asked (over HTTP, which is no connection: on all of them).
          core.live.unbind(scope.party, connectionOf(ctx));
          if (!core.live.has(scope.party)) liveThreads.delete(shortForm(scope.party));
        }
        core.events.emit('live-delivery-changed', { to: shortForm(scope.party), live: parsed.liveDelivery });
        // "Upon receiving the live_delivery_change message, the mediator MUST respond with a status message."
        await status(ctx, scope);
      },
    },
    ['mediator'],
  );

  return {
    protocol,
    async pushLive(router, party, entries) {
      if (!core.live.has(party) || entries.length === 0) return false;
      const delivery = buildDelivery(
        { thid: liveThreads.get(shortForm(party)) ?? entries[0]!.id, to: party, messages: entries.map((e) => ({ id: e.id, packed: e.packed })) },
        deps,
      );
      // Through the router like every message the mediator sends: checked against the rules and
      // kept in its message log; on the party's own connection, never wrapped in a forward.
      const prepared = await router.prepare(delivery, { mode: 'anoncrypt', to: party, forward: false, untracked: true });
      try {
        await router.deliver(prepared, async (packed) => {
          if (!(await core.live.push(party, packed))) throw new IdsyncError('live_connection_closed', 'the live connection closed before the delivery could be pushed on it');
        });
      } catch (err) {
        if (isIdsyncError(err) && err.code === 'live_connection_closed') return false;
        throw err;
      }
      core.events.emit('live-pushed', { to: shortForm(party), queueIds: entries.map((e) => e.id) });
      return true;
    },
  };
}

/**
 * DIDComm v2 §6.1 return_route "all" over HTTP: a response with room left carries the oldest
 * message queued for `did`, removed once handed to the transport (the service twin's wallets
 * that POST without an endpoint of their own).
 */
export async function takeOne(core: Pick<MediatorCore, 'queue' | 'events'>, did: string, reply: (packed: string) => Promise<void>): Promise<boolean> {
  const [entry] = await core.queue.list(did, 1);
  if (!entry) return false;
  await reply(entry.packed);
  await core.queue.remove(did, [entry.id]);
  core.events.emit('message-delivered', { to: shortForm(did), messageId: entry.messageId, type: entry.type, via: 'return-route', queueId: entry.id });
  return true;
}

/**
 * The oldest and newest queueing times (ms) of `entries`, or undefined when there are none. A
 * loop, not Math.min(...times): spread into a call, a queue of some 120,000 messages (any number of
 * recipient DIDs times maxPerRecipient) overflows the call stack, and every status would fail.
 */
export function timeSpan(entries: ReadonlyArray<{ queuedAt: number }>): { oldest: number; newest: number } | undefined {
  if (entries.length === 0) return undefined;
  let oldest = Infinity;
  let newest = -Infinity;
  for (const e of entries) {
    if (e.queuedAt < oldest) oldest = e.queuedAt;
    if (e.queuedAt > newest) newest = e.queuedAt;
  }
  return { oldest, newest };
}

/** The first of `entries` whose packed messages together take at most `maxBytes`, and always the first one (MAX_DELIVERY_BYTES). */
export function withinBytes<T extends { packed: string }>(entries: readonly T[], maxBytes: number): T[] {
  const out: T[] = [];
  let bytes = 0;
  for (const e of entries) {
    bytes += Buffer.byteLength(e.packed);
    if (out.length > 0 && bytes > maxBytes) break;
    out.push(e);
  }
  return out;
}
