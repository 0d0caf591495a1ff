// Sending again what a peer's endpoint refused for now (docs/service.md "Outbound endpoints"). An
// endpoint that answers 503 or 429 (RFC 9110 §15.6.4, RFC 6585 §4; the HTTP transport's
// `transport_retry_later`) did not take the message but asks for it later. Such a message is kept
// in the pickup queue like one whose endpoint is unreachable (outbound.ts `keep`, under the same
// relationship rule) and, in addition, scheduled here: at the time the peer's Retry-After names
// (never sooner than 1 s), or after an exponential back-off when it names none, it is sent to the
// peer's current route again. Delivered → removed from the queue; refused or unreachable again →
// rescheduled; after `maxAttempts` attempts (the first delivery included) it only waits for pickup.
// A message collected by pickup, withdrawn (sync.ts) or expired meanwhile is not sent again.
//
// Schedules are durable (`svc-dc-redeliver`, keyed by due time on the injected clock), so a
// restarted agent resumes them (start()). A timer (unref'd, wall time) wakes a pass at the next
// due time; whether a schedule is due is always judged by the injected clock, and tests call
// runDue() (agent.redeliver()) instead of waiting.
import type { EventEmitter } from 'node:events';
import type { Clock } from '../../clock.js';
import { toIdsyncError } from '../../errors.js';
import type { Store } from '../../store/store.js';
import type { ServiceLogger } from '../context.js';
import { COLLECTIONS } from './collections.js';
import type { MessageQueue, QueuedMessage } from '../../mediator/queue.js';
import { timeKey } from '../../store/time-key.js';
import { resendTally } from '../../router/resend.js';

export interface RedeliveryOptions {
  /** Attempts in all, the first delivery included (default 8). */
  maxAttempts?: number;
  /** Back-off without a Retry-After: this, doubled after every attempt (default 5 s)… */
  baseDelayMs?: number;
  /** …up to this (default 1 h). A peer's Retry-After is honoured as given (at most a day). */
  maxDelayMs?: number;
}

export const DEFAULT_REDELIVERY: Required<RedeliveryOptions> = { maxAttempts: 8, baseDelayMs: 5_000, maxDelayMs: 3_600_000 };
/** Never sooner than this after a refusal, even after `Retry-After: 0`. */
const MIN_DELAY_MS = 1_000;
/** Messages sent per pass; the rest is left for the next one. */
const PASS_LIMIT = 100;

export interface RedeliveryRecord {
  /** The queue's recipient (ion short form) and queue id. */
  recipient: string;
  queueId: string;
  messageId?: string;
  type?: string;
  returnRoute: boolean;
  /** Attempts made so far, the first delivery included. */
  attempts: number;
  /** Epoch ms (injected clock) of the next attempt. */
  dueAt: number;
}

/** What one attempt came to. `stop`: nowhere to send it any more (no endpoint, refused); it waits for pickup. */
export type AttemptOutcome =
  | { kind: 'delivered'; via: 'live' | 'endpoint' }
  | { kind: 'retry'; reason: string; retryAfterSeconds?: number }
  | { kind: 'stop'; reason: string };

export interface RedeliveryDeps {
  store: Store;
  clock: Clock;
  queue: MessageQueue;
  events: EventEmitter;
  logger?: ServiceLogger;
  options?: RedeliveryOptions;
  /** One send of a queued message on the recipient's current route (outbound.ts redeliver). */
  attempt(entry: QueuedMessage, returnRoute: boolean): Promise<AttemptOutcome>;
  /** Runs a timer-woken pass as tracked background work (the agent's idle() and close() wait for it). */
  background(what: string, fn: () => Promise<void>): void;
}

export interface Redelivery {
  /**
   * Schedules a queued message to be sent again; `attempts` made so far. Resolves with the
   * schedule, or undefined when the attempts are used up (the message then only waits for pickup).
   */
  schedule(entry: QueuedMessage, o: { attempts: number; returnRoute: boolean; retryAfterSeconds?: number; reason?: string }): Promise<RedeliveryRecord | undefined>;
  /** Sends every scheduled message that is due (injected clock); resolves with how many were delivered. */
  runDue(): Promise<number>;
  /** Resumes stored schedules (a pass now, then the timer). */
  start(): void;
  /** Stops the timer; schedules stay stored. */
  close(): void;
}

const keyOf = (r: Pick<RedeliveryRecord, 'dueAt' | 'recipient' | 'queueId'>): string => `${timeKey(r.dueAt)}|${r.recipient}/${r.queueId}`;

