// Sending again what a peer's endpoint refused for now (docs/service.md "Outbound endpoints"). An
// endpoint that answers 503 or 429 (RFC 9110 §15.6.4, RFC 6585 §4; the HTTP transport's
// `transport_retry_later`) did not take the message but asks for it later. Such a message is kept
// in the pickup queue like one whose endpoint is unreachable (outbound.ts `keep`, under the same
// relationship rule) and, unless it is a protocol step that retries itself (router/steps), it is a
// job of the agent's one retry scheduler (router/retry/scheduler.ts): sent to the peer's current
// route again at the back-off's time, never before the peer's Retry-After. Delivered → removed from
// the queue; refused or unreachable again → rescheduled; after `maxAttempts` attempts (the first
// delivery included) it only waits for pickup. A message collected by pickup, withdrawn (sync.ts)
// or expired meanwhile is not sent again.
//
// Each job is stored (`svc-dc-redeliver`, by recipient and queue id) with its attempts and the
// peer's Retry-After, so a restarted agent resumes it (the scheduler's start()).
import type { EventEmitter } from 'node:events';
import type { Clock } from '../../clock.js';
import type { Store } from '../../store/store.js';
import type { ServiceLogger } from '../context.js';
import { COLLECTIONS } from './collections.js';
import type { MessageQueue, QueuedMessage } from '../../mediator/queue.js';
import { tally } from '../../router/steps/names.js';
import type { Scheduler, StoredJob } from '../../router/retry/scheduler.js';
import { failureOutcome, type SendOutcome } from '../../router/retry/backoff.js';

export interface RedeliveryOptions {
  /** Attempts in all, the first delivery included (default 8). */
  maxAttempts?: number;
}

export const DEFAULT_REDELIVERY: Required<RedeliveryOptions> = { maxAttempts: 8 };

/** The scheduler's job kind of redeliveries. */
export const REDELIVERY_JOB = 'redeliver';

export interface RedeliveryRecord {
  /** The queue's recipient (ion short form) and queue id. */
  recipient: string;
  queueId: string;
  messageId?: string;
  type?: string;
  returnRoute: boolean;
  /** Attempts made so far, the first delivery included. */
  attempts: number;
  /** The peer's Retry-After (injected clock ms): not sent before, even after a restart. */
  notBefore?: number;
  /** Records written by earlier versions: the next attempt (injected clock ms). */
  dueAt?: number;
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
  scheduler: Scheduler;
  logger?: ServiceLogger;
  options?: RedeliveryOptions;
  /** One send of a queued message on the recipient's current route (outbound.ts redeliver). */
  attempt(entry: QueuedMessage, returnRoute: boolean): Promise<AttemptOutcome>;
}

export interface Redelivery {
  /**
   * Schedules a queued message to be sent again; `attempts` made so far. Resolves with the
   * record, or undefined when the attempts are used up (the message then only waits for pickup).
   */
  schedule(entry: QueuedMessage, o: { attempts: number; returnRoute: boolean; retryAfterSeconds?: number; reason?: string }): Promise<RedeliveryRecord | undefined>;
}

const keyOf = (r: Pick<RedeliveryRecord, 'recipient' | 'queueId'>): string => `${r.recipient}/${r.queueId}`;

