// Durable protocol steps (issue 10 part 1): per thread, the last message we sent is stored BEFORE
// it goes out, with a retry schedule while the thread waits for the peer's answer. A send that
// failed, or a message the network lost, is sent again — the same message, same id, packed anew —
// with exponential back-off and equal jitter until the peer answers on the thread or a deadline
// passes (then `onGiveUp`: the owner ends the flow in its failed state). A restarted party
// resumes every open schedule from the store (start()).
//
// When a retry is due depends on what became of the last send (docs/protocols.md "Durable steps"):
// - while a send is open, nothing is sent again (the transport's own timeout ends it; under load
//   an answer takes longer than the first back-off, and a resend then only adds to the load);
// - a send that failed (unreachable, timed out, 503/429, or kept by the owner for later: the
//   `notAccepted` hook) is retried soon: from `baseDelayMs` (2 s), doubling, never before a
//   Retry-After;
// - a message the peer accepted (2xx) is durably the peer's: sending it again is only for
//   liveness (a peer or network that lost it anyway), from `acceptedDelayMs` (30 s), doubling.
// Due times live in memory; the store keeps the schedule's attempts and deadline, and a restarted
// party sends every open thread's last message again at once.
//
// What is stored: per thread, a small state (the peer's last message, the schedule, the ids sent)
// that changes at every step, and — with `outs` — the last message itself apart, under
// `<thread>\0<message id>`, written once when it is first sent and never rewritten: a step
// that only moves the state does not encode the whole message again (for issue-credential, the
// credential and its status list). A new last message is stored before the state names it, and
// the one it replaces is deleted after, so a crash between the writes leaves the state naming a
// message that is there. Without `outs` (and in records written before), the message is inline.
// A crash between the writes can still leave a copy no state names (a new message stored but not
// yet named, or the one replaced not yet deleted; pruning deletes the message before the state for
// the same reason): start() lists `outs` once and deletes those.
// When the peer's last message on a thread expects no answer (an ack, `established`, a problem
// report that ends the thread: kind 'answer'), the peer has everything we sent, and no replay of a
// message of its own is coming: our last message is deleted, the small state stays.
//
// The peer's side of a retry: a replay of a message we already handled (same id) is answered with
// the message we sent after it on that thread (`after`), instead of e.p.msg.duplicate, so a lost
// answer is recovered by the sender's retry. Each replay answers only the message that followed
// it, so two parties retrying never ping-pong: the chain moves forward along the thread and stops.
//
// Which messages are retried (they wait for an answer) and which are only kept to answer replays
// (acks, `established`, problem reports) is the caller's `kind` (protocols/resend-kinds.ts).
import type { Clock } from '../clock.js';
import { toIdsyncError } from '../errors.js';
import { keyedLock } from '../keyed-lock.js';
import type { Collection } from '../store/store.js';
import type { EnvelopeMode, PlainMessage } from '../didcomm/types.js';
import { threadId } from '../didcomm/message.js';
import { retryAfterMsOf } from '../didcomm/transport/media-type.js';
import { setBounded } from '../bounded.js';

type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type ResendKind = 'retry' | 'answer';

export interface ResendOut {
  message: PlainMessage;
  to: string;
  mode: EnvelopeMode;
  /** The id of the peer's message this one answered (the last one handled on the thread before it). */
  after?: string;
  sentAt: number;
}

/** A thread's record as the resender's users see it: its state and its last message. */
export interface ResendRecord {
  thid: string;
  /** The last message of the peer handled on this thread. */
  lastIn?: string;
  out?: ResendOut;
  /** While we wait for the peer: attempts made (the first send is 0), next one, deadline (injected clock ms). */
  retry?: { attempts: number; nextAt: number; deadlineAt: number };
  /** The deadline passed without an answer. */
  givenUp?: boolean;
  /** Ids of the messages we sent on this thread (the last few): sending one again is a resend, never a new step. */
  sent?: string[];
  /** When the record last changed (injected clock ms): a record nothing waits on is deleted `keepMs` after. */
  at?: number;
}

/**
 * A thread's record as stored: with `outs`, its last message is named by `last` and kept there;
 * otherwise (and in records written before) it is `out`, inline.
 */
