// The mediator's durable message queue (Message Pickup 3.0: the mediator holds messages for a
// recipient until it collects them). One key range per recipient DID (ion short form, so long
// and short forms share a queue); keys sort by queueing time so deliveries come oldest first.
//
// Bounded (docs/service.md "Limits"): a message not collected within `ttlMs` (default 30 days,
// by the injected clock) is no longer listed, counted or delivered, and is deleted by prune()
// or the next look at that recipient's queue; a recipient holds at most `maxPerRecipient`
// messages (default 1000): one more is refused with 'queue_full' (the oldest are kept, so a
// wallet collects in order and nothing it already saw a count of disappears).
import { ionShortForm } from '../../did/ion-form.js';
import type { Clock, IdGenerator } from '../../clock.js';
import { IdsyncError } from '../../errors.js';
import type { Store } from '../../store/store.js';
import { COLLECTIONS } from './collections.js';
import { timeKey } from '../../store/time-key.js';

export const DEFAULT_QUEUE_TTL_MS = 30 * 24 * 3600 * 1000;
export const DEFAULT_QUEUE_MAX_PER_RECIPIENT = 1000;

export interface QueueOptions {
  /** How long a message waits for pickup (default 30 days). */
  ttlMs?: number;
  /** Messages one recipient may have waiting (default 1000). */
  maxPerRecipient?: number;
}

export interface QueuedMessage {
  /** Queue id: the attachment id in a pickup `delivery`, echoed back in `messages-received`. */
  id: string;
  recipient: string;
  packed: string;
  /** The plaintext's id, thread and type (for logs and tests; the packed message stays opaque). */
  messageId?: string;
  thid?: string;
  type?: string;
  queuedAt: string;
}

export interface MessageQueue {
  enqueue(recipient: string, packed: string, meta?: { messageId?: string; thid?: string; type?: string }): Promise<QueuedMessage>;
  /** Oldest first, at most `limit`. */
  list(recipient: string, limit?: number): Promise<QueuedMessage[]>;
  /** One message by queue id while it waits (not collected, removed or past the TTL). */
  get(recipient: string, id: string): Promise<QueuedMessage | undefined>;
  count(recipient: string): Promise<number>;
  /** Removes the given queue ids of this recipient; unknown ids are ignored. Returns how many went. */
  remove(recipient: string, ids: string[]): Promise<number>;
  /** Recipients with at least one queued message. */
  recipients(): Promise<string[]>;
  /** Deletes every message older than the TTL; resolves with how many went. */
  prune(): Promise<number>;
}


export function messageQueue(deps: { store: Store; clock: Clock; ids: IdGenerator }, options: QueueOptions = {}): MessageQueue {
  const col = deps.store.collection<QueuedMessage>(COLLECTIONS.queue);
  const ttl = options.ttlMs ?? DEFAULT_QUEUE_TTL_MS;
  const max = options.maxPerRecipient ?? DEFAULT_QUEUE_MAX_PER_RECIPIENT;
  const prefix = (recipient: string) => `${ionShortForm(recipient)}/`;
  /** Keys of `recipient` at or after this one are still alive (key = prefix + queueing time). */
  const liveFrom = (recipient: string) => prefix(recipient) + timeKey(deps.clock.now() - ttl);
  const live = (recipient: string) => ({ prefix: prefix(recipient), gte: liveFrom(recipient) });
  // Within one millisecond, a counter keeps arrival order.
  let last = 0;
  let seq = 0;

  /** Deletes `recipient`'s expired messages (they sort first). */
  async function expire(recipient: string): Promise<number> {
    const old = await col.list({ prefix: prefix(recipient), lt: liveFrom(recipient) });
    for (const e of old) await col.del(e.key);
    return old.length;
  }

  return {
    async enqueue(recipient, packed, meta = {}) {
      if ((await col.count(live(recipient))) >= max) {
        await expire(recipient);
        throw new IdsyncError('queue_full', `${max} messages are already waiting for this recipient`, { details: { max } });
      }
      // The same message again (a retry of an unanswered step, router/steps) waits once.
      if (meta.messageId !== undefined) {
        const same = (await col.list(live(recipient))).find((e) => e.value.messageId === meta.messageId);
        if (same) return same.value;
      }
      const now = deps.clock.now();
      seq = now === last ? seq + 1 : 0;
      last = now;
      // Queue ids are URL- and key-safe: time, sequence, random part.
      const id = `${timeKey(now)}-${String(seq).padStart(4, '0')}-${deps.ids().replace(/[^A-Za-z0-9-]/g, '')}`;
      const entry: QueuedMessage = { id, recipient: ionShortForm(recipient), packed, queuedAt: new Date(now).toISOString(), ...meta };
      await col.put(prefix(recipient) + id, entry);
      return entry;
    },
    async list(recipient, limit) {
      await expire(recipient);
      return (await col.list({ ...live(recipient), ...(limit !== undefined ? { limit } : {}) })).map((e) => e.value);
    },
    async get(recipient, id) {
      if (typeof id !== 'string' || id.includes('/')) return undefined;
      const entry = await col.get(prefix(recipient) + id);
      if (!entry || Date.parse(entry.queuedAt) < deps.clock.now() - ttl) return undefined;
      return entry;
    },
    count: (recipient) => col.count(live(recipient)),
    async remove(recipient, ids) {
      let n = 0;
      for (const id of ids) {
        if (typeof id !== 'string' || id.includes('/')) continue;
        const key = prefix(recipient) + id;
        if ((await col.get(key)) === undefined) continue;
        await col.del(key);
        n++;
      }
      return n;
    },
    async recipients() {
      const out = new Set<string>();
      const cutoff = deps.clock.now() - ttl;
      for (const e of await col.list()) if (Date.parse(e.value.queuedAt) >= cutoff) out.add(e.value.recipient);
      return [...out];
    },
    async prune() {
      const cutoff = deps.clock.now() - ttl;
      let n = 0;
      for (const e of await col.list()) {
        if (Date.parse(e.value.queuedAt) < cutoff) {
          await col.del(e.key);
          n++;
        }
      }
      return n;
    },
  };
}
