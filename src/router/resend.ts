// Durable protocol steps (issue 10 part 1): per thread, the last message we sent is stored BEFORE
// it goes out, with a retry schedule while the thread waits for the peer's answer. A send that
// failed, or a message the network lost, is sent again — the same message, same id, packed anew —
// with exponential back-off and equal jitter until the peer answers on the thread or a deadline
// passes (then `onGiveUp`: the owner ends the flow in its failed state). A restarted party
// resumes every open schedule from the store (start()).
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
  /** First retry after this (default 2 s), doubling… */
  baseDelayMs?: number;
  /** …up to this (default 60 s); each delay is drawn in [d/2, d] (equal jitter). */
  maxDelayMs?: number;
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
  noteSent(message: PlainMessage): void;
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
  const random = o.random ?? Math.random;
  const lock = keyedLock();
  /** thid → next due time of threads with a schedule. */
  const due = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let chain: Promise<unknown> = Promise.resolve();

  const delay = (attempts: number) => {
    const d = Math.min(max, base * 2 ** attempts);
    return Math.round(d / 2 + random() * (d / 2));
  };

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

  const update = (thid: string, fn: (r: ResendRecord) => ResendRecord | undefined) =>
    lock(thid, async () => {
      const current = (await o.store.get(thid)) ?? { thid };
      const next = fn(current);
      if (!next) return current;
      await o.store.put(thid, next);
      if (next.retry) due.set(thid, next.retry.nextAt);
      else due.delete(thid);
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
        const n = { ...r, retry: { ...r.retry, attempts: r.retry.attempts + 1, nextAt: now + delay(r.retry.attempts + 1) } };
        step = { send: n };
        return n;
      }).catch((err) => deps.log('warn', 'resend schedule could not be updated', { thid, code: toIdsyncError(err).code }));
      const s = step as Step;
      if (!s) continue;
      if ('give' in s) {
        deps.log('info', 'no answer before the deadline: the thread is given up', { thid, type: s.give.out?.message.type });
        await o.onGiveUp?.(s.give).catch((err) => deps.log('warn', 'giving up a thread failed', { thid, code: toIdsyncError(err).code }));
        continue;
      }
      try {
        if (o.shouldResend && !(await o.shouldResend(s.send))) continue;
        await deps.send(s.send.out!);
        sent++;
      } catch (err) {
        deps.log('info', 'resend failed; retried later', { thid, code: toIdsyncError(err).code });
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
          retry: kind === 'retry' && !isReport ? { attempts: 0, nextAt: now + delay(0), deadlineAt: now + deadline } : undefined,
        };
      });
      o.crashPoint?.(`send:${stepName(message)}`);
      arm();
    },
    noteSent(message) {
      if (o.kind(message)) o.crashPoint?.(`sent:${stepName(message)}`);
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
      for (const { key, value } of await o.store.list()) if (value.retry) due.set(key, Math.min(value.retry.nextAt, now));
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
