// The message log: every DIDComm message in or out, with its envelope mode and conformance
// results, so that a flow can be replayed, inspected and drawn (architecture: "Every message
// in or out is recorded").
//
// Keys list in arrival order: a zero-padded millisecond time, then a sequence number within
// that millisecond. The time used for the key never goes backwards: it is the larger of the
// clock and the last key in the store (read once at the first record), so order survives a
// restart, a ManualClock that stands still and a wall clock stepped back. `at` stays the
// clock's own reading.
//
// Retention: anyone can send us messages, so the log is bounded. Records older than `maxAgeMs`
// (by their key time) and the oldest beyond `maxEntries` are deleted, opportunistically after
// every `pruneEvery` records (at most PRUNE_MAX_PER_RUN per run, so one record never pays for a
// large backlog) or all at once with prune(). Defaults: 30 days, 100,000 records, every 100.
//
// Outcomes: a record is written when the message is made or arrives (so that it is listed before
// its answer, and survives a crash before the outcome is known), then completed once with its
// result. That completion changes only small fields, so it is stored apart, under the same key in
// MESSAGES_OUTCOME_COLLECTION, and merged on read: the plaintext (for issue-credential, the
// credential and its status list) is encoded once, not twice. An update that changes the message
// itself, its thread or clears a field rewrites the whole record instead and drops the outcome.
//
// Stored form: records and outcomes are stored smaller than they read (message-form.ts: headers
// the plaintext repeats, passed conformance results in short) and read back as they were made.
//
// Watchers (watchMessageLog) are told of every record and update as it is written, so that a live
// view follows the log instead of polling it.
import { timeKey } from './time-key.js';
import type { Clock } from '../clock.js';
import type { EnvelopeMode, PlainMessage } from '../didcomm/types.js';
import { b64uEncode, sha256 } from '../encoding.js';
import { IdsyncError } from '../errors.js';
import type { Collection, Store } from './store.js';
import { setBounded } from '../bounded.js';
import { readRecord, readResults, storedRecord, storedResults, type StoredResult } from './message-form.js';

export const MESSAGES_COLLECTION = 'messages';
/** Thread index: `<thread id>\0<seq>` → seq. */
export const MESSAGES_BY_THREAD_COLLECTION = 'messages-by-thread';
/** Fields an update() changed, by seq, merged over the record on read (see "Outcomes" above). */
export const MESSAGES_OUTCOME_COLLECTION = 'messages-outcome';

export type MessageDirection = 'in' | 'out';
export type MessageResult = 'accepted' | 'refused' | 'sent' | 'queued' | 'failed' | (string & {});

/** One rule's outcome, as src/conformance produces it (kept structural: the store imports no layer above it). */
export interface ConformanceResult {
  rule: string;
  ok: boolean;
  detail?: string;
  /** 'error' (a MUST), 'warning' (a SHOULD) or 'advice' (no keyword: idsync's profile, good practice). */
  severity?: 'error' | 'warning' | 'advice';
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
  /** Why it was refused, or not sent: the coded error (an IdsyncError code). */
  errorCode?: string;
  /** The conformance rule that refused it, when a rule did (its failed result, with the detail, is in `conformance`). */
  rule?: string;
  conformance?: ConformanceResult[];
  transport?: string;
  endpoint?: string;
  /** The plaintext; with `digest`, only its headers (body empty), or `{}` when it could not be read. */
  message: PlainMessage;
  /** Instead of the plaintext, for what was not authenticated or too large to keep (never a full body). */
  digest?: MessageDigest;
}

/** What is kept of a message whose content is not stored. */
export interface MessageDigest {
  /** Bytes received. */
  size: number;
  /** `sha256:` and the first 128 bits of the SHA-256 of what was received, base64url. */
  hash: string;
  /** Its first characters (at most DIGEST_HEAD_CHARS). */
  head: string;
}

export const DIGEST_HEAD_CHARS = 200;

/** The digest of `received` (the packed text); `head` defaults to its start. */
export function messageDigest(received: string, head: string = received): MessageDigest {
  return {
    size: Buffer.byteLength(received),
    hash: `sha256:${b64uEncode(sha256(received).subarray(0, 16))}`,
    // A copy, not a slice: V8 keeps a slice as a view of the whole packed text (up to the body
    // limit), which a record kept in memory would then hold on to.
    head: Buffer.from(head.slice(0, DIGEST_HEAD_CHARS)).toString(),
  };
}

