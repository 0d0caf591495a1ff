// Durable protocol steps (docs/protocols.md "Durable steps"): per thread, the last message we sent
// is stored BEFORE it goes out, in the same store batch as the step's own state (the caller's
// `extra` ops), and while it waits for the peer's answer it is a job of the party's retry
// scheduler (retry/scheduler.ts): sent again — the same message, same id, packed anew — until the
// peer answers on the thread or the deadline passes (then `onGiveUp`: the owner ends the flow in
// its failed state). A restarted party finds every open thread in the store and sends its last
// message again at once.
//
// The peer's side of a retry: a replay of a message we already handled (same id) is answered with
// the message we sent after it on that thread (answerFor), so a lost answer is recovered by the
// sender's retry. Each replay answers only the message that followed it, so two parties retrying
// never ping-pong. When the peer's last message on a thread expects no answer (an ack,
// `established`, a problem report ending the thread: kind 'answer'), our last message on it is
// deleted and the small state stays; a record nothing waits on is deleted `keepMs` after its last
// change. Which messages wait for an answer and which are only kept to answer replays is the
// caller's `kind` (protocols/resend-kinds.ts).
import type { Clock } from '../../clock.js';
import { toIdsyncError } from '../../errors.js';
import { keyedLock } from '../../keyed-lock.js';
import { setBounded } from '../../bounded.js';
import type { BatchOp, Store } from '../../store/store.js';
import type { EnvelopeMode, PlainMessage } from '../../didcomm/types.js';
import { retryAfterMsOf } from '../../didcomm/transport/media-type.js';
import { DEFAULT_BACKOFF, failureOutcome, type BackoffOptions, type SendOutcome } from '../retry/backoff.js';
import { createScheduler, type Scheduler, type StoredJob } from '../retry/scheduler.js';
import { nonEnding, PROBLEM_REPORT, stepName, stepThread, tally } from './names.js';
import { lastOf, outKey, withoutLast, type StepKind, type StepOut, type StepRecord, type StepState } from './state.js';
import { STEP_SWEEP_PAGE, stepStore, type StepCollections } from './store.js';

type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The scheduler's job kind of protocol steps. */
export const STEP_JOB = 'step';

export interface StepOptions extends BackoffOptions {
  /** Where the step records live, and the names of their two collections. */
  store: Pick<Store, 'batch' | 'collection'>;
  collections: StepCollections;
  /**
   * 'retry': the message waits for an answer; 'deliver': sent again until the peer took it (an
   * endpoint's 2xx, or the owner kept it in a pickup queue the peer collects from), then nothing
   * waits on it; 'answer': kept to answer replays; undefined: not tracked.
   */
  kind(message: PlainMessage): StepKind | undefined;
  /** The party's retry scheduler; default: one of its own, with the back-off options above. */
  scheduler?: Scheduler;
  /** Retries stop this long after the message was first sent (default 10 minutes); then onGiveUp. */
  deadlineMs?: number;
  /** A record no retry waits on is deleted this long after its last change (default 24 hours). */
  keepMs?: number;
  /**
   * A send that resolved without the peer taking the message (e.g. the owner kept it in a pickup
   * queue after the endpoint failed): retried like a failed send. Undefined when the peer took it.
   */
  notAccepted?(message: PlainMessage): SendOutcome | undefined;
  /**
   * A send that resolved but left the message with nobody (the owner dropped it: a full queue, no
   * relationship with the recipient): a 'deliver' step is then not taken, and is retried as a
   * 'retry' one would be. Undefined or false when the peer, or a queue it collects from, has it.
   */
  dropped?(message: PlainMessage): boolean;
  /** The owner ends the flow of a thread whose message was never answered in time. */
  onGiveUp?(record: StepRecord): Promise<void>;
  /** Test hook (crash-point.ts): `send:<name>` once a message's step is stored, `sent:<name>` after it went out. */
  crashPoint?(step: string): void;
}

export const DEFAULT_STEPS = { maxDelayMs: DEFAULT_BACKOFF.maxDelayMs, deadlineMs: 10 * 60_000, keepMs: 24 * 3600_000 };