export function redelivery(d: RedeliveryDeps): Redelivery {
  const o = { ...DEFAULT_REDELIVERY, ...d.options };
  const col = d.store.collection<RedeliveryRecord>(COLLECTIONS.redelivery);
  const { scheduler } = d;
  /** Why the last attempt of a job failed, until the scheduler has set its next time. */
  const pendingReasons = new Map<string, { attempts: number; reason: string; messageId?: string }>();

  function givenUp(rec: Pick<RedeliveryRecord, 'recipient' | 'messageId' | 'queueId'>, attempts: number, reason?: string): void {
    d.logger?.info({ to: rec.recipient.slice(0, 120), messageId: rec.messageId, attempts, reason }, 'outbound DIDComm message left for pickup: redelivery attempts used up');
    d.events.emit('redelivery-given-up', { to: rec.recipient, messageId: rec.messageId, queueId: rec.queueId, attempts, reason });
  }

  /** Attempt → what the back-off goes by. */
  const outcomeOf = (reason: string, retryAfterSeconds?: number): SendOutcome =>
    failureOutcome({ code: reason }, retryAfterSeconds !== undefined ? retryAfterSeconds * 1000 : undefined);

  async function schedule(entry: QueuedMessage, s: { attempts: number; returnRoute: boolean; retryAfterSeconds?: number; reason?: string }): Promise<RedeliveryRecord | undefined> {
    if (s.attempts >= o.maxAttempts) {
      scheduler.abandoned(REDELIVERY_JOB);
      givenUp({ recipient: entry.recipient, messageId: entry.messageId, queueId: entry.id }, s.attempts, s.reason);
      return undefined;
    }
    const now = d.clock.now();
    const rec: RedeliveryRecord = {
      recipient: entry.recipient,
      queueId: entry.id,
      ...(entry.messageId ? { messageId: entry.messageId } : {}),
      ...(entry.type ? { type: entry.type } : {}),
      returnRoute: s.returnRoute,
      attempts: s.attempts,
      ...(s.retryAfterSeconds !== undefined ? { notBefore: now + s.retryAfterSeconds * 1000 } : {}),
    };
    await col.put(keyOf(rec), rec);
    const dueAt = now + scheduler.delay(s.attempts - 1, outcomeOf(s.reason ?? 'transport_retry_later', s.retryAfterSeconds));
    scheduler.schedule({ kind: REDELIVERY_JOB, key: keyOf(rec), peer: rec.recipient, dueAt, last: 'failed' });
    d.events.emit('redelivery-scheduled', { to: rec.recipient, messageId: rec.messageId, queueId: rec.queueId, attempts: rec.attempts, dueAt, reason: s.reason });
    return rec;
  }

  scheduler.register(REDELIVERY_JOB, {
    async load() {
      const jobs: StoredJob[] = [];
      for (const { key, value } of await col.list()) {
        const k = keyOf(value);
        // Records of earlier versions were keyed by due time.
        if (key !== k) {
          await d.store.batch([{ type: 'del', collection: COLLECTIONS.redelivery, key }, { type: 'put', collection: COLLECTIONS.redelivery, key: k, value }]);
        }
        const notBefore = value.notBefore ?? value.dueAt;
        jobs.push({ key: k, peer: value.recipient, ...(notBefore !== undefined ? { notBefore } : {}) });
      }
      return jobs;
    },

    async run(job) {
      const rec = await col.get(job.key);
      if (!rec) return 'done';
      const entry = await d.queue.get(rec.recipient, rec.queueId);
      if (!entry) {
        // Collected by pickup, withdrawn or expired meanwhile.
        await col.del(job.key);
        return 'done';
      }
      tally(`redeliver:${String(rec.type ?? 'message').split('/').pop()}`);
      let out: AttemptOutcome;
      try {
        out = await d.attempt(entry, rec.returnRoute);
      } catch (err) {
        out = { kind: 'retry', reason: (err as { code?: string }).code ?? 'internal_error' };
      }
      const attempts = rec.attempts + 1;
      if (out.kind === 'delivered') {
        await d.queue.remove(rec.recipient, [rec.queueId]);
        await col.del(job.key);
        d.events.emit('message-delivered', { to: rec.recipient, messageId: rec.messageId, type: rec.type, via: out.via, redelivery: true, attempts });
        return 'delivered';
      }
      if (out.kind === 'stop' || attempts >= o.maxAttempts) {
        await col.del(job.key);
        scheduler.abandoned(REDELIVERY_JOB);
        if (out.kind === 'stop') d.events.emit('redelivery-given-up', { to: rec.recipient, messageId: rec.messageId, queueId: rec.queueId, attempts, reason: out.reason });
        else givenUp(rec, attempts, out.reason);
        return 'done';
      }
      const now = d.clock.now();
      const next: RedeliveryRecord = { ...rec, attempts, ...(out.retryAfterSeconds !== undefined ? { notBefore: now + out.retryAfterSeconds * 1000 } : {}) };
      delete next.dueAt;
      await col.put(job.key, next);
      pendingReasons.set(job.key, { attempts, reason: out.reason, ...(rec.messageId ? { messageId: rec.messageId } : {}) });
      return outcomeOf(out.reason, out.retryAfterSeconds);
    },

    rescheduled(job, dueAt) {
      const why = pendingReasons.get(job.key);
      pendingReasons.delete(job.key);
      const [recipient, queueId] = [job.key.slice(0, job.key.lastIndexOf('/')), job.key.slice(job.key.lastIndexOf('/') + 1)];
      d.events.emit('redelivery-scheduled', { to: recipient, messageId: why?.messageId, queueId, attempts: why?.attempts, dueAt, reason: why?.reason });
    },
  });
  return { schedule };
}
