// The mediator's durable message queue (Message Pickup 3.0: the mediator holds messages for a
// recipient until it collects them and says so with messages-received). One key range per
// recipient DID (ion short form, so long and short forms share a queue); keys sort by queueing
// time so deliveries come oldest first. A message is written before its sender is answered, and
// removed (all ids of one messages-received in one batch) only when the recipient confirms it.
//
// Bounded: a message not collected within `ttlMs` (default 30 days, by the injected clock) is no
// longer listed, counted or delivered, and is deleted by prune() or the next look at that
// recipient's queue; a recipient holds at most `maxPerRecipient` messages (default 1000): one
// more is refused with 'queue_full' (the oldest are kept, so a recipient collects in order and
// nothing it already saw a count of disappears). A message may also carry its own end
// (`expiresAt`, a forward's expires_time) and a time before which it is held back (`notBefore`,
// a forward's delay_milli); both are read with the same clock.
import { ionShortForm } from '../did/ion-form.js';
import type { Clock, IdGenerator } from '../clock.js';
import { IdsyncError } from '../errors.js';
import type { Store } from '../store/store.js';
import { timeKey } from '../store/time-key.js';

export const DEFAULT_QUEUE_TTL_MS = 30 * 24 * 3600 * 1000;
export const DEFAULT_QUEUE_MAX_PER_RECIPIENT = 1000;
/** The collection of a queue nobody named (the standalone mediator's). */
export const DEFAULT_QUEUE_COLLECTION = 'med-queue';

export interface QueueOptions {
  /** How long a message waits for pickup (default 30 days). */
  ttlMs?: number;
  /** Messages one recipient may have waiting (default 1000). */
  maxPerRecipient?: number;
  /** The store collection (default 'med-queue'; the service twin keeps its own name). */
  collection?: string;
}

export interface QueueMeta {
  /** The plaintext's id, thread and type (for logs and tests; the packed message stays opaque). */
  messageId?: string;
  thid?: string;
  type?: string;
  /** Not listed, counted or delivered after this time (ms). */
  expiresAt?: number;
  /** Not listed, counted or delivered before this time (ms). */
  notBefore?: number;
}

export interface QueuedMessage extends QueueMeta {
  /** Queue id: the attachment id in a pickup `delivery`, echoed back in `messages-received`. */
  id: string;
  recipient: string;
  packed: string;
  queuedAt: string;
}

export interface MessageQueue {
  enqueue(recipient: string, packed: string, meta?: QueueMeta): Promise<QueuedMessage>;
  /** Oldest first, at most `limit`: the messages deliverable now. */
  list(recipient: string, limit?: number): Promise<QueuedMessage[]>;
  /** One message by queue id while it waits (not collected, removed or past its end). */
  get(recipient: string, id: string): Promise<QueuedMessage | undefined>;
  count(recipient: string): Promise<number>;
  /** Removes the given queue ids of this recipient in one write; unknown ids are ignored. Returns how many went. */
  remove(recipient: string, ids: string[]): Promise<number>;
  /** Recipients with at least one queued message. */
  recipients(): Promise<string[]>;
  /** Deletes every message older than the TTL or past its own end; resolves with how many went. */
  prune(): Promise<number>;
}

const validId = (id: unknown): id is string => typeof id === 'string' && id.length > 0 && !id.includes('/');

