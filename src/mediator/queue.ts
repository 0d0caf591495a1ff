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
import { shortForm } from '../did/short-form.js';
import type { Clock, IdGenerator } from '../clock.js';
import { IdsyncError } from '../errors.js';
import type { Store } from '../store/store.js';
import { timeKey } from '../store/time-key.js';
import { setBounded } from '../bounded.js';
import { keyedLock } from '../keyed-lock.js';
import { afterReady } from '../store/short-form-moves.js';
import { shortFormQueue } from './short-form-keys.js';

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
  /** The messages deliverable now, oldest first, as their queue ids, times and sizes: none is read from the store. */
  waiting(recipient: string): Promise<QueueSlot[]>;
  /**
   * One message by queue id while it waits (not collected, removed or past its end) and is due;
   * `heldBack: true` also while its delay_milli runs (a timer that waited the delay may fire a
   * millisecond before the clock reaches it).
   */
  get(recipient: string, id: string, options?: { heldBack?: boolean }): Promise<QueuedMessage | undefined>;
  count(recipient: string): Promise<number>;
  /** How many messages are kept for this recipient, due or held back (delay_milli); what has expired is deleted on the way. */
  kept(recipient: string): Promise<number>;
  /**
   * Removes the given queue ids of this recipient (or of these recipients: a party confirming
   * what it collected for several DIDs) in one write; unknown ids are ignored. Returns how many went.
   */
  remove(recipients: string | readonly string[], ids: string[]): Promise<number>;
  /** Recipients with at least one queued message. */
  recipients(): Promise<string[]>;
  /** Deletes every message older than the TTL or past its own end; resolves with how many went. */
  prune(): Promise<number>;
}

/** What the queue holds in memory of one waiting message: enough to find a repeat, count, and describe the queue without reading it. */
export interface QueueSlot {
  /** Queue id (it starts with the queueing time's timeKey, so ids sort by arrival). */
  id: string;
  messageId?: string;
  /** Queueing time (ms). */
  queuedAt: number;
  /** Bytes of the packed message. */
  size: number;
  expiresAt?: number;
  notBefore?: number;
}

const validId = (id: unknown): id is string => typeof id === 'string' && id.length > 0 && !id.includes('/');

// Each recipient's slots, in queue-id order, per store and collection: a cache of what the store
// holds, so that a forward neither lists nor parses the messages already waiting (it did, to find
// a repeat and to count: with 1,000 waiting, 6 ms a forward, and a full queue cost a quadratic
// fill). A recipient's slots come from one listing at its first use and follow every write the
// queue makes; any recipient may be dropped (the bound below), and is listed again when next used.
// Shared by every queue over one store's collection, as the writes are.
interface SlotIndex {
  byRecipient: Map<string, readonly QueueSlot[]>;
  /** Listings under way, by recipient: a write to that recipient meanwhile makes the listing's result too old to keep. */
  loading: Map<string, { dirty: boolean; result: Promise<readonly QueueSlot[]> }>;
}
const slotIndexes = new WeakMap<Store, Map<string, SlotIndex>>();
/** Recipients whose slots are kept at most (each is a few hundred bytes when little waits). */
const INDEXED_RECIPIENTS_MAX = 16_384;

function slotIndexFor(store: Store, collection: string): SlotIndex {
  let byName = slotIndexes.get(store);
  if (!byName) slotIndexes.set(store, (byName = new Map()));
  let index = byName.get(collection);
  if (!index) byName.set(collection, (index = { byRecipient: new Map(), loading: new Map() }));
  return index;
}

function slotOf(e: QueuedMessage): QueueSlot {
  const slot: QueueSlot = { id: e.id, queuedAt: Date.parse(e.queuedAt), size: Buffer.byteLength(e.packed) };
  if (e.messageId !== undefined) slot.messageId = e.messageId;
  if (e.expiresAt !== undefined) slot.expiresAt = e.expiresAt;
  if (e.notBefore !== undefined) slot.notBefore = e.notBefore;
  return slot;
}

