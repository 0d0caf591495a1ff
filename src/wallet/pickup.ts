// Message Pickup 3.0 as recipient (docs/protocols.md "Message Pickup 3.0"): a wallet without an
// inbound endpoint collects what the service queued. Over HTTP: status-request, then
// delivery-request until the queue is empty, each delivery's messages processed as if they had
// arrived, then acknowledged with messages-received; all with return_route "all", so each answer
// comes back in the HTTP response and is handled inside the send. Over a WebSocket:
// live-delivery-change {live_delivery: true}, after which the service pushes on the socket.
import type { HandlerContext, ProtocolModule, RouterResult } from '../router/router.js';
import { IdsyncError, toIdsyncError } from '../errors.js';
import {
  buildDeliveryRequest, buildLiveDeliveryChange, buildMessagesReceived, buildStatusRequest, messagePickupProtocol,
  type QueuedMessage, type QueueStatus, type UnusableAttachment,
} from '../protocols/message-pickup.js';
import { protocolError } from '../protocols/protocol-kit.js';
import { outgoingHeaders, type WalletContext } from './context.js';
import { stopWaits } from '../wait.js';
import { setBounded } from '../bounded.js';
import { resolutionError } from '../did/resolver.js';
import { didOf } from '../didcomm/message.js';

export interface PickupResult {
  /** Messages delivered and processed. */
  received: number;
  /** Delivery requests sent. */
  rounds: number;
  /** The router's outcome for each delivered message, in order. */
  results: RouterResult[];
  /** The last queue status the service reported. */
  status?: QueueStatus;
  /**
   * Delivered but left queued, not confirmed: the wallet's own store failed on it, or another copy
   * of it was still being handled. Delivered again by a later pickup.
   */
  leftQueued: number;
  /** Stopped at maxRounds while every round still confirmed messages and more were queued. */
  more: boolean;
}

export interface PickupOptions {
  /** Messages per delivery (default 10). */
  limit?: number;
  /** Stop after this many delivery requests (default 50): a guard, not a schedule. */
  maxRounds?: number;
}

/** messages-received whose status is still awaited, at most (older ones are forgotten). */
const MAX_ACKS_AWAITING_STATUS = 256;

/** Live deliveries of one peer waiting to be confirmed together, and how to send that now. */
interface AckBatch {
  ids: string[];
  timer?: NodeJS.Timeout | undefined;
  flush(): Promise<void>;
}

/** What came back for a request: the queue's status, or how many messages a delivery held and how many of them were confirmed. */
interface Answer {
  peer: string;
  status?: QueueStatus;
  delivered?: number;
  confirmed?: number;
  /** The pickup's queue ids left queued so far: brought again, they are passed over, not handled again. */
  left?: Set<string>;
}

/** What the pickup handlers and the loops share: outstanding request ids and what came back. */
export class PickupSession {
  /**
   * How long a live delivery's confirmation waits for more to confirm with it (ms; 0: those
   * handled in the same turn of the event loop). See acknowledgeLive().
   */
  constructor(readonly ackDelayMs = 0) {}
  /** Peer → the live deliveries not confirmed yet. */
  readonly ackBatches = new Map<string, AckBatch>();
  /** `<peer> <queue id>` → how many times the wallet's store failed on the message as delivered (leaveQueued). */
  readonly storeFailures = new Map<string, number>();
  /**
   * Set when the wallet starts to close: a delivery handled from then on is confirmed at once,
   * not after ackDelayMs (the socket it would be confirmed on is about to go).
   */
  closing = false;
  /** Deliveries being handled now (their messages go through the router before they are confirmed). */
  private readonly handling = new Set<Promise<void>>();

  /** Runs `delivery` as one of the deliveries being handled, which settled() waits for. */
  track(delivery: Promise<void>): Promise<void> {
    const p = delivery.finally(() => this.handling.delete(p));
    this.handling.add(p);
    return p;
  }