export interface MessageLogOptions {
  /** Records this old are deleted (default 30 days; Infinity keeps them). */
  maxAgeMs?: number;
  /** At most about this many records are kept, the oldest go first (default 100,000; Infinity: no limit). */
  maxEntries?: number;
  /** An opportunistic prune runs after every this many records (default 100). */
  pruneEvery?: number;
}

export const MESSAGE_LOG_DEFAULTS = { maxAgeMs: 30 * 24 * 3600 * 1000, maxEntries: 100_000, pruneEvery: 100 } as const;
/** Deletions one opportunistic prune does at most. */
export const PRUNE_MAX_PER_RUN = 5_000;

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
  /** Deletes every record past the retention limits now; resolves with how many went. */
  prune(): Promise<number>;
}

const SEQ_DIGITS = 6;
const SEP = '\u0000';

/** The thread a message belongs to: DIDComm v2 §2.4 "thid … if absent, the message starts a thread whose id is its id". */
export function threadOf(rec: { id: string; thid?: string }): string {
  return rec.thid ?? rec.id;
}

/** The thread index key of record `seq` (see MESSAGES_BY_THREAD_COLLECTION). */
const threadIndexKey = (rec: { id: string; thid?: string }, seq: string): string => `${threadOf(rec)}${SEP}${seq}`;

interface Allocator {
  ready: Promise<void>;
  lastTime: number;
  lastSeq: number;
  /** Records in the collection, once counted (for maxEntries); kept up to date after that. */
  count?: number;
  /** Records since the last opportunistic prune. */
  sincePrune: number;
  /** The prune running now, if any. */
  pruning?: Promise<number>;
}

// One allocator per collection object (a store hands out one object per name), so that two
// messageLog()s over the same store never produce the same key.
const allocators = new WeakMap<Collection<unknown>, Allocator>();