export function redelivery(d: RedeliveryDeps): Redelivery {
  const o = { ...DEFAULT_REDELIVERY, ...d.options };
  const col = d.store.collection<RedeliveryRecord>(COLLECTIONS.redelivery);
  let chain: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  function delayMs(attempts: number, retryAfterSeconds?: number): number {
    if (retryAfterSeconds !== undefined) return Math.max(MIN_DELAY_MS, retryAfterSeconds * 1000);
    return Math.max(MIN_DELAY_MS, Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** Math.max(0, attempts - 1)));
  }

  /** Wakes a pass at the earliest stored due time (wall-time delay from the injected clock's now). */
  async function arm(): Promise<void> {
    if (closed) return;
    const [first] = await col.list({ limit: 1 });
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!first || closed) return;
    timer = setTimeout(() => {
      timer = undefined;
      if (!closed) d.background('redeliver', async () => void (await runDue()));
    }, Math.max(MIN_DELAY_MS, first.value.dueAt - d.clock.now()));
    timer.unref();
  }

  async function schedule(entry: QueuedMessage, s: { attempts: number; returnRoute: boolean; retryAfterSeconds?: number; reason?: string }): Promise<RedeliveryRecord | undefined> {
    const to = entry.recipient;
    if (s.attempts >= o.maxAttempts) {
      d.logger?.info({ to: to.slice(0, 120), messageId: entry.messageId, attempts: s.attempts, reason: s.reason }, 'outbound DIDComm message left for pickup: redelivery attempts used up');
      d.events.emit('redelivery-given-up', { to, messageId: entry.messageId, queueId: entry.id, attempts: s.attempts, reason: s.reason });
      return undefined;
    }
    const rec: RedeliveryRecord = {
      recipient: to,
      queueId: entry.id,
      ...(entry.messageId ? { messageId: entry.messageId } : {}),
      ...(entry.type ? { type: entry.type } : {}),
      returnRoute: s.returnRoute,
      attempts: s.attempts,
      dueAt: d.clock.now() + delayMs(s.attempts, s.retryAfterSeconds),
    };
    await col.put(keyOf(rec), rec);
    d.events.emit('redelivery-scheduled', { to, messageId: rec.messageId, queueId: rec.queueId, attempts: rec.attempts, dueAt: rec.dueAt, reason: s.reason });
    await arm();
    return rec;
  }

  async function pass(): Promise<number> {
    // Due: keys below the next millisecond (due times are fixed-width, so they sort by time).
    const due = await col.list({ lt: timeKey(d.clock.now() + 1), limit: PASS_LIMIT });
    let delivered = 0;
    for (const { key, value: rec } of due) {
      // Claimed before the attempt: an attempt that throws does not come back in a loop.
      await col.del(key);
      const entry = await d.queue.get(rec.recipient, rec.queueId);
      if (!entry) continue; // collected by pickup, withdrawn or expired meanwhile
      const step = `redeliver:${String(rec.type ?? 'message').split('/').pop()}`;
      resendTally.set(step, (resendTally.get(step) ?? 0) + 1);
      let out: AttemptOutcome;
      try {
        out = await d.attempt(entry, rec.returnRoute);
      } catch (err) {
        out = { kind: 'retry', reason: toIdsyncError(err).code };
      }
      const attempts = rec.attempts + 1;
      if (out.kind === 'delivered') {
        await d.queue.remove(rec.recipient, [rec.queueId]);
        delivered++;
        d.events.emit('message-delivered', { to: rec.recipient, messageId: rec.messageId, type: rec.type, via: out.via, redelivery: true, attempts });
        continue;
      }
      if (out.kind === 'stop') {
        d.events.emit('redelivery-given-up', { to: rec.recipient, messageId: rec.messageId, queueId: rec.queueId, attempts, reason: out.reason });
        continue;
      }
      await schedule(entry, { attempts, returnRoute: rec.returnRoute, reason: out.reason, ...(out.retryAfterSeconds !== undefined ? { retryAfterSeconds: out.retryAfterSeconds } : {}) });
    }
    await arm();
    return delivered;
  }

  function runDue(): Promise<number> {
    // One pass at a time: the timer's and a caller's never send the same message twice.
    const p = chain.then(pass, pass);
    chain = p.catch(() => undefined);
    return p;
  }

  return {
    schedule,
    runDue,
    start() {
      if (closed) return;
      d.background('redeliver', async () => void (await runDue()));
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