  /**
   * Resolves once no delivery is being handled (those that start meanwhile included), or after
   * `withinMs`: true when none is left. A handler that waits on the wallet's own close (a policy
   * callback that closes it) would otherwise hold the close for ever.
   */
  async settled(withinMs: number): Promise<boolean> {
    if (this.handling.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), withinMs);
    });
    try {
      while (this.handling.size > 0) {
        const all = Promise.allSettled([...this.handling]).then(() => true as const);
        if (!(await Promise.race([all, late]))) return false;
      }
      return true;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Request id → the peer asked and the answer (status or delivery) handled for it. */
  private readonly answers = new Map<string, Answer>();
  readonly results: RouterResult[] = [];
  /** Peers (short DIDs) pushing to us on a live socket. */
  readonly live = new Set<string>();
  /**
   * The live-delivery-change id that turned live mode on → the peer: its pushed deliveries are
   * threaded to it (§Live Mode) and may be anoncrypted, so the thread names the mediator.
   */
  readonly liveThreads = new Map<string, string>();
  /** Peer → the WebSocket URL it pushes to us on (messages-received goes back on the same socket). */
  readonly liveUrls = new Map<string, string>();
  /**
   * messages-received sent on a live socket whose status has not come yet (§Messages Received:
   * "The mediator SHOULD send an updated status message"): it answers a message of ours even
   * when it arrives after the socket closed, so it is taken, never reported as an unknown thread.
   * Bounded: the oldest are forgotten first.
   */
  private readonly acks = new Set<string>();
  lastStatus?: QueueStatus;

  awaitStatus(ackId: string): void {
    this.acks.add(ackId);
    if (this.acks.size > MAX_ACKS_AWAITING_STATUS) this.acks.delete(this.acks.values().next().value as string);
  }
  /** Whether messages-received `ackId` still awaits its status. */
  awaiting(ackId: string): boolean {
    return this.acks.has(ackId);
  }
  /** True (and forgotten) when `thid` is a messages-received of ours still awaiting its status. */
  statusOfAck(thid: string | undefined): boolean {
    return thid !== undefined && this.acks.delete(thid);
  }

  expect(id: string, peer: string, left?: Set<string>): void {
    this.answers.set(id, left ? { peer, left } : { peer });
  }
  /** The queue ids the pickup that sent request `thid` left queued (passed over if brought again). */
  leftBy(thid: string): Set<string> | undefined {
    return this.answers.get(thid)?.left;
  }
  isExpected(thid: string | undefined): boolean {
    return thid !== undefined && this.answers.has(thid);
  }
  /** The peer a request went to: a delivery's outer layer is anoncrypted, so its sender is not proven. */
  peerOf(thid: string): string | undefined {
    return this.answers.get(thid)?.peer;
  }
  answer(thid: string, patch: Partial<Omit<Answer, 'peer'>>): void {
    const a = this.answers.get(thid);
    if (a) Object.assign(a, patch);
  }
  take(id: string): Answer | undefined {
    const a = this.answers.get(id);
    this.answers.delete(id);
    return a;
  }
}

function deps(ctx: WalletContext) {
  return { clock: ctx.clock, ids: ctx.ids };
}

/**
 * `err`, or, when it is the envelope's bare "did not resolve" for the peer, why it did not: a
 * did:web whose host does not answer is named as such (transport_unreachable, the socket's
 * reason), as accepting an invitation from it says. Asked only after a failure: a pickup that
 * goes through resolves nothing more.
 */
async function whyUnresolved(ctx: WalletContext, peer: string, err: unknown): Promise<unknown> {
  if (toIdsyncError(err).code !== 'did_not_resolved') return err;
  const did = didOf(peer);
  const resolved = await ctx.resolution(did).catch(() => undefined);
  if (!resolved || (resolved.didDocument && !resolved.didResolutionMetadata.error)) return err;
  return resolutionError(did, resolved, `the peer's DID ${did}`);
}

/** The delivery at which a message the wallet's own store keeps failing on is confirmed all the same (left queued at those before). */
export const MAX_LEFT_QUEUED = 3;
/** Messages left queued, and how often, at most this many (the oldest are forgotten first). */
const MAX_LEFT_TRACKED = 1024;