function allocator(col: Collection<unknown>): Allocator {
  let a = allocators.get(col);
  if (!a) {
    const fresh: Allocator = { lastTime: -1, lastSeq: -1, sincePrune: 0, ready: Promise.resolve() };
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
  return `${timeKey(a.lastTime)}-${String(a.lastSeq).padStart(SEQ_DIGITS, '0')}`;
}

function check(rec: Omit<MessageRecord, 'at'>): void {
  if (typeof rec.id !== 'string') throw new IdsyncError('invalid_message_record', 'id must be a string');
  if (rec.direction !== 'in' && rec.direction !== 'out') throw new IdsyncError('invalid_message_record', "direction must be 'in' or 'out'");
  if (typeof rec.type !== 'string') throw new IdsyncError('invalid_message_record', 'type must be a string');
  if (typeof rec.mode !== 'string') throw new IdsyncError('invalid_message_record', 'mode must be an envelope mode');
  if (!rec.message || typeof rec.message !== 'object') throw new IdsyncError('invalid_message_record', 'message must be the plaintext');
}

/**
 * What update() stores apart from a record: the fields it changed, and — as routers complete an
 * incoming record with the checks made on arrival plus those of handling — conformance results
 * added after the record's own as `conformanceAdded`, rather than the whole list again.
 */
type Outcome = Partial<MessageRecord> & { conformanceAdded?: ConformanceResult[] };

/** The record as last updated. */
function merged(base: MessageRecord, outcome: Outcome | undefined): MessageRecord {
  if (!outcome) return base;
  const { conformanceAdded, ...fields } = outcome;
  const rec = { ...base, ...fields };
  if (conformanceAdded) rec.conformance = [...(base.conformance ?? []), ...conformanceAdded];
  return rec;
}

/** The outcome after `changed` (from changedFields) on top of `outcome`, over `base`. */
function nextOutcome(base: MessageRecord, outcome: Outcome | undefined, changed: Partial<MessageRecord>): Outcome {
  const next: Outcome = { ...outcome, ...changed };
  const c = changed.conformance;
  if (c === undefined) return next;
  delete next.conformanceAdded;
  const own = base.conformance ?? [];
  // Results are the very objects of the record's own list when they were kept unchanged (router/records.ts).
  if (!outcome?.conformance && !outcome?.conformanceAdded && c.length >= own.length && own.every((r, i) => c[i] === r)) {
    delete next.conformance;
    next.conformanceAdded = c.slice(own.length);
  }
  return next;
}

/** An outcome as stored: its results in the record's stored form (message-form.ts). */
function storedOutcome(o: Outcome): Outcome {
  if (!o.conformance && !o.conformanceAdded) return o;
  const out: Record<string, unknown> = { ...o };
  if (o.conformance) out.conformance = storedResults(o.conformance);
  if (o.conformanceAdded) out.conformanceAdded = storedResults(o.conformanceAdded);
  return out as Outcome;
}

/** A stored outcome as the outcome it stands for (changed in place: it was just read). */
function readOutcome(o: Outcome): Outcome {
  if (o.conformance) o.conformance = readResults(o.conformance as StoredResult[]);
  if (o.conformanceAdded) o.conformanceAdded = readResults(o.conformanceAdded as StoredResult[]);
  return o;
}

/** Fields an update stores apart from the record (see "Outcomes"): none of them may change the plaintext or the thread. */
const RECORD_ONLY = new Set<string>(['id', 'message', 'digest', 'thid', 'pthid', 'direction', 'type', 'at']);

/**
 * The fields of `patch` that differ from `old` (by identity: a caller completing a record passes
 * the same objects back), when they can be stored as an outcome; undefined when the update must
 * rewrite the record: it changes the message or its thread, or clears a field (JSON drops undefined).
 */
function changedFields(old: MessageRecord, patch: Partial<MessageRecord>): Partial<MessageRecord> | typeof NOTHING | undefined {
  let changed: Record<string, unknown> | undefined;
  const was = old as unknown as Record<string, unknown>;
  const p = patch as Record<string, unknown>;
  for (const k in p) {
    const v = p[k];
    // `seq` is the record's key, never a field of it.
    if (k === 'id' || k === 'seq' || v === was[k]) continue;
    if (RECORD_ONLY.has(k) || v === undefined) return undefined;
    (changed ??= {})[k] = v;
  }
  return changed ?? NOTHING;
}

/** changedFields: the patch changes nothing. */
const NOTHING = Symbol('nothing changed');

function matches(rec: MessageRecord, q: MessageQuery): boolean {
  return (
    (q.thid === undefined || threadOf(rec) === q.thid) &&
    (q.pthid === undefined || rec.pthid === q.pthid) &&
    (q.direction === undefined || rec.direction === q.direction) &&
    (q.type === undefined || rec.type === q.type)
  );
}

/** What watchMessageLog listeners are told: a record written (on arrival or before sending), or one completed. */
export interface MessageLogChange {
  kind: 'record' | 'update';
  message: LoggedMessage;
}

export type MessageLogListener = (change: MessageLogChange) => void;

// Per store, not per collection object: a store handle may hand out a new collection object on
// every call (testing/fenced-store.ts), while every log over one handle must reach the same watchers.
const watchers = new WeakMap<Store, Set<MessageLogListener>>();

/**
 * Calls `listener` after every write of any message log over `store` (live views follow the log
 * without polling it). Returns the function that stops it. A listener that throws is ignored: the
 * log never fails a record for a watcher.
 */
export function watchMessageLog(store: Store, listener: MessageLogListener): () => void {
  let set = watchers.get(store);
  if (!set) watchers.set(store, (set = new Set()));
  set.add(listener);
  return () => void set.delete(listener);
}

/** Tells the watchers of `store`, if any, of `message` (a copy: theirs to keep). */
function tell(store: Store, kind: MessageLogChange['kind'], message: LoggedMessage): void {
  const set = watchers.get(store);
  if (!set || set.size === 0) return;
  const change: MessageLogChange = { kind, message: { ...message } };
  for (const listener of [...set]) {
    try {
      listener(change);
    } catch {
      // A watcher's failure is its own.
    }
  }
}

const freshByCollection = new WeakMap<Collection<unknown>, Map<string, MessageRecord>>();
function freshRecords(col: Collection<unknown>): Map<string, MessageRecord> {
  let m = freshByCollection.get(col);
  if (!m) freshByCollection.set(col, (m = new Map()));
  return m;
}

const PRUNE_PAGE = 500;
/**
 * Records a log remembers between record() and update() (see `fresh`). A service with a thousand
 * flows under way logs thousands of messages while one is sent or handled; a record forgotten by
 * then is parsed back and, as the outgoing patch repeats its plaintext, written whole again. Each
 * entry is a message still being handled or sent (held by its caller anyway) or one never completed.
 */
const FRESH_MAX = 16_384;

export function messageLog(store: Store, clock: Clock, options: MessageLogOptions = {}): MessageLog {
  const col = store.collection<MessageRecord>(MESSAGES_COLLECTION);
  const byThread = store.collection<string>(MESSAGES_BY_THREAD_COLLECTION);
  const outcomes = store.collection<Outcome>(MESSAGES_OUTCOME_COLLECTION);
  const maxAgeMs = options.maxAgeMs ?? MESSAGE_LOG_DEFAULTS.maxAgeMs;
  const maxEntries = options.maxEntries ?? MESSAGE_LOG_DEFAULTS.maxEntries;
  const pruneEvery = Math.max(1, options.pruneEvery ?? MESSAGE_LOG_DEFAULTS.pruneEvery);

  // Records written and not yet updated, by seq: a record is usually updated once, right after
  // it was written (its result once known, router/outbound.ts), and reading it back would parse
  // the whole message again. Bounded: the oldest go first; a miss reads the store.
  // Shared by every log over this store's collection (like the allocator), so none keeps a stale copy.
  const fresh = freshRecords(col as Collection<unknown>);
  const remember = (seq: string, rec: MessageRecord) => {
    setBounded(fresh, seq, rec, FRESH_MAX);
  };

  /** The record as last updated: the stored one with its outcome merged over it. */
  async function stored(seq: string): Promise<{ base: MessageRecord; outcome?: Outcome } | undefined> {
    const [base, outcome] = await Promise.all([col.get(seq), outcomes.get(seq)]);
    return base ? { base: readRecord(base), outcome: outcome && readOutcome(outcome) } : undefined;
  }

  async function get(seq: string): Promise<LoggedMessage | undefined> {
    const s = await stored(seq);
    return s ? { ...merged(s.base, s.outcome), seq } : undefined;
  }

  /** Deletes records with their thread index entries; returns how many. */
  async function remove(a: Allocator, entries: { key: string; value: MessageRecord }[]): Promise<number> {
    if (entries.length === 0) return 0;
    for (const { key } of entries) fresh.delete(key);
    await store.batch(
      entries.flatMap(({ key, value }) => [
        { type: 'del' as const, collection: MESSAGES_COLLECTION, key },
        { type: 'del' as const, collection: MESSAGES_BY_THREAD_COLLECTION, key: threadIndexKey(value, key) },
        { type: 'del' as const, collection: MESSAGES_OUTCOME_COLLECTION, key },
      ]),
    );
    if (a.count !== undefined) a.count = Math.max(0, a.count - entries.length);
    return entries.length;
  }

  /** Old records first (keys are in time order), then the oldest beyond maxEntries; at most `budget`. */
  async function pruneRun(a: Allocator, budget: number): Promise<number> {
    let removed = 0;
    if (Number.isFinite(maxAgeMs)) {
      // Keys of times up to now − maxAgeMs (a record exactly maxAgeMs old is due).
      const lt = timeKey(clock.now() - maxAgeMs + 1);
      while (removed < budget) {
        const page = await col.list({ lt, limit: Math.min(PRUNE_PAGE, budget - removed) });
        removed += await remove(a, page);
        if (page.length < PRUNE_PAGE) break;
      }
    }
    if (Number.isFinite(maxEntries)) {
      a.count ??= await col.count();
      while (removed < budget && a.count > maxEntries) {
        const page = await col.list({ limit: Math.min(PRUNE_PAGE, budget - removed, a.count - maxEntries) });
        if (page.length === 0) break;
        removed += await remove(a, page);
      }
    }
    return removed;
  }

  /** `page` (records in key order, either way) with their outcomes merged: one range read. */
  async function withOutcomes(page: { key: string; value: MessageRecord }[]): Promise<{ key: string; value: MessageRecord }[]> {
    if (page.length === 0) return page;
    const [a, b] = [page[0]!.key, page[page.length - 1]!.key];
    const found = await outcomes.list({ gte: a < b ? a : b, lte: a < b ? b : a });
    if (found.length === 0) return page.map((e) => ({ key: e.key, value: readRecord(e.value) }));
    const byKey = new Map(found.map((e) => [e.key, e.value]));
    return page.map((e) => {
      const o = byKey.get(e.key);
      return { key: e.key, value: o ? merged(readRecord(e.value), readOutcome(o)) : readRecord(e.value) };
    });
  }

  /** One prune at a time per collection; a later one waits for the running one. */
  function runPrune(a: Allocator, budget: number): Promise<number> {
    const run = (a.pruning ?? Promise.resolve(0)).catch(() => 0).then(() => pruneRun(a, budget));
    a.pruning = run;
    void run.finally(() => {
      if (a.pruning === run) a.pruning = undefined;
    }).catch(() => undefined);
    return run;
  }

  return {
    async record(input) {
      check(input);
      const now = clock.now();
      const at = input.at ?? new Date(now).toISOString();
      const a = allocator(col as Collection<unknown>);
      await a.ready;
      // Allocation is synchronous after `ready`, so concurrent records get distinct, ordered keys.
      const seq = nextKey(a, now);
      // One object is the record remembered, told and returned (callers read it, never change it);
      // the stored form (without its key, seq) is the only copy.
      const rec: LoggedMessage = { ...input, at, seq };
      await store.batch([
        { type: 'put', collection: MESSAGES_COLLECTION, key: seq, value: storedRecord(rec) },
        { type: 'put', collection: MESSAGES_BY_THREAD_COLLECTION, key: threadIndexKey(rec, seq), value: seq },
      ]);
      // Only records that update() will complete: 'received' (its handling follows) and
      // 'sending' (its send follows). Others (undecryptable, refused at the door) never are, and
      // anyone can send them: they must not fill the memory the flows under way need.
      if (rec.result === 'received' || rec.result === 'sending') remember(seq, rec);
      tell(store, 'record', rec);
      if (a.count !== undefined) a.count += 1;
      a.sincePrune += 1;
      if (a.sincePrune >= pruneEvery && !a.pruning) {
        a.sincePrune = 0;
        // Retention must not fail a record: a prune that fails is retried at the next turn.
        await runPrune(a, PRUNE_MAX_PER_RUN).catch(() => undefined);
      }
      return rec;
    },

    async update(seq, patch) {
      const known = fresh.get(seq);
      fresh.delete(seq);
      const s = known ? { base: known, outcome: undefined } : await stored(seq);
      if (!s) throw new IdsyncError('not_found', `no message record ${seq}`);
      const old = merged(s.base, s.outcome);
      const rec: LoggedMessage = { ...old, ...patch, id: old.id, seq };
      const changed = changedFields(old, patch);
      if (changed === NOTHING) return rec;
      if (changed) {
        // The common case: only the outcome changed; the record itself is not written again.
        await outcomes.put(seq, storedOutcome(nextOutcome(s.base, s.outcome, changed)));
        tell(store, 'update', rec);
        return rec;
      }
      const ops: Parameters<Store['batch']>[0] = [{ type: 'put', collection: MESSAGES_COLLECTION, key: seq, value: storedRecord(rec) }];
      if (s.outcome) ops.push({ type: 'del', collection: MESSAGES_OUTCOME_COLLECTION, key: seq });
      if (threadOf(rec) !== threadOf(old)) {
        ops.push({ type: 'del', collection: MESSAGES_BY_THREAD_COLLECTION, key: threadIndexKey(old, seq) });
        ops.push({ type: 'put', collection: MESSAGES_BY_THREAD_COLLECTION, key: threadIndexKey(rec, seq), value: seq });
      }
      await store.batch(ops);
      tell(store, 'update', rec);
      return rec;
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
      // Without a thread, scan in key order (bounded by retention; add an index when that is too slow).
      const filtered = q.pthid !== undefined || q.direction !== undefined || q.type !== undefined;
      const bound = !filtered && Number.isFinite(limit) ? { limit } : {};
      const page = await col.list({ gt: q.after, reverse: q.reverse, ...bound });
      for (const { key, value } of await withOutcomes(page)) {
        if (matches(value, q)) out.push({ ...value, seq: key });
        if (out.length >= limit) break;
      }
      return out;
    },

    async count() {
      return col.count();
    },

    async prune() {
      const a = allocator(col as Collection<unknown>);
      await a.ready;
      return runPrune(a, Infinity);
    },
  };
}
