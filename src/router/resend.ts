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
}

export interface ResendOptions {
  /** Where records live (one per thread). */
  store: Pick<Collection<ResendRecord>, 'get' | 'put' | 'list'>;
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

/** Threads whose record a resender keeps in memory (see `cache` in createResender). */
const RECORD_CACHE_MAX = 256;

export const DEFAULT_RESEND = { baseDelayMs: 2_000, maxDelayMs: 60_000, deadlineMs: 10 * 60_000 };
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
  const proto = t.split('/').slice(-3, -2)[0] ?? '';
  const name = t.split('/').pop() ?? t;
  // present-proof and issue-credential both have `ack`; data-pipe and pickup both have `request`-ish names.
  return name === 'ack' || name === 'request' || name === 'close' ? `${proto}.${name}` : name;
}

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

  // The records this resender last read or wrote, by thread: each protocol step reads its
  // thread's record and writes it back (noteReceived, then noteSending), and the record carries
  // the whole last message (for issue-credential the credential and its status list), so reading
  // it back would parse that again. This resender is its collection's only writer (one per party);
  // update() never changes a record in place, so what is kept is what was stored. Bounded.
  const cache = new Map<string, ResendRecord>();
  const keep = (thid: string, r: ResendRecord) => {
    cache.delete(thid);
    setBounded(cache, thid, r, RECORD_CACHE_MAX);
  };

  const update = (thid: string, fn: (r: ResendRecord) => ResendRecord | undefined) =>
    lock(thid, async () => {
      let current = cache.get(thid);
      if (!current) {
        current = (await o.store.get(thid)) ?? { thid };
        keep(thid, current);
      }
      const next = fn(current);
      if (!next) return current;
      cache.delete(thid);
      await o.store.put(thid, next);
      keep(thid, next);
      if (next.retry && next.out) {
        due.set(thid, next.retry.nextAt);
        open.set(thid, { id: next.out.message.id, attempts: next.retry.attempts });
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
      type Step = { give: ResendRecord } | { send: ResendRecord } | undefined;
      let step: Step;
      await update(thid, (r) => {
        if (!r.retry || !r.out) return { ...r, retry: undefined };
        if (r.retry.nextAt > now && (due.get(thid) ?? Infinity) > now) return undefined;
        if (now >= r.retry.deadlineAt) {
          const g = { ...r, retry: undefined, givenUp: true };
          step = { give: g };
          return g;
        }
        const n = { ...r, retry: { ...r.retry, attempts: r.retry.attempts + 1, nextAt: now + inFlight() } };
        step = { send: n };
        return n;
      }).catch((err) => deps.log('warn', 'resend schedule could not be updated', { thid, code: toIdsyncError(err).code }));
      const s = step as Step;
      if (!s) continue;
      if ('give' in s) {
        deps.log('info', 'no answer before the deadline: the thread is given up', { thid, type: s.give.out?.message.type });
        if (s.give.out) tally(`given-up:${stepName(s.give.out.message)}`);
        await o.onGiveUp?.(s.give).catch((err) => deps.log('warn', 'giving up a thread failed', { thid, code: toIdsyncError(err).code }));
        continue;
      }
      const msg = s.send.out!.message;
      try {
        if (o.shouldResend && !(await o.shouldResend(s.send))) {
          afterSend(thid, msg, false);
          continue;
        }
        tally(stepName(msg));
        await deps.send(s.send.out!);
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
        if (r.out?.message.id === message.id || r.sent?.includes(message.id)) return undefined;
        // A warning about a thread (e.g. e.p.msg.duplicate) changes nothing about it.
        if (isReport && NON_ENDING(message.body?.code)) return undefined;
        const after = answering ?? r.lastIn;
        const out: ResendOut = { message, to, mode, sentAt: now, ...(after ? { after } : {}) };
        return {
          ...r,
          out,
          sent: [...(r.sent ?? []), message.id].slice(-10),
          retry: kind === 'retry' && !isReport ? { attempts: 0, nextAt: now + inFlight(), deadlineAt: now + deadline } : undefined,
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
      if (!o.kind(message) || typeof message.id !== 'string') return;
      const isReport = PROBLEM_REPORT.test(String(message.type));
      if (isReport && NON_ENDING(message.body?.code)) return;
      // What we sent in answer to this very message keeps its schedule.
      const id = message.id;
      await update(resendThread(message), (r) => ({ ...r, lastIn: id, retry: r.out?.after === id ? r.retry : undefined }));
      arm();
    },
    async answerFor(message) {
      const r = await o.store.get(resendThread(message));
      return r?.out && r.out.after !== undefined && r.out.after === message.id ? r.out : undefined;
    },
    async resendNow(thid) {
      const r = await o.store.get(thid);
      if (!r?.out) return false;
      await deps.send(r.out);
      return true;
    },
    async cancel(thid) {
      await update(thid, (r) => (r.retry ? { ...r, retry: undefined } : undefined));
      arm();
    },
    runDue,
    async start() {
      // A restarted party sends the last message of every open thread again now.
      const now = deps.clock.now();
      for (const { key, value } of await o.store.list()) {
        if (!value.retry || !value.out) continue;
        due.set(key, Math.min(value.retry.nextAt, now));
        open.set(key, { id: value.out.message.id, attempts: value.retry.attempts });
      }
      arm();
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
    get: (thid) => o.store.get(thid),
  };
}