export function messageQueue(deps: { store: Store; clock: Clock; ids: IdGenerator }, options: QueueOptions = {}): MessageQueue {
  const name = options.collection ?? DEFAULT_QUEUE_COLLECTION;
  const col = deps.store.collection<QueuedMessage>(name);
  const enqueueLock = keyedLock();
  const ttl = options.ttlMs ?? DEFAULT_QUEUE_TTL_MS;
  const max = options.maxPerRecipient ?? DEFAULT_QUEUE_MAX_PER_RECIPIENT;
  const index = slotIndexFor(deps.store, name);
  const prefix = (recipient: string) => `${shortForm(recipient)}/`;
  /** Queue ids at or after this one are still alive (id = queueing time's timeKey + …). */
  const liveFromId = (now: number) => timeKey(now - ttl);
  // A number, not merely present: a time stored as null (JSON's Infinity) is no end, and no wait.
  const ended = (e: QueueMeta, now: number) => typeof e.expiresAt === 'number' && e.expiresAt <= now;
  const due = (e: QueueMeta, now: number) => !ended(e, now) && (typeof e.notBefore !== 'number' || e.notBefore <= now);
  // Within one millisecond, a counter keeps arrival order.
  let last = 0;
  let seq = 0;

  /** `recipient`'s slots as the store holds them, expired ones included (they go at the next look). */
  function slots(recipient: string): Promise<readonly QueueSlot[]> {
    const r = shortForm(recipient);
    const known = index.byRecipient.get(r);
    if (known) return Promise.resolve(known);
    const under = index.loading.get(r);
    if (under) return under.result;
    const load = { dirty: false, result: undefined as unknown as Promise<readonly QueueSlot[]> };
    load.result = (async () => {
      try {
        const listed = (await col.list({ prefix: prefix(recipient) })).map((e) => slotOf(e.value));
        if (!load.dirty) setBounded(index.byRecipient, r, listed, INDEXED_RECIPIENTS_MAX);
        return listed;
      } finally {
        if (index.loading.get(r) === load) index.loading.delete(r);
      }
    })();
    index.loading.set(r, load);
    return load.result;
  }

  /** After a write to `recipient`'s messages: its kept slots become `change(slots)`, and a listing under way is not kept. */
  function changed(recipient: string, change: (s: readonly QueueSlot[]) => QueueSlot[]): void {
    const r = shortForm(recipient);
    const known = index.byRecipient.get(r);
    // A new array each time: a caller may still be reading the one it was given.
    if (known) index.byRecipient.set(r, change(known));
    const under = index.loading.get(r);
    if (under) under.dirty = true;
  }

  /** Deletes `recipient`'s `gone` slots from the store in one batch. */
  async function drop(recipient: string, gone: readonly QueueSlot[]): Promise<void> {
    if (gone.length === 0) return;
    const p = prefix(recipient);
    await deps.store.batch(gone.map((s) => ({ type: 'del', collection: name, key: p + s.id })));
    const ids = new Set(gone.map((s) => s.id));
    changed(recipient, (s) => s.filter((x) => !ids.has(x.id)));
  }

  /** Deletes `recipient`'s messages past the TTL or past their own end; resolves with the slots it looked at. */
  async function expire(recipient: string, now: number): Promise<readonly QueueSlot[]> {
    const from = liveFromId(now);
    const all = await slots(recipient);
    await drop(recipient, all.filter((s) => s.id < from || ended(s, now)));
    return all;
  }

  /** `recipient`'s deliverable slots, what has expired deleted on the way. */
  async function current(recipient: string): Promise<QueueSlot[]> {
    const now = deps.clock.now();
    const from = liveFromId(now);
    return (await expire(recipient, now)).filter((s) => s.id >= from && due(s, now));
  }

  /** Messages alive by the TTL (due or not, ended or not: as a listing of the live key range counts them). */
  const alive = (all: readonly QueueSlot[], now: number) => {
    const from = liveFromId(now);
    return all.filter((s) => s.id >= from);
  };

  /** A store keyed by did:peer:4 long forms before is moved first (short-form-keys.ts); what moved is listed again. */
  const ready = async () => {
    if ((await shortFormQueue(deps.store, name)) === 0) return;
    index.byRecipient.clear();
    for (const l of index.loading.values()) l.dirty = true;
  };

  return afterReady(ready, {
    // One recipient's enqueues one at a time: the limit is checked and the message written before
    // the next one looks, whoever calls (a forward, a mediator's own answer, the twin's queue).
    enqueue: (recipient, packed, meta = {}) => enqueueLock(shortForm(recipient), async () => {
      let now = deps.clock.now();
      let live = alive(await slots(recipient), now);
      // The same message again (a sender retrying an unanswered send) waits once. A copy past its
      // own end (a forward's expires_time, DIDComm v2.1 §Message Headers) is no longer delivered, though not yet
      // deleted: the message is queued anew, with the headers it came with this time.
      if (meta.messageId !== undefined) {
        const same = live.find((s) => s.messageId === meta.messageId && !ended(s, now));
        const kept = same && (await col.get(prefix(recipient) + same.id));
        if (kept) return kept;
      }
      if (live.length >= max) {
        // What has expired makes room: past the TTL, or past its own end.
        await expire(recipient, now);
        now = deps.clock.now();
        live = alive(await slots(recipient), now);
        if (live.length >= max) {
          throw new IdsyncError('queue_full', `${max} messages are already waiting for this recipient`, { details: { max } });
        }
      }
      seq = now === last ? seq + 1 : 0;
      last = now;
      // Queue ids are URL- and key-safe, and sort by arrival across recipients: time, sequence, random part.
      const id = `${timeKey(now)}-${String(seq).padStart(4, '0')}-${deps.ids().replace(/[^A-Za-z0-9-]/g, '')}`;
      const entry: QueuedMessage = { id, recipient: shortForm(recipient), packed, queuedAt: new Date(now).toISOString(), ...meta };
      for (const k of Object.keys(entry) as Array<keyof QueuedMessage>) if (entry[k] === undefined) delete entry[k];
      await col.put(prefix(recipient) + id, entry);
      const slot = slotOf(entry);
      changed(recipient, (s) => {
        // Ids grow with time: a new one goes last, unless the clock went back.
        const at = s.length === 0 || s[s.length - 1]!.id < id ? s.length : s.findIndex((x) => x.id > id);
        return [...s.slice(0, at), slot, ...s.slice(at)];
      });
      return entry;
    }),
    async list(recipient, limit) {
      const slotsNow = await current(recipient);
      const wanted = limit === undefined ? slotsNow : slotsNow.slice(0, Math.max(0, limit));
      const p = prefix(recipient);
      const read = await Promise.all(wanted.map((s) => col.get(p + s.id)));
      return read.filter((e): e is QueuedMessage => e !== undefined);
    },
    async waiting(recipient) {
      return current(recipient);
    },
    async get(recipient, id, options = {}) {
      if (!validId(id)) return undefined;
      const entry = await col.get(prefix(recipient) + id);
      const now = deps.clock.now();
      if (!entry || Date.parse(entry.queuedAt) < now - ttl || ended(entry, now)) return undefined;
      return options.heldBack || due(entry, now) ? entry : undefined;
    },
    async count(recipient) {
      const now = deps.clock.now();
      return alive(await slots(recipient), now).filter((s) => due(s, now)).length;
    },
    async kept(recipient) {
      const now = deps.clock.now();
      const from = liveFromId(now);
      return (await expire(recipient, now)).filter((s) => s.id >= from && !ended(s, now)).length;
    },
    async remove(recipients, ids) {
      const named = new Set(ids.filter(validId));
      if (named.size === 0) return 0;
      const each = typeof recipients === 'string' ? [recipients] : [...new Map(recipients.map((r) => [shortForm(r), r])).values()];
      const gone = await Promise.all(each.map(async (r) => ({ recipient: r, slots: (await slots(r)).filter((s) => named.has(s.id)) })));
      const ops = gone.flatMap((g) => g.slots.map((s) => ({ type: 'del' as const, collection: name, key: prefix(g.recipient) + s.id })));
      if (ops.length === 0) return 0;
      // One write across every recipient: a crash leaves either every confirmed message or none of
      // them, so nothing confirmed is delivered again.
      await deps.store.batch(ops);
      for (const g of gone) {
        const ids = new Set(g.slots.map((s) => s.id));
        if (ids.size) changed(g.recipient, (s) => s.filter((x) => !ids.has(x.id)));
      }
      return ops.length;
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
      // Every recipient's slots are listed again when next used.
      if (keys.length) {
        index.byRecipient.clear();
        for (const l of index.loading.values()) l.dirty = true;
      }
      return keys.length;
    },
  } satisfies MessageQueue);
}