/**
 * Whether a delivered message stays queued at the mediator instead of being confirmed:
 * - a copy refused while another copy is still being handled (a live push and a delivery-request
 *   bringing the same message): that copy's outcome decides;
 * - a failure of the wallet's own store (the router left the id unseen, as its HTTP endpoint
 *   answers 503 for a retry), up to MAX_LEFT_QUEUED deliveries: a store that stays broken must
 *   not hold the queue behind it for the mediator's whole retention.
 * Any other outcome, a failure on the peer's side included (its endpoint unreachable for a
 * reply), is final here: kept queued, it would be handled again at every delivery, and the
 * messages behind it would wait.
 */
function leaveQueued(ctx: WalletContext, session: PickupSession, peer: string, id: string, result: RouterResult): boolean {
  if (result.otherCopyHandling) return true;
  const key = `${peer} ${id}`;
  if (!result.retryable || !result.code?.startsWith('store_')) {
    session.storeFailures.delete(key);
    return false;
  }
  const times = (session.storeFailures.get(key) ?? 0) + 1;
  if (times >= MAX_LEFT_QUEUED) {
    session.storeFailures.delete(key);
    ctx.logger('warn', 'a delivered message kept failing in the wallet\'s store: confirmed, not handled', { peer, id, code: result.code, times });
    return false;
  }
  setBounded(session.storeFailures, key, times, MAX_LEFT_TRACKED);
  return true;
}

async function onDelivery(ctx: WalletContext, session: PickupSession, h: HandlerContext, thid: string, messages: QueuedMessage[], unusable: UnusableAttachment[] = []): Promise<void> {
  const requested = session.peerOf(thid);
  const peer = requested ?? session.liveThreads.get(thid) ?? (session.live.size > 0 ? h.sender : undefined);
  if (!peer) {
    throw protocolError('unknown_thread', `delivery ${h.message.id} answers no delivery request of ours`, { thid });
  }
  // Each queued message is handled as if it had just arrived, and confirmed unless keeping it
  // queued may still help (leaveQueued). §Messages Received lets the mediator delete what is
  // listed, and "Delivered messages MUST NOT be deleted until delivery is acknowledged".
  // An attachment holding no message the wallet can read never will: it is confirmed (and
  // logged), so the mediator stops bringing it back before everything queued after it.
  const ids: string[] = unusable.map((u) => u.id);
  for (const u of unusable) ctx.logger('warn', 'a delivered attachment holds no readable message: confirmed, not handled', { peer, id: u.id, reason: u.reason });
  const left = session.leftBy(thid);
  for (const m of messages) {
    // Left queued earlier in the same pickup: what failed then is left for a later one.
    if (left?.has(m.id)) continue;
    const result = await ctx.router.receive(m.packed, { transport: 'pickup', redelivery: true });
    // Kept for the pickup() that asked; a live push has no one to hand its results to.
    if (requested) session.results.push(result);
    if (!leaveQueued(ctx, session, peer, m.id, result)) ids.push(m.id);
    else left?.add(m.id);
  }
  const delivered = messages.length + unusable.length;
  session.answer(thid, { delivered, confirmed: ids.length });
  if (ids.length < delivered) ctx.events.emit('pickup-left-queued', { peer, count: delivered - ids.length });
  if (ids.length === 0) return;
  // A live push is confirmed on its socket (no new HTTP request per delivery); its status answer
  // comes back on the socket later, which live mode expects.
  const via = session.live.has(peer) ? session.liveUrls.get(peer) : undefined;
  // A delivery-request's answer is confirmed at once: pickup() reads the status that follows.
  if (requested || !via) return sendMessagesReceived(ctx, session, peer, ids, via);
  acknowledgeLive(ctx, session, peer, ids);
}

async function sendMessagesReceived(ctx: WalletContext, session: PickupSession, peer: string, ids: string[], via: string | undefined): Promise<void> {
  const ack = buildMessagesReceived({ from: (await outgoingHeaders(ctx, peer)).from, to: peer, messageIds: ids }, deps(ctx));
  session.expect(ack.id, peer);
  await ctx.router.send(ack, { to: peer, ...(via ? { via } : {}) });
  const answered = session.take(ack.id);
  if (answered?.status) session.lastStatus = answered.status;
  else if (via) {
    session.awaitStatus(ack.id);
    // Its status is how the wallet learns the confirmation arrived: the collector collects again
    // if it does not come (mediator-collect.ts).
    ctx.events.emit('pickup-confirmed-live', { peer, ackId: ack.id, count: ids.length });
  }
}