export interface ResendState extends Omit<ResendRecord, 'out'> {
  out?: ResendOut;
  /** The last message we sent on the thread (stored in `outs`) and the id of the peer's message it answered. */
  last?: { id: string; after?: string };
}

export interface ResendOptions {
  /** Where the threads' states live (one per thread); without `del`, records are kept for good. */
  store: Pick<Collection<ResendState>, 'get' | 'put' | 'list'> & Partial<Pick<Collection<ResendState>, 'del'>>;
  /**
   * Where each thread's last message lives, apart from its state (see the top of this file); omitted:
   * inline. With `list`, start() deletes the copies no state names (left by a crash between writes).
   */
  outs?: Pick<Collection<ResendOut>, 'get' | 'put' | 'del'> & Partial<Pick<Collection<ResendOut>, 'list'>>;
  /** 'retry': the message waits for an answer; 'answer': kept to answer replays; undefined: not tracked. */
  kind(message: PlainMessage): ResendKind | undefined;
  /** First retry of a send that failed after this (default 2 s), doubling… */
  baseDelayMs?: number;
  /** …up to this (default 60 s); each delay is drawn in [d/2, d] (equal jitter). */
  maxDelayMs?: number;
  /**
   * First retry of a message the peer accepted (its send resolved), doubling up to maxDelayMs
   * (default 15 × baseDelayMs, within [baseDelayMs, maxDelayMs]: 30 s with the defaults).
   */
  acceptedDelayMs?: number;
  /**
   * A send that resolved without the peer taking the message (e.g. the owner kept it in a pickup
   * queue after the endpoint failed): retried like a failed send, not before `retryAfterMs`.
   * Undefined (the default) when the peer took it.
   */
  notAccepted?(message: PlainMessage): { retryAfterMs?: number } | undefined;
  /** Retries stop this long after the message was first sent (default 10 minutes); then onGiveUp. */
  deadlineMs?: number;
  /**
   * A thread's record (state and last message) is deleted this long after its last change once no
   * retry is scheduled (default 24 hours): by then the peer, retrying for its own deadline, has
   * stopped asking (docs/protocols.md "Durable steps").
   */
  keepMs?: number;
  /** In [0, 1); injected for deterministic jitter. */
  random?: () => number;
  /** The owner ends the flow of a thread whose message was never answered in time. */
  onGiveUp?(record: ResendRecord): Promise<void>;
  /** Vetoes one resend (e.g. the message still waits in a pickup queue). */
  shouldResend?(record: ResendRecord): Promise<boolean>;
  /** Test hook (crash-point.ts): called with `send:<name>` once a message's record is stored, `sent:<name>` after it went out. */
  crashPoint?(step: string): void;
}

/**
 * Resends made by every resender of this thread, by step (`presentation`, `given-up:…`): a fleet
 * run reports them, since under overload a retry adds load exactly when the peer is saturated.
 */
export const resendTally = new Map<string, number>();
const tally = (key: string) => resendTally.set(key, (resendTally.get(key) ?? 0) + 1);

/** Threads whose state a resender keeps in memory (see `cache` in createResender); states are small. */
const RECORD_CACHE_MAX = 4096;

/** Where a thread's last message is kept in `outs`. */
export const outKey = (thid: string, id: string): string => `${thid}\u0000${id}`;

/** The last message a state names: its id and the peer's message it answered. */
function lastOf(s: ResendState): { id: string; after?: string } | undefined {
  if (s.last) return s.last;
  return s.out ? { id: s.out.message.id, ...(s.out.after !== undefined ? { after: s.out.after } : {}) } : undefined;
}

/** `s` without its last message (neither named nor inline). */
function withoutLast(s: ResendState): ResendState {
  const { out: _out, last: _last, ...rest } = s;
  return rest;
}

export const DEFAULT_RESEND = { baseDelayMs: 2_000, maxDelayMs: 60_000, deadlineMs: 10 * 60_000, keepMs: 24 * 3600_000 };
const PROBLEM_REPORT = /\/report-problem\/2\.\d+\/problem-report$/;
/** Warnings and "I had that already" do not end a thread (DIDComm v2 §Problem Codes). */
const NON_ENDING = (code: unknown) => typeof code === 'string' && (code.startsWith('w.') || /^e\.p\.msg\.duplicate/.test(code));

