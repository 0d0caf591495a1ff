// The one retry scheduler of a party: every message that is to be sent again (a protocol step
// waiting for its answer, a message an endpoint asked to get later) is a job here, sent again by
// its kind's runner when due, with one back-off policy (backoff.ts) and one place to watch it
// (counts()). Jobs live in memory with one timer for the earliest; what a restart must find is
// stored by each kind's owner in the writes it makes anyway (a step's state, a redelivery record),
// and loaded back by start(): then every job is due at once and the back-off starts again.
//
// A job names its peer: a message from that peer, or a send to it that got through, shows the
// peer is back, and its jobs that failed are due at once instead of after their back-off.
import type { Clock } from '../../clock.js';
import { shortForm } from '../../did/short-form.js';
import { toIdsyncError } from '../../errors.js';
import { MAX_WAIT_MS } from '../../wait.js';
import { backoff as makeBackoff, type Backoff, type BackoffOptions, type SendOutcome } from './backoff.js';
import { DueHeap } from './due-heap.js';

export interface RetryJob {
  kind: string;
  key: string;
  /** The DID the job sends to: a sign of life from it makes the job due at once. */
  peer?: string;
  /** Retries made since this process started. */
  attempts: number;
  /** No retry after this (injected clock ms): the runner gives up instead. */
  deadlineAt?: number;
  /** What became of the last send; undefined while the first send is open. */
  last?: SendOutcome['kind'];
}

/** A job as stored by its owner and loaded back on start. */
export type StoredJob = Pick<RetryJob, 'key' | 'peer' | 'deadlineAt'> & { notBefore?: number };

export interface JobRunner {
  /**
   * One attempt. 'delivered': sent, and nothing is left to do; 'done': nothing was left to send
   * (answered, collected, given up).
   */
  run(job: RetryJob): Promise<SendOutcome | 'delivered' | 'done'>;
  /** The deadline passed without an answer. */
  giveUp?(job: RetryJob): Promise<void>;
  /** The jobs its owner stored (start() resumes them). */
  load?(): Promise<StoredJob[]>;
  /** After an attempt that did not finish the job: when it is due next. */
  rescheduled?(job: RetryJob, dueAt: number): void;
}

export interface RetryCounts {
  /** Waiting for their time. */
  scheduled: number;
  /** Their time has come; not yet sent. */
  due: number;
  /** Being sent again now. */
  retrying: number;
  /** Given up since this process started (deadline passed, attempts used up). */
  abandoned: number;
}

/** The counts of a party with nothing scheduled (no scheduler bound yet). */
export const NO_RETRIES: RetryCounts & { byKind: Record<string, RetryCounts> } = { scheduled: 0, due: 0, retrying: 0, abandoned: 0, byKind: {} };

export interface Scheduler {
  register(kind: string, runner: JobRunner): void;
  /** Adds (or replaces) job `kind`/`key`, due at `dueAt`; its retries start again from the first. */
  schedule(job: { kind: string; key: string; peer?: string; dueAt: number; deadlineAt?: number; last?: SendOutcome['kind']; attempts?: number }): void;
  /** A send of the job (its first, by its owner) settled: next due by the back-off. */
  settle(kind: string, key: string, outcome: SendOutcome): void;
  cancel(kind: string, key: string): void;
  get(kind: string, key: string): (RetryJob & { dueAt: number }) | undefined;
  /** The back-off's wait after `attempts` retries ended in `outcome` (backoff.ts). */
  delay(attempts: number, outcome: SendOutcome): number;
  /** The peer showed it is there: its jobs that failed are due now. */
  peerIsBack(peer: string): void;
  /** Counts a job given up by its owner outside a retry (e.g. attempts used up at the first send). */
  abandoned(kind: string): void;
  /** Sends every job due now (injected clock); resolves with how many sends went out without failing. */
  runDue(): Promise<number>;
  /** Loads every kind's stored jobs, all due now, and arms the timer. */
  start(): Promise<void>;
  counts(): RetryCounts & { byKind: Record<string, RetryCounts> };
  close(): void;
}

export interface SchedulerOptions extends BackoffOptions {
  clock: Clock;
  log?(level: 'debug' | 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>): void;
  /** Jobs sent at once by one pass (default 32); the others wait for a slot, not for a timer. */
  concurrency?: number;
  /** Counts a send by step name (fleet reports). */
  onAttempt?(job: RetryJob): void;
}

interface Entry extends RetryJob {
  id: string;
  dueAt: number;
  version: number;
  running: boolean;
}

const idOf = (kind: string, key: string) => `${kind}\u0000${key}`;
// A peer's did:ion or did:peer:4 in either form is one peer (DID Peer §Method 4).
const peerKey = (did: string) => shortForm(did);

