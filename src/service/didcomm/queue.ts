// The mediator's durable message queue (Message Pickup 3.0: the mediator holds messages for a
// recipient until it collects them). One key range per recipient DID (ion short form, so long
// and short forms share a queue); keys sort by queueing time so deliveries come oldest first.
import { ionShortForm } from '../../did/ion-form.js';
import type { Clock, IdGenerator } from '../../clock.js';
import type { Store } from '../../store/store.js';
import { COLLECTIONS } from './core.js';

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
  count(recipient: string): Promise<number>;
  /** Removes the given queue ids of this recipient; unknown ids are ignored. Returns how many went. */
  remove(recipient: string, ids: string[]): Promise<number>;
  /** Recipients with at least one queued message. */
  recipients(): Promise<string[]>;
}

const pad = (n: number): string => String(n).padStart(15, '0');

export function messageQueue(deps: { store: Store; clock: Clock; ids: IdGenerator }): MessageQueue {
  const col = deps.store.collection<QueuedMessage>(COLLECTIONS.queue);
  const prefix = (recipient: string) => `${ionShortForm(recipient)}/`;
  // Within one millisecond, a counter keeps arrival order.
  let last = 0;
  let seq = 0;

  return {
    async enqueue(recipient, packed, meta = {}) {
      const now = deps.clock.now();
      seq = now === last ? seq + 1 : 0;
      last = now;
      // Queue ids are URL- and key-safe: time, sequence, random part.
      const id = `${pad(now)}-${String(seq).padStart(4, '0')}-${deps.ids().replace(/[^A-Za-z0-9-]/g, '')}`;
      const entry: QueuedMessage = { id, recipient: ionShortForm(recipient), packed, queuedAt: new Date(now).toISOString(), ...meta };
      await col.put(prefix(recipient) + id, entry);
      return entry;
    },
    async list(recipient, limit) {
      return (await col.list({ prefix: prefix(recipient), ...(limit !== undefined ? { limit } : {}) })).map((e) => e.value);
    },
    count: (recipient) => col.count({ prefix: prefix(recipient) }),
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
      for (const e of await col.list()) out.add(e.value.recipient);
      return [...out];
    },
  };
}