/**
 * Confirms live deliveries several at a time: one messages-received lists every delivery of the
 * peer handled within the session's ackDelayMs (§Messages Received: "message_id_list is a list of
 * ids of each message received"), so the mediator answers one status for them all ("The mediator
 * SHOULD send an updated status message reflecting the changes to the queue"). Each message was
 * processed and stored before it is listed, so nothing is lost by the wait: "Delivered messages
 * MUST NOT be deleted until delivery is acknowledged by a messages-received message", and one
 * the wallet stops before confirming is delivered again later and recognised as a redelivery.
 */
function acknowledgeLive(ctx: WalletContext, session: PickupSession, peer: string, ids: string[]): void {
  const waiting = session.ackBatches.get(peer);
  if (waiting) {
    waiting.ids.push(...ids);
    return;
  }
  const batch: AckBatch = {
    ids: [...ids],
    async flush() {
      if (session.ackBatches.get(peer) !== batch) return;
      session.ackBatches.delete(peer);
      if (batch.timer) clearTimeout(batch.timer);
      const via = session.live.has(peer) ? session.liveUrls.get(peer) : undefined;
      await sendMessagesReceived(ctx, session, peer, batch.ids, via);
    },
  };
  session.ackBatches.set(peer, batch);
  const run = () =>
    void batch.flush().catch((err: unknown) => {
      // Left queued at the mediator: delivered again by the next pickup, which this asks for (a
      // live socket brings only what arrives from now on).
      ctx.logger('warn', 'confirming live deliveries to the mediator failed', { peer, count: batch.ids.length, code: toIdsyncError(err).code });
      if (!session.closing) ctx.events.emit('pickup-left-queued', { peer, count: batch.ids.length });
    });
  // Closing: confirmed now, while the socket is still there. A timer would also keep the whole
  // wallet (its router, store and keys) in memory until it fired.
  const delayMs = session.closing ? 0 : session.ackDelayMs;
  if (delayMs > 0) {
    batch.timer = setTimeout(run, delayMs);
    batch.timer.unref?.();
  } else setImmediate(run);
}

/** Sends every confirmation still waiting (a wallet about to close); failures are logged. */
export async function flushLiveAcks(ctx: WalletContext, session: PickupSession): Promise<void> {
  await Promise.all(
    [...session.ackBatches.values()].map((b) =>
      b.flush().catch((err: unknown) => ctx.logger('warn', 'confirming live deliveries to the mediator failed', { count: b.ids.length, code: toIdsyncError(err).code })),
    ),
  );
}

/** The recipient side of Message Pickup for the wallet's router. */
export function walletPickupProtocol(ctx: () => WalletContext, session: PickupSession): ProtocolModule {
  return messagePickupProtocol(
    {
      status: (h, status) => {
        if (!session.isExpected(h.message.thid) && !session.statusOfAck(h.message.thid) && session.live.size === 0) {
          throw protocolError('unknown_thread', `status ${h.message.id} answers no request of ours`, { thid: h.message.thid ?? null });
        }
        session.lastStatus = status;
        if (h.message.thid) session.answer(h.message.thid, { status });
      },
      delivery: (h, d) => session.track(onDelivery(ctx(), session, h, d.thid, d.messages, d.unusable)),
    },
    ['recipient'],
  );
}

/**
 * Collects everything queued for the wallet at `peer` (the service DID), sending to `endpoint`
 * when given, else to the peer's DIDComm endpoint. Resolves when the queue reports empty.
 */