export function createScheduler(o: SchedulerOptions): Scheduler {
  const { clock } = o;
  const log = o.log ?? (() => {});
  const delay: Backoff = makeBackoff(o);
  const concurrency = Math.max(1, o.concurrency ?? 32);
  const runners = new Map<string, JobRunner>();
  const jobs = new Map<string, Entry>();
  const byPeer = new Map<string, Set<string>>();
  const heap = new DueHeap();
  const gaveUp = new Map<string, number>();
  let version = 0;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  let closed = false;
  let chain: Promise<unknown> = Promise.resolve();

  function index(e: Entry): void {
    e.version = ++version;
    heap.push({ at: e.dueAt, id: e.id, version: e.version });
    // Stale entries (rescheduled jobs) are dropped as they surface; rebuild when they dominate.
    if (heap.size > 64 && heap.size > 4 * jobs.size) {
      heap.clear();
      for (const j of jobs.values()) heap.push({ at: j.dueAt, id: j.id, version: j.version });
    }
    arm();
  }

  function remove(e: Entry): void {
    jobs.delete(e.id);
    if (e.peer) {
      const set = byPeer.get(e.peer);
      set?.delete(e.id);
      if (set?.size === 0) byPeer.delete(e.peer);
    }
  }

  /** The earliest live entry of the heap, stale ones dropped. */
  function first(): Entry | undefined {
    for (;;) {
      const top = heap.peek();
      if (!top) return undefined;
      const e = jobs.get(top.id);
      if (e && e.version === top.version && !e.running) return e;
      heap.pop();
    }
  }

  function arm(): void {
    if (closed) return;
    const next = first();
    if (!next) {
      if (timer) clearTimeout(timer);
      timer = undefined;
      timerAt = Infinity;
      return;
    }
    // One timer, for the earliest job; moved only when an earlier one comes.
    if (timer && timerAt <= next.dueAt) return;
    if (timer) clearTimeout(timer);
    timerAt = next.dueAt;
    // Wall-time wait from the injected clock's distance; tests with a manual clock call runDue().
    timer = setTimeout(() => {
      timer = undefined;
      timerAt = Infinity;
      // Not behind a pass still under way: a job popped by one pass is not seen by another, and
      // attempt() skips one that runs or was moved, so none is sent twice. Behind it, every
      // other peer's retry waited for that pass's slowest send (a timeout, for an endpoint that
      // never answers).
      void pass().catch((err) => log('warn', 'a retry pass failed', { code: toIdsyncError(err).code }));
    }, Math.max(0, Math.min(next.dueAt - clock.now(), MAX_WAIT_MS)));
    timer.unref();
  }

  async function attempt(e: Entry, popped: number): Promise<boolean> {
    // Cancelled, or moved to another time, while it waited for a slot.
    if (jobs.get(e.id) !== e || e.version !== popped || e.running) return false;
    const runner = runners.get(e.kind);
    const v = e.version;
    if (!runner) {
      remove(e);
      return false;
    }
    if (e.deadlineAt !== undefined && clock.now() >= e.deadlineAt) {
      remove(e);
      gaveUp.set(e.kind, (gaveUp.get(e.kind) ?? 0) + 1);
      await runner.giveUp?.(e).catch((err) => log('warn', 'giving up a retry failed', { kind: e.kind, key: e.key, code: toIdsyncError(err).code }));
      return false;
    }
    e.running = true;
    o.onAttempt?.(e);
    let out: SendOutcome | 'delivered' | 'done';
    try {
      out = await runner.run(e);
    } catch (err) {
      log('info', 'a retry failed; tried again later', { kind: e.kind, key: e.key, code: toIdsyncError(err).code });
      out = { kind: 'failed' };
    } finally {
      e.running = false;
    }
    // Cancelled or replaced while it ran: the newer state wins.
    if (jobs.get(e.id) !== e || e.version !== v) return out === 'delivered' || (out !== 'done' && out.kind === 'accepted');
    if (out === 'done' || out === 'delivered') {
      remove(e);
      return out === 'delivered';
    }
    // The back-off goes by the retries made, this one included; a job resumed by start() made
    // none in this process before it, so after its immediate retry the back-off starts from the first.
    e.attempts++;
    e.dueAt = clock.now() + delay(e.attempts, out);
    e.last = out.kind;
    index(e);
    runner.rescheduled?.(e, e.dueAt);
    return out.kind === 'accepted';
  }

  async function pass(): Promise<number> {
    const now = clock.now();
    const due: Array<[Entry, number]> = [];
    for (let e = first(); e && e.dueAt <= now; e = first()) {
      heap.pop();
      due.push([e, e.version]);
    }
    // The next job's timer now, not once this pass's sends have all ended.
    arm();
    let sent = 0;
    let next = 0;
    const worker = async () => {
      while (next < due.length && !closed) {
        const [e, v] = due[next++]!;
        if (await attempt(e, v)) sent++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, worker));
    arm();
    return sent;
  }

  function runDue(): Promise<number> {
    // One pass at a time: a timer's and a caller's never send the same job twice.
    const p = chain.then(pass, pass);
    chain = p.catch(() => undefined);
    return p;
  }

  function countsOf(list: Iterable<Entry>, now: number): Omit<RetryCounts, 'abandoned'> {
    const c = { scheduled: 0, due: 0, retrying: 0 };
    for (const e of list) {
      if (e.running) c.retrying++;
      else if (e.dueAt <= now) c.due++;
      else c.scheduled++;
    }
    return c;
  }

  function schedule(job: Parameters<Scheduler['schedule']>[0]): void {
    const id = idOf(job.kind, job.key);
    const old = jobs.get(id);
    if (old) remove(old);
    const e: Entry = {
      id, kind: job.kind, key: job.key, attempts: job.attempts ?? 0, dueAt: job.dueAt, version: 0, running: false,
      ...(job.peer ? { peer: peerKey(job.peer) } : {}),
      ...(job.deadlineAt !== undefined ? { deadlineAt: job.deadlineAt } : {}),
      ...(job.last ? { last: job.last } : {}),
    };
    jobs.set(id, e);
    if (e.peer) {
      let set = byPeer.get(e.peer);
      if (!set) byPeer.set(e.peer, (set = new Set()));
      set.add(id);
    }
    index(e);
  }

  return {
    register(kind, runner) {
      runners.set(kind, runner);
    },

    schedule,

    settle(kind, key, outcome) {
      const e = jobs.get(idOf(kind, key));
      if (!e || e.running) return;
      e.dueAt = clock.now() + delay(e.attempts, outcome);
      e.last = outcome.kind;
      index(e);
    },

    cancel(kind, key) {
      const e = jobs.get(idOf(kind, key));
      if (e) remove(e);
    },

    get(kind, key) {
      const e = jobs.get(idOf(kind, key));
      return e && { kind: e.kind, key: e.key, attempts: Math.max(0, e.attempts), dueAt: e.dueAt, ...(e.peer ? { peer: e.peer } : {}), ...(e.deadlineAt !== undefined ? { deadlineAt: e.deadlineAt } : {}), ...(e.last ? { last: e.last } : {}) };
    },

    delay: (attempts, outcome) => delay(Math.max(0, attempts), outcome),

    peerIsBack(peer) {
      const set = byPeer.get(peerKey(peer));
      if (!set) return;
      const now = clock.now();
      let moved = false;
      for (const id of set) {
        const e = jobs.get(id);
        // Only what failed to reach it: an open first send or an accepted message needs nothing.
        if (!e || e.running || e.dueAt <= now || (e.last !== 'unreachable' && e.last !== 'failed')) continue;
        e.dueAt = now;
        e.version = ++version;
        heap.push({ at: now, id, version: e.version });
        moved = true;
      }
      if (moved) arm();
    },

    abandoned(kind) {
      gaveUp.set(kind, (gaveUp.get(kind) ?? 0) + 1);
    },

    runDue,

    async start() {
      const now = clock.now();
      for (const [kind, runner] of runners) {
        if (!runner.load) continue;
        const stored = await runner.load().catch((err) => {
          log('warn', 'stored retries could not be loaded', { kind, code: toIdsyncError(err).code });
          return [] as StoredJob[];
        });
        for (const s of stored) {
          // After a start every pending job is due at once (a peer's Retry-After still holds).
          schedule({ kind, key: s.key, ...(s.peer ? { peer: s.peer } : {}), dueAt: Math.max(now, s.notBefore ?? now), ...(s.deadlineAt !== undefined ? { deadlineAt: s.deadlineAt } : {}), last: 'failed', attempts: -1 });
        }
      }
      arm();
    },

    counts() {
      const now = clock.now();
      const byKind: Record<string, RetryCounts> = {};
      const all = countsOf(jobs.values(), now);
      for (const kind of new Set([...runners.keys(), ...gaveUp.keys()])) {
        byKind[kind] = { ...countsOf([...jobs.values()].filter((e) => e.kind === kind), now), abandoned: gaveUp.get(kind) ?? 0 };
      }
      let abandoned = 0;
      for (const n of gaveUp.values()) abandoned += n;
      return { ...all, abandoned, byKind };
    },

    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
