// Durable, at-least-once webhook delivery. emit() writes the event and one delivery per
// matching subscription to the store before it resolves; deliverDue() POSTs whatever is due,
// signed with Standard Webhooks headers, and reschedules failures with back-off until
// maxAttempts, then dead-letters. A new dispatcher on the same store resumes pending work.
// webhook-id is the event id on every attempt (Standard Webhooks: receivers dedupe on it).
//
// Sequence numbers per subject have no gaps: an event is stored (in its state change's batch,
// prepare()) without one, and numbered once that batch is written (commit(), or the next pass,
// or the next start after a crash), one subject at a time, with its deliveries. A state change
// whose write failed never stored its event, so no number was spent on it.
//
// An event is written once: numbering stores its number apart (NUMBERS), and a read gives the
// event with its number in the envelope and the body made from that envelope (JSON.stringify of
// the stored envelope gives the same bytes on every attempt). Events numbered by earlier versions
// were written again whole, with the number and the body, and read as they were stored.
import { EventEmitter } from 'node:events';
import type { Clock, IdGenerator } from '../../clock.js';
import { IdsyncError, isIdsyncError } from '../../errors.js';
import type { BatchOp, Store } from '../../store/store.js';
import { ENDPOINT_REFUSED, type HostResolver } from '../../net/connect-guard.js';
import { endpointFetch, endpointRefusal, WEBHOOK_ENDPOINT_POLICY } from '../net/endpoint-policy.js';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
import { matchesFilter, orderedEnvelope, subjectOf, toEnvelope, type WebhookEnvelope, type WebhookEventInput } from './events.js';
import { keyedLock } from '../../keyed-lock.js';
import { webhookHeaders } from './signature.js';
import { subscriptionRepo, type SubscriptionInput, type SubscriptionRepo, type WebhookSubscription } from './subscriptions.js';
import { timeKey } from '../../store/time-key.js';

export const EVENTS = 'webhook-events';
export const DELIVERIES = 'webhook-deliveries';
/** Index of pending deliveries by due time: key `<ms, 15 digits>|<deliveryId>` → deliveryId. */
export const DUE = 'webhook-due';
/** Each subject's events in order: key `<tenant>/<subject>|<sequence, 12 digits>` → eventId. */
export const SEQUENCES = 'webhook-sequences';
/** Undelivered deliveries per subscription and subject in order: `<subscriptionId>|<tenant>/<subject>|<sequence>` → deliveryId. */
export const ORDER = 'webhook-order';
/** Events stored and not numbered yet, in the order they were made: `<ms, 15 digits>|<eventId>` → eventId. */
export const UNSEQUENCED = 'webhook-unsequenced';
/** An event's sequence number in its subject, by event id: written when it is numbered (see the top of this file). */
export const NUMBERS = 'webhook-numbers';
/**
 * A delivery waiting for an earlier one of its subject is made due again when that one ends
 * (releaseNext, in the same batch as its end); this is only the latest it is looked at anyway.
 * Looked at every few seconds instead, held-back deliveries took the attempt slots from the
 * deliveries that could go: one failed POST on a subject of 50 events held them for minutes.
 */
const BLOCKED_RECHECK_MS = 60_000;

export type DeliveryState = 'pending' | 'delivered' | 'dead';

export interface DeliveryAttempt {
  /** 1-based over the delivery's whole life. */
  n: number;
  at: string;
  /** HTTP status, when a response arrived. */
  status?: number;
  error?: string;
  durationMs: number;
}

export interface WebhookDelivery {
  /** `<eventId>:<subscriptionId>`. */
  id: string;
  eventId: string;
  subscriptionId: string;
  url: string;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  /** Attempts before this index belong to earlier rounds (redeliver() starts a new round). */
  roundStart: number;
  /** Epoch ms of the next attempt while pending. */
  nextAttemptAt?: number;
  /** `<tenant>/<subject>` and the event's sequence in it: deliveries of one subject go out in order. */
  subjectKey?: string;
  sequence?: number;
  createdAt: string;
  deliveredAt?: string;
  deadAt?: string;
  lastError?: string;
}