/** The thread a message belongs to (a problem report names it in pthid). */
export function resendThread(message: PlainMessage): string {
  return PROBLEM_REPORT.test(String(message.type)) && message.pthid ? message.pthid : threadId(message);
}

/** The last path segment of the type, for crash point names: `send:offer-credential`. */
export function stepName(message: PlainMessage): string {
  const t = String(message.type);
  let step = stepNames.get(t);
  if (step === undefined) {
    const parts = t.split('/');
    const proto = parts.slice(-3, -2)[0] ?? '';
    const name = parts.pop() ?? t;
    // present-proof and issue-credential both have `ack`; data-pipe and pickup both have `request`-ish names.
    step = name === 'ack' || name === 'request' || name === 'close' ? `${proto}.${name}` : name;
    setBounded(stepNames, t, step, 64);
  }
  return step;
}
/** Step names by message type: named at every tracked send (crash points), from a few types. */
const stepNames = new Map<string, string>();

export interface Resender {
  /** A message is about to go out: store it (and its retry schedule) first. */
  noteSending(message: PlainMessage, to: string, mode: EnvelopeMode, answering?: string): Promise<void>;
  /** The send resolved: the next retry is a liveness check, or soon when `notAccepted` says so. */
  noteSent(message: PlainMessage): void;
  /** The send failed: retried soon. */
  noteFailed(message: PlainMessage, retryAfterMs?: number): void;
  /** A peer's message on a thread is being handled: the peer answered, retries of that thread stop. */
  noteReceived(message: PlainMessage): Promise<void>;
  /** The stored answer to a replay of `message`, if we sent one after it on its thread. */
  answerFor(message: PlainMessage): Promise<ResendOut | undefined>;
  /** Sends the thread's last message again now (its schedule unchanged); false when there is none. */
  resendNow(thid: string): Promise<boolean>;
  /** Stops retrying a thread (its flow ended for us). */
  cancel(thid: string): Promise<void>;
  /** Sends again every due message; resolves with how many were sent. */
  runDue(): Promise<number>;
  /** Loads open schedules and arms the timer (a restart resumes here). */
  start(): Promise<void>;
  close(): void;
  get(thid: string): Promise<ResendRecord | undefined>;
}