export function messageQueue(deps: { store: Store; clock: Clock; ids: IdGenerator }, options: QueueOptions = {}): MessageQueue {
  const name = options.collection ?? DEFAULT_QUEUE_COLLECTION;
  const col = deps.store.collection<QueuedMessage>(name);
  const ttl = options.ttlMs ?? DEFAULT_QUEUE_TTL_MS;
  const max = options.maxPerRecipient ?? DEFAULT_QUEUE_MAX_PER_RECIPIENT;
  const prefix = (recipient: string) => `${ionShortForm(recipient)}/`;
  /** Keys of `recipient` at or after this one are still alive (key = prefix + queueing time). */
  const liveFrom = (recipient: string) => prefix(recipient) + timeKey(deps.clock.now() - ttl);
  const live = (recipient: string) => ({ prefix: prefix(recipient), gte: liveFrom(recipient) });
  const ended = (e: QueuedMessage, now: number) => e.expiresAt !== undefined && e.expiresAt <= now;
  const due = (e: QueuedMessage, now: number) => !ended(e, now) && (e.notBefore === undefined || e.notBefore <= now);
  // Within one millisecond, a counter keeps arrival order.
  let last = 0;
  let seq = 0;

  /** Deletes `recipient`'s messages past the TTL (they sort first) or past their own end, in one batch. */
  async function expire(recipient: string): Promise<void> {
    const now = deps.clock.now();
    const old = await col.list({ prefix: prefix(recipient), lt: liveFrom(recipient) });
    const gone = (await col.list(live(recipient))).filter((e) => ended(e.value, now));
    const keys = [...old, ...gone].map((e) => e.key);
    if (keys.length) await deps.store.batch(keys.map((key) => ({ type: 'del', collection: name, key })));
  }

  /** `recipient`'s deliverable messages, what has expired deleted on the way: the live range is read once. */
  async function current(recipient: string): Promise<QueuedMessage[]> {
    const now = deps.clock.now();
    const old = await col.list({ prefix: prefix(recipient), lt: liveFrom(recipient) });
    const alive = await col.list(live(recipient));
    const keys = [...old, ...alive.filter((e) => ended(e.value, now))].map((e) => e.key);
    if (keys.length) await deps.store.batch(keys.map((key) => ({ type: 'del', collection: name, key })));
    return alive.map((e) => e.value).filter((e) => due(e, now));
  }

  return {
    async enqueue(recipient, packed, meta = {}) {
      // The same message again (a sender retrying an unanswered send) waits once.
      let waiting: number | undefined;
      if (meta.messageId !== undefined) {
        const entries = await col.list(live(recipient));
        const same = entries.find((e) => e.value.messageId === meta.messageId);
        if (same) return same.value;
        waiting = entries.length;
      }
      if ((waiting ?? (await col.count(live(recipient)))) >= max) {
        await expire(recipient);
        if ((await col.count(live(recipient))) >= max) {
          throw new IdsyncError('queue_full', `${max} messages are already waiting for this recipient`, { details: { max } });
        }
      }
      const now = deps.clock.now();
      seq = now === last ? seq + 1 : 0;
      last = now;
      // Queue ids are URL- and key-safe, and sort by arrival across recipients: time, sequence, random part.
      const id = `${timeKey(now)}-${String(seq).padStart(4, '0')}-${deps.ids().replace(/[^A-Za-z0-9-]/g, '')}`;
      const entry: QueuedMessage = { id, recipient: ionShortForm(recipient), packed, queuedAt: new Date(now).toISOString(), ...meta };
      for (const k of Object.keys(entry) as Array<keyof QueuedMessage>) if (entry[k] === undefined) delete entry[k];
      await col.put(prefix(recipient) + id, entry);
      return entry;
    },
    async list(recipient, limit) {
      const all = await current(recipient);
      return limit === undefined ? all : all.slice(0, limit);
    },
    async get(recipient, id) {
      if (!validId(id)) return undefined;
      const entry = await col.get(prefix(recipient) + id);
      const now = deps.clock.now();
      if (!entry || Date.parse(entry.queuedAt) < now - ttl || !due(entry, now)) return undefined;
      return entry;
    },
    async count(recipient) {
      const now = deps.clock.now();
      return (await col.list(live(recipient))).filter((e) => due(e.value, now)).length;
    },
    async remove(recipient, ids) {
      const keys: string[] = [];
      for (const id of new Set(ids)) {
        if (!validId(id)) continue;
        const key = prefix(recipient) + id;
        if ((await col.get(key)) !== undefined) keys.push(key);
      }
      // One write: a crash leaves either every confirmed message or none of them.
      if (keys.length) await deps.store.batch(keys.map((key) => ({ type: 'del', collection: name, key })));
      return keys.length;
    },
    async recipients() {
      const out = new Set<string>();
      const now = deps.clock.now();
      const cutoff = now - ttl;
      for (const e of await col.list()) if (Date.parse(e.value.queuedAt) >= cutoff && !ended(e.value, now)) out.add(e.value.recipient);
      return [...out];
    },
    async prune() {
      const now = deps.clock.now();
      const cutoff = now - ttl;
      const keys = (await col.list()).filter((e) => Date.parse(e.value.queuedAt) < cutoff || ended(e.value, now)).map((e) => e.key);
      if (keys.length) await deps.store.batch(keys.map((key) => ({ type: 'del', collection: name, key })));
      return keys.length;
    },
  };
}