export interface StoredWebhookEvent {
  id: string;
  tenantId?: string;
  envelope: WebhookEnvelope;
  /** The exact bytes sent on every attempt (signatures cover them); empty until numbered. */
  body: string;
  createdAt: string;
  /** `<tenant>/<subject>` while the event waits for its sequence number (as stored: always, for events written once). */
  unsequenced?: string;
}

/**
 * The event as readers see it: numbered `n` (NUMBERS), with its envelope carrying the number and
 * the body made from it; as stored when it is not numbered yet or was stored numbered.
 */
export function numberedEvent(stored: StoredWebhookEvent, n: number | undefined): StoredWebhookEvent {
  if (stored.unsequenced === undefined || n === undefined) return stored;
  const envelope: WebhookEnvelope = { ...stored.envelope, sequence: n };
  const { unsequenced: _u, ...rest } = stored;
  return { ...rest, envelope, body: JSON.stringify(envelope) };
}

/** pino-compatible. */
export interface DispatcherLogger {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

export interface DispatcherOptions {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  /** Default: a fetch whose every connection is checked by the webhook policy after name resolution. */
  fetch?: typeof fetch;
  /** Resolves subscriber host names (default the system resolver); every address is checked. */
  resolveHost?: HostResolver;
  backoff?: Partial<BackoffOptions>;
  /** In [0, 1); injected for deterministic jitter. */
  random?: () => number;
  logger?: DispatcherLogger;
  /** Poll interval of start()'s loop. */
  pollMs?: number;
  /** Per-attempt HTTP timeout. */
  timeoutMs?: number;
  /** Deliveries attempted in parallel. */
  concurrency?: number;
  onDelivered?: (d: WebhookDelivery) => void;
  onDead?: (d: WebhookDelivery) => void;
}

/** An event ready to be written with a caller's own batch (WebhookDispatcher.prepare). */
export interface PreparedWebhookEvent {
  eventId: string;
  ops: BatchOp[];
  /** Call after the batch with `ops` was written. */
  commit(): void;
}

export interface DispatcherEvents {
  delivered: [WebhookDelivery];
  retry: [WebhookDelivery];
  dead: [WebhookDelivery];
}

export interface WebhookDispatcher {
  subscribe(input: SubscriptionInput): Promise<WebhookSubscription>;
  unsubscribe(id: string): Promise<boolean>;
  list(): Promise<WebhookSubscription[]>;
  /** Full CRUD on subscriptions (admin API). */
  readonly subscriptions: SubscriptionRepo;
  /** Durably queues the event for every matching subscription; resolves with the event id (= webhook-id). */
  emit(event: WebhookEventInput): Promise<string>;
  /**
   * The store writes emit() would make, without making them (outbox pattern): the caller puts
   * `ops` in the same store batch as the state change the event reports, then calls `commit()`
   * (which only starts delivery early; the delivery loop finds the event anyway).
   */
  prepare(event: WebhookEventInput): Promise<PreparedWebhookEvent>;
  /** Attempts every delivery due now; resolves with the number of attempts made. */
  deliverDue(): Promise<number>;
  start(): void;
  /** Stops the loop and waits for a running pass to finish. */
  stop(): Promise<void>;
  /** Deliveries of one event, one per subscription, with their attempts. */
  attempts(eventId: string): Promise<WebhookDelivery[]>;
  deliveries(filter?: { state?: DeliveryState; limit?: number }): Promise<WebhookDelivery[]>;
  getEvent(eventId: string): Promise<StoredWebhookEvent | undefined>;
  /**
   * The events of one subject of a tenant (`user:<id>`, `workflow:<id>`, `tenant`: events.ts
   * subjectOf) in their sequence order, each state change they report with its occurredAt.
   */
  subjectEvents(tenantId: string | undefined, subject: string): Promise<StoredWebhookEvent[]>;
  /** Puts a dead (or delivered) delivery back in the queue with a fresh attempt budget. */
  redeliver(deliveryId: string): Promise<WebhookDelivery>;
  on<K extends keyof DispatcherEvents>(name: K, listener: (...args: DispatcherEvents[K]) => void): void;
  off<K extends keyof DispatcherEvents>(name: K, listener: (...args: DispatcherEvents[K]) => void): void;
}

const dueKey = (ms: number, deliveryId: string) => `${timeKey(ms)}|${deliveryId}`;

export function createWebhookDispatcher(options: DispatcherOptions): WebhookDispatcher {
  const { store, clock, ids } = options;
  const doFetch = options.fetch ?? endpointFetch(() => WEBHOOK_ENDPOINT_POLICY, options.resolveHost);
  const backoff: BackoffOptions = { ...DEFAULT_BACKOFF, ...options.backoff };
  const random = options.random ?? Math.random;
  const pollMs = options.pollMs ?? 1_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const events = store.collection<StoredWebhookEvent>(EVENTS);
  const deliveries = store.collection<WebhookDelivery>(DELIVERIES);
  const due = store.collection<string>(DUE);
  const subs = subscriptionRepo({ store, clock, ids, ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}) });
  const emitter = new EventEmitter();
  if (options.onDelivered) emitter.on('delivered', options.onDelivered);
  if (options.onDead) emitter.on('dead', options.onDead);

  const sequences = store.collection<string>(SEQUENCES);
  const order = store.collection<string>(ORDER);
  const unsequenced = store.collection<string>(UNSEQUENCED);
  const numbers = store.collection<number>(NUMBERS);
  /** The event as readers see it (numberedEvent); `n`, when the caller knows the number (a delivery's sequence). */
  async function readEvent(eventId: string, n?: number): Promise<StoredWebhookEvent | undefined> {
    const stored = await events.get(eventId);
    if (!stored || stored.unsequenced === undefined) return stored;
    return numberedEvent(stored, n ?? (await numbers.get(eventId)));
  }
  // Sequence numbers per subject: the last one stored (kept once read), numbered under the subject's lock.
  const seqLock = keyedLock();
  const lastSeq = new Map<string, number>();
  const seqKey = (prefix: string, n: number) => `${prefix}|${String(n).padStart(12, '0')}`;
  async function lastSequence(subjectKey: string): Promise<number> {
    const known = lastSeq.get(subjectKey);
    if (known !== undefined) return known;
    const [top] = await sequences.list({ prefix: `${subjectKey}|`, reverse: true, limit: 1 });
    return top ? Number(top.key.slice(top.key.lastIndexOf('|') + 1)) : 0;
  }

  /**
   * Per subscription and subject, deliveries go out in sequence order: a delivery waits while an
   * earlier one of its subject is still pending (docs/service.md "Ordering"). Resolves with the
   * delivery it waits for, if any.
   */
  async function waitingFor(d: WebhookDelivery): Promise<string | undefined> {
    if (d.subjectKey === undefined || d.sequence === undefined) return undefined;
    const [first] = await order.list({ prefix: `${d.subscriptionId}|${d.subjectKey}|`, limit: 1 });
    return first && first.value !== d.id && first.key < seqKey(`${d.subscriptionId}|${d.subjectKey}`, d.sequence) ? first.value : undefined;
  }

  /** A delivery ended (delivered or dead): its subject's next one may go now. */
  async function releaseNext(d: WebhookDelivery, ops: BatchOp[]): Promise<void> {
    if (d.subjectKey === undefined || d.sequence === undefined) return;
    ops.push({ type: 'del', collection: ORDER, key: seqKey(`${d.subscriptionId}|${d.subjectKey}`, d.sequence) });
    const [first, second] = await order.list({ prefix: `${d.subscriptionId}|${d.subjectKey}|`, limit: 2 });
    const next = first && first.value !== d.id ? first : second;
    if (next) ops.push({ type: 'put', collection: DUE, key: dueKey(clock.now(), next.value), value: next.value });
  }

  let timer: NodeJS.Timeout | undefined;
  let running = false;
  // Passes run one after another so no delivery is attempted twice at once.
  let chain: Promise<unknown> = Promise.resolve();
  const iso = (ms: number) => new Date(ms).toISOString();

  async function prepare(input: WebhookEventInput): Promise<PreparedWebhookEvent> {
    if (!input || typeof input.type !== 'string' || !input.type || typeof input.event !== 'string' || !input.event) {
      throw new IdsyncError('invalid_request', 'a webhook event needs a type and an event name');
    }
    const now = clock.now();
    const id = ids();
    const subject = subjectOf(toEnvelope(input));
    const subjectKey = `${input.tenantId ?? ''}/${subject}`;
    // Numbered (sequence 0 here) once the caller's batch is stored: see the top of this file.
    const envelope = orderedEnvelope(input, { occurredAt: iso(now), subject, sequence: 0 });
    const record: StoredWebhookEvent = { id, envelope, body: '', createdAt: iso(now), unsequenced: subjectKey };
    if (input.tenantId !== undefined) record.tenantId = input.tenantId;
    const ops: BatchOp[] = [
      { type: 'put', collection: EVENTS, key: id, value: record },
      { type: 'put', collection: UNSEQUENCED, key: `${timeKey(now)}|${id}`, value: id },
    ];
    return {
      eventId: id,
      ops,
      commit() {
        void sequence(`${timeKey(now)}|${id}`, id, record)
          .then((targets) => {
            if (running && targets > 0) void deliverDue().catch(() => {});
          })
          .catch((err) => options.logger?.warn({ err, eventId: id }, 'webhook event not numbered yet; the next pass numbers it'));
      },
    };
  }

  /**
   * Numbers a stored event in its subject and makes its deliveries, in one batch, under the
   * subject's lock; a no-op for an event already numbered or not stored (its index entry under
   * UNSEQUENCED, written with it and deleted by this batch, says which). Resolves with how many
   * deliveries it made. `known`: the event as stored, when the caller made it (else it is read).
   */
  async function sequence(indexKey: string, eventId: string, known?: StoredWebhookEvent): Promise<number> {
    const rec = known ?? (await events.get(eventId));
    const subjectKey = rec?.unsequenced;
    if (!rec || !subjectKey) return 0;
    return seqLock(subjectKey, async () => {
      if ((await unsequenced.get(indexKey)) === undefined) return 0;
      const n = (await lastSequence(subjectKey)) + 1;
      const envelope: WebhookEnvelope = { ...rec.envelope, sequence: n };
      const now = clock.now();
      const targets = (await subs.list()).filter(
        (s) => s.enabled && (s.tenantId === undefined || s.tenantId === rec.tenantId) && matchesFilter(s.events, envelope),
      );
      // The event itself is not written again: its number goes apart (see the top of this file).
      const ops: BatchOp[] = [
        { type: 'put', collection: NUMBERS, key: eventId, value: n },
        { type: 'put', collection: SEQUENCES, key: seqKey(subjectKey, n), value: eventId },
        { type: 'del', collection: UNSEQUENCED, key: indexKey },
      ];
      for (const s of targets) {
        const d: WebhookDelivery = {
          id: `${eventId}:${s.id}`, eventId, subscriptionId: s.id, url: s.url, state: 'pending', attempts: [], roundStart: 0,
          nextAttemptAt: now, subjectKey, sequence: n, createdAt: rec.createdAt,
        };
        ops.push({ type: 'put', collection: DELIVERIES, key: d.id, value: d });
        ops.push({ type: 'put', collection: DUE, key: dueKey(now, d.id), value: d.id });
        ops.push({ type: 'put', collection: ORDER, key: seqKey(`${s.id}|${subjectKey}`, n), value: d.id });
      }
      await store.batch(ops);
      lastSeq.set(subjectKey, n);
      return targets.length;
    });
  }

  /** Numbers every stored event still waiting for it, oldest first (after a crash, or a commit not called). */
  async function sequencePending(): Promise<void> {
    for (const { key, value } of await unsequenced.list()) await sequence(key, value);
  }

  async function emit(input: WebhookEventInput): Promise<string> {
    const prepared = await prepare(input);
    await store.batch(prepared.ops);
    const [op] = prepared.ops.filter((o) => o.collection === UNSEQUENCED);
    const [event] = prepared.ops.filter((o) => o.collection === EVENTS) as Array<{ value: StoredWebhookEvent }>;
    const targets = await sequence(op!.key, prepared.eventId, event?.value);
    if (running && targets > 0) void deliverDue().catch(() => {});
    return prepared.eventId;
  }

  async function post(url: string, headers: Record<string, string>, body: string): Promise<{ status?: number; error?: string; refused?: string }> {
    try {
      const res = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'idsync-webhooks/1', ...headers },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      await res.body?.cancel().catch(() => {});
      return { status: res.status };
    } catch (err) {
      // The URL's host resolved to an address the webhook policy refuses (connect-guard.ts).
      if (isIdsyncError(err) && err.code === ENDPOINT_REFUSED) return { error: ENDPOINT_REFUSED, refused: String(err.details?.reason ?? err.message) };
      const cause = (err as { cause?: { code?: string } })?.cause?.code;
      return { error: cause ?? (err as Error)?.name ?? 'network_error' };
    }
  }

  /**
   * One attempt of a delivery, from its due key `key`; runs with the delivery marked under way
   * (startAttempt), so no other attempt of it runs meanwhile and any earlier one has written its
   * end. Only attempts delete a delivery's due keys.
   */
  async function attempt(key: string, deliveryId: string): Promise<boolean> {
    // The listing `key` came from may be older than an attempt that ended since and took it
    // (rescheduled: its retry waits for its own key; or delivered, or dead). Attempted again from
    // the old key, a failing delivery was retried at once, before its back-off, and its new key
    // stayed too: a second attempt at every retry after that (docs/service.md "Delivery and retries").
    if ((await due.get(key)) === undefined) return false;
    const d = await deliveries.get(deliveryId);
    if (!d || d.state !== 'pending') {
      await due.del(key);
      return false;
    }
    const now = clock.now();
    const ev = await readEvent(d.eventId, d.sequence);
    const sub = await subs.get(d.subscriptionId);
    const next: WebhookDelivery = { ...d, attempts: [...d.attempts] };
    const ops: BatchOp[] = [{ type: 'del', collection: DUE, key }];
    // A held-back delivery goes from the key its subject's previous one made when it ended
    // (releaseNext), while the key it was held back to (its nextAttemptAt) is still there: that
    // one goes with this attempt too, or it would start a retry before its back-off ended.
    const own = d.nextAttemptAt !== undefined ? dueKey(d.nextAttemptAt, d.id) : undefined;
    if (own !== undefined && own !== key) ops.push({ type: 'del', collection: DUE, key: own });
    // A URL stored before link-local and metadata hosts were refused is not called either.
    const refused = sub ? endpointRefusal(sub.url, WEBHOOK_ENDPOINT_POLICY) : undefined;
    if (!ev || !sub || !sub.enabled || refused) {
      next.state = 'dead';
      next.deadAt = iso(now);
      next.lastError = !ev ? 'event missing' : !sub ? 'subscription removed' : !sub.enabled ? 'subscription disabled' : `url refused: ${refused}`;
      delete next.nextAttemptAt;
      ops.push({ type: 'put', collection: DELIVERIES, key: d.id, value: next });
      await releaseNext(d, ops);
      await store.batch(ops);
      emitter.emit('dead', next);
      return false;
    }
    // An earlier event of this subject is still being delivered (or retried): this one waits for
    // it, so a receiver gets each subject's events in order. Not an attempt.
    if (await waitingFor(d)) {
      const later = now + BLOCKED_RECHECK_MS;
      await store.batch([...ops, { type: 'put', collection: DUE, key: dueKey(later, d.id), value: d.id }, { type: 'put', collection: DELIVERIES, key: d.id, value: { ...d, nextAttemptAt: later } }]);
      return false;
    }
    const started = performance.now();
    const result = await post(sub.url, { ...webhookHeaders(sub.secret, ev.id, Math.floor(now / 1000), ev.body) }, ev.body);
    const a: DeliveryAttempt = { n: d.attempts.length + 1, at: iso(now), durationMs: Math.round(performance.now() - started) };
    if (result.status !== undefined) a.status = result.status;
    if (result.error !== undefined) a.error = result.error;
    next.attempts.push(a);
    next.url = sub.url;
    const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
    let signal: keyof DispatcherEvents;
    if (ok) {
      next.state = 'delivered';
      next.deliveredAt = iso(now);
      delete next.nextAttemptAt;
      delete next.lastError;
      signal = 'delivered';
    } else {
      next.lastError = result.refused ? `url refused: ${result.refused}` : (result.error ?? `HTTP ${result.status}`);
      const failed = next.attempts.length - next.roundStart;
      // A refused address is not retried: the host name leads where webhooks never go.
      if (failed >= backoff.maxAttempts || result.refused) {
        next.state = 'dead';
        next.deadAt = iso(now);
        delete next.nextAttemptAt;
        signal = 'dead';
      } else {
        next.nextAttemptAt = now + backoffDelay(failed, backoff, random);
        ops.push({ type: 'put', collection: DUE, key: dueKey(next.nextAttemptAt, d.id), value: d.id });
        signal = 'retry';
      }
      options.logger?.warn({ eventId: d.eventId, subscriptionId: d.subscriptionId, attempt: a.n, status: a.status, error: a.error }, `webhook delivery failed (${signal})`);
    }
    ops.push({ type: 'put', collection: DELIVERIES, key: d.id, value: next });
    if (next.state !== 'pending') await releaseNext(d, ops);
    await store.batch(ops);
    emitter.emit(signal, next);
    return true;
  }

  // Attempts under way, by delivery id. A pass starts what is due without waiting for attempts
  // started before: one subscriber that never answers (each attempt then takes the whole
  // timeout) held every other subscriber's deliveries behind it, a chunk at a time. Each
  // subscription has at most `perSubscription` attempts under way, so it cannot take all of them.
  const underway = new Map<string, { subscriptionId: string; done: Promise<boolean> }>();
  const perSubscription = Math.max(1, Math.floor(concurrency / 2));
  // Delivery ids are `<event id>:<subscription id>`; event ids hold no ':'.
  const subscriptionOf = (deliveryId: string) => deliveryId.slice(deliveryId.indexOf(':') + 1);

  function startAttempt(key: string, deliveryId: string): Promise<boolean> {
    const done = attempt(key, deliveryId)
      .catch((err) => {
        options.logger?.error({ err, deliveryId }, 'webhook delivery pass failed');
        return false;
      })
      .finally(() => {
        underway.delete(deliveryId);
        // A place is free, and the attempt may have released its subject's next delivery: start
        // what is due now, not at the loop's next tick ("goes at once when that one is delivered").
        if (running) void startDue().catch((err) => options.logger?.error({ err }, 'webhook delivery loop failed'));
      });
    underway.set(deliveryId, { subscriptionId: subscriptionOf(deliveryId), done });
    return done;
  }

  /** Starts the due deliveries the limits allow; resolves with the attempts it started (not their end). */
  async function startDue(): Promise<Promise<boolean>[]> {
    await sequencePending();
    // Keys sort by due time; everything strictly before `now + 1 ms` is due.
    const list = await due.list({ lt: timeKey(clock.now() + 1) });
    const bySubscription = new Map<string, number>();
    for (const u of underway.values()) bySubscription.set(u.subscriptionId, (bySubscription.get(u.subscriptionId) ?? 0) + 1);
    const started: Promise<boolean>[] = [];
    // Checked and marked with no await in between: two passes never start one delivery twice.
    for (const e of list) {
      if (underway.size >= concurrency) break;
      if (underway.has(e.value)) continue;
      const sub = subscriptionOf(e.value);
      const n = bySubscription.get(sub) ?? 0;
      if (n >= perSubscription) continue;
      bySubscription.set(sub, n + 1);
      started.push(startAttempt(e.key, e.value));
    }
    return started;
  }

  /** Delivers what is due now, as many rounds as it takes, each attempt started as soon as a place is free. */
  async function pass(): Promise<number> {
    let made = 0;
    const mine = new Set<Promise<boolean>>();
    for (;;) {
      for (const p of await startDue()) {
        mine.add(p);
        void p.then((ok) => {
          if (ok) made++;
          mine.delete(p);
        });
      }
      if (mine.size === 0) return made;
      await Promise.race(mine);
      // Let the finished attempt's own bookkeeping (made, mine) run before looking again.
      await Promise.resolve();
    }
  }

  function deliverDue(): Promise<number> {
    const p = chain.then(pass, pass);
    chain = p.catch(() => {});
    return p;
  }

  function schedule(): void {
    if (!running) return;
    timer = setTimeout(() => {
      // The loop starts what is due and goes on: attempts under way finish in their own time.
      startDue()
        .catch((err) => options.logger?.error({ err }, 'webhook delivery loop failed'))
        .finally(schedule);
    }, pollMs);
    timer.unref();
  }

  return {
    subscribe: (input) => subs.create(input),
    unsubscribe: (id) => subs.remove(id),
    list: () => subs.list(),
    subscriptions: subs,
    emit,
    prepare,
    deliverDue,
    start() {
      if (running) return;
      running = true;
      void deliverDue().catch(() => {});
      schedule();
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await chain;
      await Promise.allSettled([...underway.values()].map((u) => u.done));
    },
    async attempts(eventId) {
      return (await deliveries.list({ prefix: `${eventId}:` })).map((e) => e.value);
    },
    async deliveries(filter = {}) {
      const all = (await deliveries.list()).map((e) => e.value).filter((d) => !filter.state || d.state === filter.state);
      all.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      return filter.limit ? all.slice(0, filter.limit) : all;
    },
    getEvent: (eventId) => readEvent(eventId),
    async subjectEvents(tenantId, subject) {
      const ids = await sequences.list({ prefix: `${tenantId ?? ''}/${subject}|` });
      const found = await Promise.all(ids.map((e) => readEvent(e.value, Number(e.key.slice(e.key.lastIndexOf('|') + 1)))));
      return found.filter((e): e is StoredWebhookEvent => e !== undefined);
    },
    async redeliver(deliveryId) {
      const d = await deliveries.get(deliveryId);
      if (!d) throw new IdsyncError('not_found', `no webhook delivery ${deliveryId}`);
      if (d.state === 'pending') return d;
      const now = clock.now();
      const next: WebhookDelivery = { ...d, state: 'pending', roundStart: d.attempts.length, nextAttemptAt: now };
      delete next.deadAt;
      await store.batch([
        { type: 'put', collection: DELIVERIES, key: d.id, value: next },
        { type: 'put', collection: DUE, key: dueKey(now, d.id), value: d.id },
        // Held in its subject's order again: it waits for an earlier delivery still pending, and a
        // later one not delivered yet waits for it.
        ...(d.subjectKey !== undefined && d.sequence !== undefined ? [{ type: 'put' as const, collection: ORDER, key: seqKey(`${d.subscriptionId}|${d.subjectKey}`, d.sequence), value: d.id }] : []),
      ]);
      if (running) void deliverDue().catch(() => {});
      return next;
    },
    on: (name, listener) => void emitter.on(name, listener as (...a: unknown[]) => void),
    off: (name, listener) => void emitter.off(name, listener as (...a: unknown[]) => void),
  };
}