export function createResender(
  o: ResendOptions,
  deps: { clock: Clock; send(out: ResendOut): Promise<void>; log(level: LogLevel, msg: string, data?: Record<string, unknown>): void },
): Resender {
  const base = o.baseDelayMs ?? DEFAULT_RESEND.baseDelayMs;
  const max = o.maxDelayMs ?? DEFAULT_RESEND.maxDelayMs;
  const deadline = o.deadlineMs ?? DEFAULT_RESEND.deadlineMs;
  const keepMs = o.keepMs ?? DEFAULT_RESEND.keepMs;
  const accepted = Math.min(max, Math.max(base, o.acceptedDelayMs ?? 15 * base));
  const random = o.random ?? Math.random;
  const lock = keyedLock();
  /** thid → next due time of threads with a schedule. */
  const due = new Map<string, number>();
  /** thid → the message being retried and the attempts made (what noteSent/noteFailed reschedule). */
  const open = new Map<string, { id: string; attempts: number }>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let chain: Promise<unknown> = Promise.resolve();

  const jitter = (d: number) => Math.round(d / 2 + random() * (d / 2));
  const delay = (attempts: number) => jitter(Math.min(max, base * 2 ** attempts));
  /** No retry while a send is open: the transport's timeout ends it first; this only guards a send that never settles. */
  const inFlight = () => max;

  /** After a send of thread `thid`'s message `id` settled: when to try again (in memory). */
  function settle(thid: string, id: string, at: number): void {
    const cur = open.get(thid);
    if (!cur || cur.id !== id || !due.has(thid)) return; // answered (or cancelled) meanwhile
    due.set(thid, at);
    arm();
  }
  function afterSend(thid: string, message: PlainMessage, failed: boolean, retryAfterMs?: number): void {
    const cur = open.get(thid);
    if (!cur || cur.id !== message.id) return;
    const refused = failed ? { retryAfterMs } : o.notAccepted?.(message);
    const now = deps.clock.now();
    const wait = refused ? Math.max(delay(cur.attempts), refused.retryAfterMs ?? 0) : jitter(Math.min(max, accepted * 2 ** cur.attempts));
    settle(thid, message.id, now + wait);
  }

  function arm(): void {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = undefined;
    let first = Infinity;
    for (const t of due.values()) first = Math.min(first, t);
    if (first === Infinity) return;
    // Wall-time wait from the injected clock's distance; tests with a manual clock call runDue().
    timer = setTimeout(() => {
      timer = undefined;
      void runDue();
    }, Math.max(10, Math.min(first - deps.clock.now(), 2 ** 31 - 1)));
    timer.unref();
  }

  // The states this resender last read or wrote, by thread: each protocol step reads its thread's
  // state and writes it back (noteReceived, then noteSending), and every message handled asks
  // answerFor() about its thread. This resender is its collections' only writer (one per party);
  // update() never changes a state in place, so what is kept is what was stored. Bounded.
  const cache = new Map<string, ResendState>();
  const keep = (thid: string, r: ResendState) => {
    cache.delete(thid);
    setBounded(cache, thid, r, RECORD_CACHE_MAX);
  };
  const read = async (thid: string): Promise<ResendState | undefined> => {
    const known = cache.get(thid);
    if (known) return known;
    const r = await o.store.get(thid);
    if (r) keep(thid, r);
    return r;
  };

  /** The thread's last message: inline, or read from `outs`. */
  async function outOf(thid: string, s: ResendState): Promise<ResendOut | undefined> {
    if (s.out) return s.out;
    return s.last && o.outs ? o.outs.get(outKey(thid, s.last.id)) : undefined;
  }

  /** The record as users see it (get(), onGiveUp). */
  async function view(thid: string, s: ResendState): Promise<ResendRecord> {
    const { last: _last, out: _out, ...rest } = s;
    const out = await outOf(thid, s);
    return out ? { ...rest, out } : rest;
  }

  /**
   * Writes `next` for thread `thid` (see "What is stored" above): `out`, a new last message, is
   * stored first; the message `current` named is deleted after, once `next` names another or none.
   */
  async function write(thid: string, current: ResendState, next: ResendState, out?: ResendOut): Promise<ResendState> {
    let stored = next;
    const before = current.last;
    if (out && o.outs) {
      await o.outs.put(outKey(thid, out.message.id), out);
      stored = { ...withoutLast(next), last: { id: out.message.id, ...(out.after !== undefined ? { after: out.after } : {}) } };
    } else if (out) {
      stored = { ...withoutLast(next), out };
    }
    stored.at = deps.clock.now();
    cache.delete(thid);
    await o.store.put(thid, stored);
    keep(thid, stored);
    // The message the state named before, once no longer named (a crash before this leaves only an unnamed copy).
    if (before && o.outs && stored.last?.id !== before.id) await o.outs.del(outKey(thid, before.id));
    return stored;
  }

  /** Threads whose record nothing waits on (no retry), by when it last changed, oldest first (see `keepMs`). */
  const idle = new Map<string, number>();
  const noteIdle = (thid: string, s: ResendState) => {
    idle.delete(thid);
    if (!s.retry) idle.set(thid, s.at ?? deps.clock.now());
  };
  let pruning = false;

  /** Deletes the records idle for `keepMs`, oldest first, one thread at a time under its lock; one run at a time. */
  function pruneIdle(): void {
    if (pruning || closed || !o.store.del || idle.size === 0) return;
    const first = idle.values().next();
    if (first.done || first.value > deps.clock.now() - keepMs) return;
    const del = o.store.del.bind(o.store);
    pruning = true;
    void (async () => {
      const cutoff = deps.clock.now() - keepMs;
      for (const [thid, at] of idle) {
        if (at > cutoff || closed) break;
        idle.delete(thid);
        await lock(thid, async () => {
          const s = await read(thid);
          // Changed meanwhile (a write put it back at the end of `idle`, or scheduled a retry).
          if (!s || s.retry || (s.at !== undefined && s.at > cutoff)) return;
          // The message first: a crash between the two leaves a state naming a missing message (read
          // as none), never a message that no state names.
          if (s.last && o.outs) await o.outs.del(outKey(thid, s.last.id));
          cache.delete(thid);
          await del(thid);
        });
      }
    })()
      .catch((err) => deps.log('warn', 'old resend records could not be deleted', { code: toIdsyncError(err).code }))
      .finally(() => {
        pruning = false;
      });
  }

  const update = (thid: string, fn: (r: ResendState) => { next: ResendState; out?: ResendOut } | undefined) =>
    lock(thid, async () => {
      let current = await read(thid);
      if (!current) keep(thid, (current = { thid }));
      const step = fn(current);
      if (!step) return current;
      const next = await write(thid, current, step.next, step.out);
      noteIdle(thid, next);
      pruneIdle();
      const last = lastOf(next);
      if (next.retry && last) {
        due.set(thid, next.retry.nextAt);
        open.set(thid, { id: last.id, attempts: next.retry.attempts });
      } else {
        due.delete(thid);
        open.delete(thid);
      }
      return next;
    });

  async function pass(): Promise<number> {
    const now = deps.clock.now();
    let sent = 0;
    for (const [thid, at] of [...due]) {
      if (closed) break;
      if (at > now) continue;
      type Step = { give: ResendState } | { send: ResendState } | undefined;
      let step: Step;
      await update(thid, (r) => {
        if (!r.retry || !lastOf(r)) return { next: { ...r, retry: undefined } };
        if (r.retry.nextAt > now && (due.get(thid) ?? Infinity) > now) return undefined;
        if (now >= r.retry.deadlineAt) {
          const g = { ...r, retry: undefined, givenUp: true };
          step = { give: g };
          return { next: g };
        }
        const n = { ...r, retry: { ...r.retry, attempts: r.retry.attempts + 1, nextAt: now + inFlight() } };
        step = { send: n };
        return { next: n };
      }).catch((err) => deps.log('warn', 'resend schedule could not be updated', { thid, code: toIdsyncError(err).code }));
      const s = step as Step;
      if (!s) continue;
      if ('give' in s) {
        const record = await view(thid, s.give).catch(() => withoutLast(s.give) as ResendRecord);
        deps.log('info', 'no answer before the deadline: the thread is given up', { thid, type: record.out?.message.type });
        if (record.out) tally(`given-up:${stepName(record.out.message)}`);
        await o.onGiveUp?.(record).catch((err) => deps.log('warn', 'giving up a thread failed', { thid, code: toIdsyncError(err).code }));
        continue;
      }
      const record = await view(thid, s.send).catch((err) => {
        deps.log('warn', 'the message to send again could not be read', { thid, code: toIdsyncError(err).code });
        return undefined;
      });
      if (!record?.out) continue;
      const msg = record.out.message;
      try {
        if (o.shouldResend && !(await o.shouldResend(record))) {
          afterSend(thid, msg, false);
          continue;
        }
        tally(stepName(msg));
        await deps.send(record.out);
        afterSend(thid, msg, false);
        sent++;
      } catch (err) {
        const e = toIdsyncError(err);
        deps.log('info', 'resend failed; retried later', { thid, code: e.code });
        afterSend(thid, msg, true, retryAfterMsOf(e));
      }
    }
    arm();
    return sent;
  }

  /** Copies of messages listed per page when start() looks for unnamed ones (each up to tens of KB). */
  const SWEEP_PAGE = 256;

  /**
   * Deletes the copies in `outs` that no state names (see "What is stored"), given the keys the
   * states named when they were read. Each is checked again under its thread's lock against the
   * thread's current state, so a message being stored while this runs is never taken.
   */
  async function sweepOuts(named: Set<string>): Promise<number> {
    const outs = o.outs;
    if (!outs?.list) return 0;
    let removed = 0;
    let after: string | undefined;
    for (;;) {
      const page = await outs.list({ limit: SWEEP_PAGE, ...(after !== undefined ? { gt: after } : {}) });
      for (const { key } of page) {
        if (closed) return removed;
        if (named.has(key)) continue;
        // Message ids are ours (no NUL); a thread id comes from the peer and may hold one.
        const cut = key.lastIndexOf('\u0000');
        if (cut < 0) continue;
        const thid = key.slice(0, cut);
        await lock(thid, async () => {
          const s = await read(thid);
          const last = s && lastOf(s);
          if (last && outKey(thid, last.id) === key) return;
          await outs.del(key);
          removed++;
        });
      }
      if (page.length < SWEEP_PAGE) return removed;
      after = page[page.length - 1]!.key;
    }
  }

  function runDue(): Promise<number> {
    const p = chain.then(pass, pass);
    chain = p.catch(() => undefined);
    return p;
  }

  return {
    async noteSending(message, to, mode, answering) {
      const kind = o.kind(message);
      if (!kind) return;
      const thid = resendThread(message);
      const now = deps.clock.now();
      const isReport = PROBLEM_REPORT.test(String(message.type));
      await update(thid, (r) => {
        // The same message again (a retry, or an answer to a replay), or an older one of the thread
        // sent again: the thread's last message and its schedule stay.
        if (lastOf(r)?.id === message.id || r.sent?.includes(message.id)) return undefined;
        // A warning about a thread (e.g. e.p.msg.duplicate) changes nothing about it.
        if (isReport && NON_ENDING(message.body?.code)) return undefined;
        const after = answering ?? r.lastIn;
        const out: ResendOut = { message, to, mode, sentAt: now, ...(after ? { after } : {}) };
        return {
          out,
          next: {
            ...r,
            sent: [...(r.sent ?? []), message.id].slice(-10),
            retry: kind === 'retry' && !isReport ? { attempts: 0, nextAt: now + inFlight(), deadlineAt: now + deadline } : undefined,
          },
        };
      });
      o.crashPoint?.(`send:${stepName(message)}`);
      arm();
    },
    noteSent(message) {
      if (!o.kind(message)) return;
      afterSend(resendThread(message), message, false);
      o.crashPoint?.(`sent:${stepName(message)}`);
    },
    noteFailed(message, retryAfterMs) {
      if (o.kind(message)) afterSend(resendThread(message), message, true, retryAfterMs);
    },
    async noteReceived(message) {
      const kind = o.kind(message);
      if (!kind || typeof message.id !== 'string') return;
      const isReport = PROBLEM_REPORT.test(String(message.type));
      if (isReport && NON_ENDING(message.body?.code)) return;
      const id = message.id;
      await update(resendThread(message), (r) => {
        const last = lastOf(r);
        // What we sent in answer to this very message keeps its schedule.
        if (last?.after === id) return { next: { ...r, lastIn: id } };
        // The peer's last word on the thread (see the top of this file): our last message is not needed again.
        if (kind === 'answer' && last) return { next: { ...withoutLast(r), lastIn: id, retry: undefined } };
        return { next: { ...r, lastIn: id, retry: undefined } };
      });
      arm();
    },
    async answerFor(message) {
      const thid = resendThread(message);
      const r = await read(thid);
      const last = r && lastOf(r);
      if (!r || last?.after === undefined || last.after !== message.id) return undefined;
      const out = await outOf(thid, r);
      return out?.after === message.id ? out : undefined;
    },
    async resendNow(thid) {
      const r = await read(thid);
      const out = r && (await outOf(thid, r));
      if (!out) return false;
      await deps.send(out);
      return true;
    },
    async cancel(thid) {
      await update(thid, (r) => (r.retry ? { next: { ...r, retry: undefined } } : undefined));
      arm();
    },
    runDue,
    async start() {
      // A restarted party sends the last message of every open thread again now.
      const now = deps.clock.now();
      const resting: [string, number][] = [];
      const named = new Set<string>();
      for (const { key, value } of await o.store.list()) {
        const last = lastOf(value);
        if (value.last) named.add(outKey(key, value.last.id));
        if (!value.retry) resting.push([key, value.at ?? now]);
        if (!value.retry || !last) continue;
        due.set(key, Math.min(value.retry.nextAt, now));
        open.set(key, { id: last.id, attempts: value.retry.attempts });
      }
      for (const [thid, at] of resting.sort((a, b) => a[1] - b[1])) if (!idle.has(thid)) idle.set(thid, at);
      arm();
      // Copies left by a crash between writes: nothing else ever lists `outs`.
      const removed = await sweepOuts(named).catch((err) => {
        deps.log('warn', 'unnamed resend messages could not be deleted', { code: toIdsyncError(err).code });
        return 0;
      });
      if (removed > 0) deps.log('info', 'deleted resend messages no thread names', { removed });
      pruneIdle();
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
    async get(thid) {
      const r = await read(thid);
      return r && view(thid, r);
    },
  };
}