export async function pickup(ctx: WalletContext, session: PickupSession, peer: string, endpoint?: string, options: PickupOptions = {}): Promise<PickupResult> {
  let limit = options.limit ?? 10;
  const maxRounds = options.maxRounds ?? 50;
  const first = session.results.length;
  const via = endpoint ? { via: endpoint } : {};
  const headers = { from: (await outgoingHeaders(ctx, peer)).from, to: peer };

  const statusRequest = buildStatusRequest(headers, deps(ctx));
  session.expect(statusRequest.id, peer);
  try {
    await ctx.router.send(statusRequest, { to: peer, ...via });
  } catch (err) {
    session.take(statusRequest.id);
    throw await whyUnresolved(ctx, peer, err);
  }
  let status = session.take(statusRequest.id)?.status;
  if (!status) throw new IdsyncError('pickup_unanswered', `${peer} did not answer the status-request on the return route`);

  let rounds = 0;
  let stalled = false;
  const left = new Set<string>();
  while (status.messageCount > 0 && rounds < maxRounds) {
    rounds += 1;
    const request = buildDeliveryRequest({ ...headers, limit }, deps(ctx));
    session.expect(request.id, peer, left);
    try {
      await ctx.router.send(request, { to: peer, ...via });
    } catch (err) {
      session.take(request.id);
      // A delivery larger than the transport takes (many large messages at once): fewer per
      // request, down to one (§Delivery Request: `limit` is the most the mediator sends).
      if (!replyTooLarge(err) || limit === 1) throw err;
      limit = Math.max(1, Math.floor(limit / 2));
      continue;
    }
    const answer = session.take(request.id);
    if (answer?.status && !answer.delivered) {
      status = answer.status; // §Delivery Request: an empty queue is answered with a status
      continue;
    }
    if (!answer?.delivered) throw new IdsyncError('pickup_unanswered', `${peer} did not answer the delivery-request on the return route`);
    // Nothing confirmed: the next request would bring the same messages back (oldest first),
    // all of them left queued already. They stay queued for a later pickup.
    if ((answer.confirmed ?? answer.delivered) === 0) {
      stalled = true;
      break;
    }
    // The messages-received answer (a status) tells what is left, new arrivals included.
    status = session.lastStatus ?? { messageCount: 0 };
  }
  const results = session.results.splice(first);
  return { received: results.length, rounds, results, status, leftQueued: left.size, more: !stalled && rounds >= maxRounds && status.messageCount > 0 };
}

/** The transport refused an answer for its size (http-reply.ts: transport_rejected with maxBytes). */
function replyTooLarge(err: unknown): boolean {
  const e = toIdsyncError(err);
  return e.code === 'transport_rejected' && typeof (e.details as { maxBytes?: unknown } | undefined)?.maxBytes === 'number';
}

/**
 * Asks `peer` to push queued and new messages on the WebSocket at `wsUrl` (the socket must be
 * open on the wallet's WebSocket transport, whose inbound handler is the router).
 */
export async function liveDeliveryChange(ctx: WalletContext, session: PickupSession, peer: string, wsUrl: string, live: boolean): Promise<QueueStatus | undefined> {
  const change = buildLiveDeliveryChange({ from: (await outgoingHeaders(ctx, peer)).from, to: peer, liveDelivery: live }, deps(ctx));
  session.expect(change.id, peer);
  const key = peer;
  if (live) session.live.add(key);
  const stop = new AbortController();
  const o = { timeoutMs: 10_000, signal: stop.signal };
  const answered = ctx.router.waitFor<{ message: { thid?: string } }>('handled', (e) => e.message.thid === change.id, o);
  const refused = ctx.router.waitFor<{ problem: { pthid: string; code: string } }>('problem', (e) => e.problem.pthid === change.id, o);
  answered.catch(() => undefined);
  refused.catch(() => undefined);
  try {
    await ctx.router.send(change, { to: peer, via: wsUrl });
    const outcome = await Promise.race([answered.then(() => 'ok' as const), refused.then((e) => e.problem.code)]);
    if (outcome !== 'ok') {
      session.live.delete(key);
      throw new IdsyncError('live_mode_refused', `${peer} refused live delivery: ${outcome}`, { details: { problemCode: outcome } });
    }
    if (!live) session.live.delete(key);
    for (const [thid, p] of session.liveThreads) if (p === peer) session.liveThreads.delete(thid);
    if (live) session.liveThreads.set(change.id, peer);
    if (live) session.liveUrls.set(peer, wsUrl);
    else session.liveUrls.delete(peer);
    return session.take(change.id)?.status;
  } catch (err) {
    session.take(change.id);
    if (live) session.live.delete(key);
    throw err;
  } finally {
    stopWaits(stop);
  }
}
