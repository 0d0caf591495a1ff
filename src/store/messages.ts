// The message log: every DIDComm message in or out, with its envelope mode and conformance
// results, so that a flow can be replayed, inspected and drawn (architecture: "Every message
// in or out is recorded").
//
// Keys list in arrival order: a zero-padded millisecond time, then a sequence number within
// that millisecond. The time used for the key never goes backwards: it is the larger of the
// clock and the last key in the store (read once at the first record), so order survives a
// restart, a ManualClock that stands still and a wall clock stepped back. `at` stays the
// clock's own reading.
import type { Clock } from '../clock.js';
import type { EnvelopeMode, PlainMessage } from '../didcomm/types.js';
import { IdsyncError } from '../errors.js';
import type { Collection, Store } from './store.js';

export const MESSAGES_COLLECTION = 'messages';
/** Thread index: `<thread id>\0<seq>` → seq. */
export const MESSAGES_BY_THREAD_COLLECTION = 'messages-by-thread';

export type MessageDirection = 'in' | 'out';
export type MessageResult = 'accepted' | 'refused' | 'sent' | 'queued' | 'failed' | (string & {});

/** One rule's outcome, as src/conformance produces it (kept structural: the store imports no layer above it). */
export interface ConformanceResult {
  rule: string;
  ok: boolean;
  detail?: string;
  /** 'error' (a MUST) or 'warning' (a SHOULD). */
  severity?: 'error' | 'warning';
  /** 'envelope' | 'plaintext' | 'protocol' | 'oob'. */
  layer?: string;
}

export interface MessageRecord {
  /** The message id. */
  id: string;
  direction: MessageDirection;
  type: string;
  thid?: string;
  pthid?: string;
  from?: string;
  to?: string[];
  mode: EnvelopeMode;
  /** ISO 8601. */
  at: string;
  /** Bytes of the packed message. */
  size: number;
  result?: MessageResult;
  problemCode?: string;
  conformance?: ConformanceResult[];
  transport?: string;
  endpoint?: string;
  /** The plaintext. */
  message: PlainMessage;
}

/** A record as stored: `seq` is its key, in arrival order. */
export type LoggedMessage = MessageRecord & { seq: string };

export interface MessageQuery {
  /** Messages of this thread: those with this `thid`, and the one whose `id` it is and that has no thid. */
  thid?: string;
  pthid?: string;
  direction?: MessageDirection;
  type?: string;
  /** Only records after this seq (a cursor for polling). */
  after?: string;
  limit?: number;
  /** Newest first. */
  reverse?: boolean;
}

export interface MessageLog {
  /** Stores a record; `at` defaults to the clock. Returns it with its `seq`. */
  record(rec: Omit<MessageRecord, 'at'> & { at?: string }): Promise<LoggedMessage>;
  /** Changes fields of a stored record (e.g. the result once known); `seq` and `id` stay. */
  update(seq: string, patch: Partial<Omit<MessageRecord, 'id'>>): Promise<LoggedMessage>;
  get(seq: string): Promise<LoggedMessage | undefined>;
  list(query?: MessageQuery): Promise<LoggedMessage[]>;
  count(): Promise<number>;
}

const TIME_DIGITS = 15;
const SEQ_DIGITS = 6;
const SEP = '\u0000';

/** The thread a message belongs to: DIDComm v2 §2.4 "thid … if absent, the message starts a thread whose id is its id". */
export function threadOf(rec: { id: string; thid?: string }): string {
  return rec.thid ?? rec.id;
}

interface Allocator {
  ready: Promise<void>;
  lastTime: number;
  lastSeq: number;
}

// One allocator per collection object (a store hands out one object per name), so that two
// messageLog()s over the same store never produce the same key.
const allocators = new WeakMap<Collection<unknown>, Allocator>();

function allocator(col: Collection<unknown>): Allocator {
  let a = allocators.get(col);
  if (!a) {
    const fresh: Allocator = { lastTime: -1, lastSeq: -1, ready: Promise.resolve() };
    fresh.ready = col.list({ reverse: true, limit: 1 }).then(([last]) => {
      if (!last) return;
      const [t, s] = last.key.split('-');
      fresh.lastTime = Number(t);
      fresh.lastSeq = Number(s);
    });
    // A failed read (closed store) must not poison later attempts.
    fresh.ready.catch(() => allocators.delete(col));
    allocators.set(col, fresh);
    a = fresh;
  }
  return a;
}

