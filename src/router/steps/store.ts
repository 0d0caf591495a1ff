// Where the step records live: a thread's small state in one collection, its last message apart
// in another, both written in ONE store batch together with whatever else the step changes (the
// thread's protocol state, an operation, its webhook events: the caller's `extra` ops), so a crash
// leaves a step either whole or not taken at all. A new last message and the state naming it go
// in together; the message it replaces is deleted in the same batch.
//
// The states this party last read or wrote are kept in memory (bounded): each protocol step reads
// its thread's state and writes it back, and every message handled asks about its thread. This
// store is its collections' only writer (one per party), and a state is never changed in place,
// so what is kept is what was stored.
import type { Clock } from '../../clock.js';
import type { BatchOp, Collection, Store } from '../../store/store.js';
import { setBounded } from '../../bounded.js';
import { outKey, type StepOut, type StepRecord, type StepState } from './state.js';

/** Threads whose state is kept in memory; states are small. */
const CACHE_MAX = 4096;
/** Copies of messages listed per page when looking for ones no state names (each up to tens of KB). */
const SWEEP_PAGE = 256;

export interface StepCollections {
  /** By thread id: the thread's state. */
  states: string;
  /** `<thread id>\0<message id>`: the last message a state names. */
  outs: string;
}

export interface StepStore {
  read(thid: string): Promise<StepState | undefined>;
  /** The thread's last message: inline (older records) or stored apart. */
  outOf(thid: string, s: StepState): Promise<StepOut | undefined>;
  /** The record as users see it. */
  view(thid: string, s: StepState): Promise<StepRecord>;
  /** Stores `next` for the thread (with `out`, its new last message, and `extra`) in one batch. */
  write(thid: string, current: StepState, next: StepState, out?: StepOut, extra?: BatchOp[]): Promise<StepState>;
  /** Deletes the thread's record and its last message in one batch. */
  remove(thid: string, s: StepState): Promise<void>;
  list(): Promise<Array<{ key: string; value: StepState }>>;
  /** Keys of stored messages after `after`, a page at a time (unnamed copies from earlier versions). */
  outKeys(after?: string): Promise<string[]>;
  deleteOut(key: string): Promise<void>;
}

export function stepStore(store: Pick<Store, 'batch' | 'collection'>, names: StepCollections, clock: Clock): StepStore {
  const states: Collection<StepState> = store.collection(names.states);
  const outs: Collection<StepOut> = store.collection(names.outs);
  const cache = new Map<string, StepState>();
  const keep = (thid: string, s: StepState) => {
    cache.delete(thid);
    setBounded(cache, thid, s, CACHE_MAX);
  };
  // Counts the starts and ends of writes and removals. Reads are not under the thread's lock (a
  // retry, a replay's lookup): one whose store read began before a write of its thread may
  // resolve after that write cached the new state, and must not put the old one back in the
  // cache, where every later read (a retry finding no message to send, its job then dropped)
  // would take it for the thread's state until the next write.
  let changes = 0;

  async function outOf(thid: string, s: StepState): Promise<StepOut | undefined> {
    if (s.out) return s.out;
    return s.last ? readOut(await outs.get(outKey(thid, s.last.id))) : undefined;
  }

  return {
    async read(thid) {
      const known = cache.get(thid);
      if (known) return known;
      const before = changes;
      const s = await states.get(thid);
      // A write or removal ran meanwhile: the state it cached, if any, is the newer one.
      if (changes !== before) return cache.get(thid) ?? s;
      if (s) keep(thid, s);
      return s;
    },

    outOf,

    async view(thid, s) {
      const { last: _last, out: _out, ...rest } = s;
      const out = await outOf(thid, s);
      return out ? { ...rest, out } : rest;
    },

    async write(thid, current, next, out, extra = []) {
      const ops: BatchOp[] = [...extra];
      const { out: _inline, last: _last, ...rest } = next;
      let stored: StepState;
      if (out) {
        ops.push({ type: 'put', collection: names.outs, key: outKey(thid, out.message.id), value: storedOut(out) });
        stored = { ...rest, last: { id: out.message.id, ...(out.after !== undefined ? { after: out.after } : {}), to: out.to } };
      } else {
        stored = { ...next };
      }
      stored.at = clock.now();
      ops.push({ type: 'put', collection: names.states, key: thid, value: stored });
      // The message the state named before, once it names another or none.
      const before = current.last;
      if (before && stored.last?.id !== before.id) ops.push({ type: 'del', collection: names.outs, key: outKey(thid, before.id) });
      changes++;
      cache.delete(thid);
      await store.batch(ops);
      changes++;
      keep(thid, stored);
      return stored;
    },

    async remove(thid, s) {
      changes++;
      cache.delete(thid);
      await store.batch([
        ...(s.last ? [{ type: 'del' as const, collection: names.outs, key: outKey(thid, s.last.id) }] : []),
        { type: 'del', collection: names.states, key: thid },
      ]);
      changes++;
    },

    list: () => states.list(),

    async outKeys(after) {
      return (await outs.list({ limit: SWEEP_PAGE, ...(after !== undefined ? { gt: after } : {}) })).map((e) => e.key);
    },

    async deleteOut(key) {
      await outs.del(key);
    },
  };
}

export const STEP_SWEEP_PAGE = SWEEP_PAGE;

/**
 * A last message as stored: `to` as 0 when it is the message's only recipient, as it mostly is
 * (a holder's long-form DID is about 1 KB, which the record then held twice). Its key keeps its place.
 */
function storedOut(out: StepOut): StepOut {
  const to = out.message.to;
  return Array.isArray(to) && to.length === 1 && to[0] === out.to ? ({ ...out, to: 0 } as unknown as StepOut) : out;
}

/** A stored last message as the one it stands for (changed in place: it was just read). */
function readOut(stored: StepOut | undefined): StepOut | undefined {
  if (stored && (stored.to as unknown) === 0) stored.to = (stored.message.to as string[])[0]!;
  return stored;
}