export interface StepEngine {
  readonly scheduler: Scheduler;
  /** A message is about to go out: stores it (and `extra`, the rest of the step) in one batch first. */
  noteSending(message: PlainMessage, to: string, mode: EnvelopeMode, answering?: string, extra?: BatchOp[]): Promise<void>;
  /** Stores `ops` alone (the step of a message not tracked here), in one batch. */
  commit(ops: BatchOp[]): Promise<void>;
  /** The send resolved: the next retry is a liveness check, or soon when `notAccepted` says so. */
  noteSent(message: PlainMessage): void;
  /** The send failed with `error`: retried soon. */
  noteFailed(message: PlainMessage, error: { code: string; details?: unknown }): void;
  /** Where this party's sends stand now: taken when a message's handling begins, given back to noteReceived. */
  mark(): number;
  /**
   * A peer's message on a thread was handled: the peer answered, retries of that thread stop —
   * unless, while it was handled (since `mark`), we sent on the thread in answer to a later
   * message (the handling nested an exchange): that message and its retries stand.
   */
  noteReceived(message: PlainMessage, mark?: number): Promise<void>;
  /** The stored answer to a replay of `message`, if we sent one after it on its thread. */
  answerFor(message: PlainMessage): Promise<StepOut | undefined>;
  /** Sends the thread's last message again now (its schedule unchanged); false when there is none. */
  resendNow(thid: string): Promise<boolean>;
  /** Stops retrying a thread (its flow ended for us). */
  cancel(thid: string): Promise<void>;
  /** Sends again every due message (of every job kind of the scheduler); resolves with how many went out. */
  runDue(): Promise<number>;
  /** Registers the steps' jobs and resumes them (a restart resumes here); starts the scheduler it made. */
  start(): Promise<void>;
  close(): void;
  get(thid: string): Promise<StepRecord | undefined>;
}