function nextKey(a: Allocator, now: number): string {
  if (now > a.lastTime) {
    a.lastTime = now;
    a.lastSeq = 0;
  } else {
    a.lastSeq += 1;
    if (a.lastSeq >= 10 ** SEQ_DIGITS) {
      a.lastTime += 1;
      a.lastSeq = 0;
    }
  }
  return `${String(a.lastTime).padStart(TIME_DIGITS, '0')}-${String(a.lastSeq).padStart(SEQ_DIGITS, '0')}`;
}

function check(rec: Omit<MessageRecord, 'at'>): void {
  if (typeof rec.id !== 'string') throw new IdsyncError('invalid_message_record', 'id must be a string');
  if (rec.direction !== 'in' && rec.direction !== 'out') throw new IdsyncError('invalid_message_record', "direction must be 'in' or 'out'");
  if (typeof rec.type !== 'string') throw new IdsyncError('invalid_message_record', 'type must be a string');
  if (typeof rec.mode !== 'string') throw new IdsyncError('invalid_message_record', 'mode must be an envelope mode');
  if (!rec.message || typeof rec.message !== 'object') throw new IdsyncError('invalid_message_record', 'message must be the plaintext');
}

function matches(rec: MessageRecord, q: MessageQuery): boolean {
  return (
    (q.thid === undefined || threadOf(rec) === q.thid) &&
    (q.pthid === undefined || rec.pthid === q.pthid) &&
    (q.direction === undefined || rec.direction === q.direction) &&
    (q.type === undefined || rec.type === q.type)
  );
}

export function messageLog(store: Store, clock: Clock): MessageLog {
  const col = store.collection<MessageRecord>(MESSAGES_COLLECTION);
  const byThread = store.collection<string>(MESSAGES_BY_THREAD_COLLECTION);

  async function get(seq: string): Promise<LoggedMessage | undefined> {
    const rec = await col.get(seq);
    return rec ? { ...rec, seq } : undefined;
  }

  return {
    async record(input) {
      check(input);
      const now = clock.now();
      const rec: MessageRecord = { ...input, at: input.at ?? new Date(now).toISOString() };
      const a = allocator(col as Collection<unknown>);
      await a.ready;
      // Allocation is synchronous after `ready`, so concurrent records get distinct, ordered keys.
      const seq = nextKey(a, now);
      await store.batch([
        { type: 'put', collection: MESSAGES_COLLECTION, key: seq, value: rec },
        { type: 'put', collection: MESSAGES_BY_THREAD_COLLECTION, key: `${threadOf(rec)}${SEP}${seq}`, value: seq },
      ]);
      return { ...rec, seq };
    },

    async update(seq, patch) {
      const old = await col.get(seq);
      if (!old) throw new IdsyncError('not_found', `no message record ${seq}`);
      const rec: MessageRecord = { ...old, ...patch, id: old.id };
      const ops: Parameters<Store['batch']>[0] = [{ type: 'put', collection: MESSAGES_COLLECTION, key: seq, value: rec }];
      if (threadOf(rec) !== threadOf(old)) {
        ops.push({ type: 'del', collection: MESSAGES_BY_THREAD_COLLECTION, key: `${threadOf(old)}${SEP}${seq}` });
        ops.push({ type: 'put', collection: MESSAGES_BY_THREAD_COLLECTION, key: `${threadOf(rec)}${SEP}${seq}`, value: seq });
      }
      await store.batch(ops);
      return { ...rec, seq };
    },

    get,

    async list(q = {}) {
      const limit = q.limit ?? Infinity;
      const out: LoggedMessage[] = [];
      if (q.thid !== undefined) {
        const prefix = `${q.thid}${SEP}`;
        const range = q.after !== undefined ? { gt: prefix + q.after } : {};
        for (const { value: seq } of await byThread.list({ prefix, ...range, reverse: q.reverse })) {
          const rec = await get(seq);
          if (rec && matches(rec, q)) out.push(rec);
          if (out.length >= limit) break;
        }
        return out;
      }
      // Without a thread, scan in key order (the log of one run is small; add an index when it is not).
      for (const { key, value } of await col.list({ gt: q.after, reverse: q.reverse })) {
        if (matches(value, q)) out.push({ ...value, seq: key });
        if (out.length >= limit) break;
      }
      return out;
    },

    async count() {
      return col.count();
    },
  };
}