export function createStepEngine(
  o: StepOptions,
  deps: { clock: Clock; send(out: StepOut): Promise<void>; log(level: LogLevel, msg: string, data?: Record<string, unknown>): void },
): StepEngine {
  const { clock } = deps;
  const deadline = o.deadlineMs ?? DEFAULT_STEPS.deadlineMs;
  const keepMs = o.keepMs ?? DEFAULT_STEPS.keepMs;
  /** No retry while a send is open: the transport's timeout ends it first; this only guards a send that never settles. */
  const inFlightMs = o.maxDelayMs ?? DEFAULT_STEPS.maxDelayMs;
  const own = !o.scheduler;
  const scheduler = o.scheduler ?? createScheduler({ ...o, clock, log: deps.log });
  const records = stepStore(o.store, o.collections, clock);
  const lock = keyedLock();
  let closed = false;
  /** The sends of this process, counted, and the count at each thread's last one (in memory: nesting happens within one process). */
  let sends = 0;
  const sentAt = new Map<string, number>();

  /** Threads whose record nothing waits on (no retry), by when it last changed, oldest first (see `keepMs`). */
  const idle = new Map<string, number>();
  const noteIdle = (thid: string, s: StepState) => {
    idle.delete(thid);
    if (!s.retry) idle.set(thid, s.at ?? clock.now());
  };
  let pruning = false;

  /** Deletes the records idle for `keepMs`, oldest first, one thread at a time under its lock; one run at a time. */
  function pruneIdle(): void {
    if (pruning || closed || idle.size === 0) return;
    const oldest = idle.values().next();
    if (oldest.done || oldest.value > clock.now() - keepMs) return;
    pruning = true;
    void (async () => {
      const cutoff = clock.now() - keepMs;
      for (const [thid, at] of idle) {
        if (at > cutoff || closed) break;
        idle.delete(thid);
        await lock(thid, async () => {
          const s = await records.read(thid);
          // Changed meanwhile (a write put it back at the end of `idle`, or scheduled a retry).
          if (!s || s.retry || (s.at !== undefined && s.at > cutoff)) return;
          await records.remove(thid, s);
        });
      }
    })()
      .catch((err) => deps.log('warn', 'old step records could not be deleted', { code: toIdsyncError(err).code }))
      .finally(() => {
        pruning = false;
      });
  }

  /** Applies `fn` to the thread's state under its lock; writes (one batch) only what it returns. */
  const update = (thid: string, fn: (r: StepState) => { next: StepState; out?: StepOut } | undefined, extra: BatchOp[] = []) =>
    lock(thid, async () => {
      const current = (await records.read(thid)) ?? { thid };
      const step = fn(current);
      if (!step) {
        if (extra.length) await o.store.batch(extra);
        return undefined;
      }
      const next = await records.write(thid, current, step.next, step.out, extra);
      noteIdle(thid, next);
      pruneIdle();
      return next;
    });

  const job = (thid: string) => scheduler.get(STEP_JOB, thid);

  /** The job a stored state stands for, if it waits for an answer. */
  const jobOf = (key: string, value: StepRecord): StoredJob | undefined => {
    const last = value.retry ? lastOf(value) : undefined;
    return last && value.retry ? { key, deadlineAt: value.retry.deadlineAt, ...(last.to ? { peer: last.to } : {}) } : undefined;
  };
  // start() reads every state once and keeps the jobs for the scheduler's load() that follows it.
  let startJobs: StoredJob[] | undefined;

  scheduler.register(STEP_JOB, {
    async load() {
      const kept = startJobs;
      startJobs = undefined;
      if (kept) return kept;
      const jobs: StoredJob[] = [];
      for (const { key, value } of await records.list()) {
        const j = jobOf(key, value);
        if (j) jobs.push(j);
      }
      return jobs;
    },
    async run(j) {
      const s = await records.read(j.key);
      if (!s?.retry || !lastOf(s)) return 'done';
      const out = await records.outOf(j.key, s);
      if (!out) return 'done';
      tally(stepName(out.message));
      try {
        await deps.send(out);
      } catch (err) {
        const e = toIdsyncError(err);
        deps.log('info', 'resend failed; retried later', { thid: j.key, code: e.code });
        return failureOutcome(e, retryAfterMsOf(e));
      }
      const kept = o.notAccepted?.(out.message);
      if (kept) return kept;
      if (o.kind(out.message) === 'deliver' && !o.dropped?.(out.message)) {
        await taken(j.key, out.message.id);
        // Sent, and nothing left to do: counted as a resend that went (retryDue, runDue).
        return 'delivered';
      }
      return { kind: 'accepted' };
    },
    async giveUp(j) {
      const given = await update(j.key, (r) => (r.retry ? { next: { ...r, retry: undefined, givenUp: true } } : undefined));
      if (!given) return;
      const record = await records.view(j.key, given).catch(() => withoutLast(given) as StepRecord);
      deps.log('info', 'no answer before the deadline: the thread is given up', { thid: j.key, type: record.out?.message.type });
      if (record.out) tally(`given-up:${stepName(record.out.message)}`);
      await o.onGiveUp?.(record);
    },
  });

  /**
   * A 'deliver' message the peer took: nothing waits on it any more. Sent again, it would only
   * reach the peer a second time (queued again for a wallet that collects by pickup, after its
   * messages-received deleted the first copy); its answer ends nothing here that is still open.
   */
  async function taken(thid: string, id: string): Promise<void> {
    scheduler.cancel(STEP_JOB, thid);
    await update(thid, (r) => (r.retry && lastOf(r)?.id === id ? { next: { ...r, retry: undefined } } : undefined));
  }

  /** What a resolved send means for the thread's job: accepted, or kept by the owner (retried soon). */
  function settled(message: PlainMessage, outcome: SendOutcome, to?: string): void {
    const thid = stepThread(message);
    if (!job(thid)) return;
    scheduler.settle(STEP_JOB, thid, outcome);
    if (outcome.kind === 'accepted' && to) scheduler.peerIsBack(to);
  }

  /** Deletes the copies of messages no state names: left by earlier versions, which wrote state and message apart. */
  async function sweepOuts(named: Set<string>): Promise<number> {
    let removed = 0;
    let after: string | undefined;
    for (;;) {
      const page = await records.outKeys(after);
      for (const key of page) {
        if (closed) return removed;
        if (named.has(key)) continue;
        // Message ids are ours (no NUL); a thread id comes from the peer and may hold one.
        const cut = key.lastIndexOf('\u0000');
        if (cut < 0) continue;
        const thid = key.slice(0, cut);
        await lock(thid, async () => {
          const s = await records.read(thid);
          const last = s && lastOf(s);
          if (last && outKey(thid, last.id) === key) return;
          await records.deleteOut(key);
          removed++;
        });
      }
      if (page.length < STEP_SWEEP_PAGE) return removed;
      after = page[page.length - 1];
    }
  }

  return {
    scheduler,

    async noteSending(message, to, mode, answering, extra = []) {
      const kind = o.kind(message);
      if (!kind) {
        if (extra.length) await o.store.batch(extra);
        return;
      }
      const thid = stepThread(message);
      const now = clock.now();
      const isReport = PROBLEM_REPORT.test(String(message.type));
      const waits = (kind === 'retry' || kind === 'deliver') && !isReport;
      const stored = await update(
        thid,
        (r) => {
          // The same message again (a retry, or an answer to a replay), or an older one of the thread
          // sent again: the thread's last message and its schedule stay.
          if (lastOf(r)?.id === message.id || r.sent?.includes(message.id)) return undefined;
          // A warning about a thread (e.g. e.p.msg.duplicate) changes nothing about it.
          if (isReport && nonEnding(message.body?.code)) return undefined;
          const after = answering ?? r.lastIn;
          const out: StepOut = { message, to, mode, sentAt: now, ...(after ? { after } : {}) };
          return {
            out,
            next: {
              ...r,
              ...(answering ? { lastIn: answering } : {}),
              sent: [...(r.sent ?? []), message.id].slice(-10),
              retry: waits ? { deadlineAt: now + deadline } : undefined,
            },
          };
        },
        extra,
      );
      if (stored) {
        setBounded(sentAt, thid, ++sends, 4096);
        if (waits) scheduler.schedule({ kind: STEP_JOB, key: thid, peer: to, dueAt: now + inFlightMs, deadlineAt: now + deadline });
        else scheduler.cancel(STEP_JOB, thid);
      }
      o.crashPoint?.(`send:${stepName(message)}`);
    },

    async commit(ops) {
      if (ops.length) await o.store.batch(ops);
    },

    noteSent(message) {
      const kind = o.kind(message);
      if (!kind) return;
      const kept = o.notAccepted?.(message);
      if (kind === 'deliver' && !kept && !o.dropped?.(message)) {
        const to = message.to?.[0];
        if (to && job(stepThread(message))) scheduler.peerIsBack(to);
        void taken(stepThread(message), message.id).catch((err) =>
          deps.log('warn', 'a delivered step could not be marked done', { thid: stepThread(message), code: toIdsyncError(err).code }),
        );
      } else settled(message, kept ?? { kind: 'accepted' }, message.to?.[0]);
      o.crashPoint?.(`sent:${stepName(message)}`);
    },

    noteFailed(message, error) {
      if (o.kind(message)) settled(message, failureOutcome(error, retryAfterMsOf(error)));
    },

    mark: () => sends,

    async noteReceived(message, mark) {
      const kind = o.kind(message);
      if (!kind || typeof message.id !== 'string') return;
      const isReport = PROBLEM_REPORT.test(String(message.type));
      if (isReport && nonEnding(message.body?.code)) return;
      const id = message.id;
      const thid = stepThread(message);
      let answered = true;
      await update(thid, (r) => {
        const last = lastOf(r);
        // Sent on this thread while the message was handled, answering another, later one.
        if (mark !== undefined && (sentAt.get(thid) ?? 0) > mark && last?.after !== undefined && last.after !== id) {
          answered = false;
          return undefined;
        }
        // What we sent in answer to this very message keeps its schedule (stored with it).
        if (last?.after === id) {
          answered = false;
          return r.lastIn === id ? undefined : { next: { ...r, lastIn: id } };
        }
        // The peer's last word on the thread: our last message is not needed again.
        if (kind === 'answer' && last) return { next: { ...withoutLast(r), lastIn: id, retry: undefined } };
        if (r.lastIn === id && !r.retry) return undefined;
        return { next: { ...r, lastIn: id, retry: undefined } };
      });
      if (answered) scheduler.cancel(STEP_JOB, thid);
      // DIDComm v2 §Threading pthid, Out-of-Band 2.0: a message whose parent is a message we sent
      // (an invitation) answers it, on a thread of its own.
      const parent = message.pthid;
      if (typeof parent === 'string' && parent !== thid) {
        let ended = false;
        await update(parent, (r) => {
          if (!r.retry || lastOf(r)?.id !== parent) return undefined;
          ended = true;
          return { next: { ...r, retry: undefined } };
        });
        if (ended) scheduler.cancel(STEP_JOB, parent);
      }
    },

    async answerFor(message) {
      const thid = stepThread(message);
      const r = await records.read(thid);
      const last = r && lastOf(r);
      if (!r || last?.after === undefined || last.after !== message.id) return undefined;
      const out = await records.outOf(thid, r);
      return out?.after === message.id ? out : undefined;
    },

    async resendNow(thid) {
      const r = await records.read(thid);
      const out = r && (await records.outOf(thid, r));
      if (!out) return false;
      await deps.send(out);
      return true;
    },

    async cancel(thid) {
      await update(thid, (r) => (r.retry ? { next: { ...r, retry: undefined } } : undefined));
      scheduler.cancel(STEP_JOB, thid);
    },

    runDue: () => scheduler.runDue(),

    async start() {
      const now = clock.now();
      const resting: [string, number][] = [];
      const named = new Set<string>();
      const jobs: StoredJob[] = [];
      for (const { key, value } of await records.list()) {
        if (value.last) named.add(outKey(key, value.last.id));
        if (!value.retry) resting.push([key, value.at ?? now]);
        const j = jobOf(key, value);
        if (j) jobs.push(j);
      }
      startJobs = jobs;
      for (const [thid, at] of resting.sort((a, b) => a[1] - b[1])) if (!idle.has(thid)) idle.set(thid, at);
      // A restarted party sends the last message of every open thread again now.
      if (own) await scheduler.start();
      const removed = await sweepOuts(named).catch((err) => {
        deps.log('warn', 'unnamed step messages could not be deleted', { code: toIdsyncError(err).code });
        return 0;
      });
      if (removed > 0) deps.log('info', 'deleted step messages no thread names', { removed });
      pruneIdle();
    },

    close() {
      closed = true;
      if (own) scheduler.close();
    },

    async get(thid) {
      const r = await records.read(thid);
      return r && records.view(thid, r);
    },
  };
}
