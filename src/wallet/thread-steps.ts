// One step of a protocol thread: check the message against the thread's state machine
// (protocols/thread-state.ts), then store the new state together with what the step sends, in
// one batch (router prepare), then send. A message out of order, of an unknown thread or from
// another DID than the thread's throws the state machine's coded error (e.p.msg.unexpected /
// e.p.msg.unknown-thread) before anything is stored, so a refusal changes no state. The thread
// lock covers check-and-store only, never a delivery: a reply that comes back on the return route
// is handled inside the delivery and needs the lock itself.
import { isoNow } from '../clock.js';
import { threadId } from '../didcomm/message.js';
import type { PreparedSend, SendResult } from '../router/router.js';
import type { BatchOp } from '../store/store.js';
import type { PlainMessage } from '../didcomm/types.js';
import { advanceThread, isFinal, requireThread, startThread, type StateMachine } from '../protocols/thread-state.js';
import { isProblemReport } from '../protocols/report-problem.js';
import { outgoingHeaders, type WalletContext } from './context.js';
import type { WalletThread } from './threads.js';
import { IdsyncError, toIdsyncError } from '../errors.js';
import { DATA_PIPE_PIURI } from '../protocols/data-pipe.js';

/**
 * Failures of a send that may pass: the message is stored with its thread and the durable-steps
 * engine (router/steps) sends it again, so the step stands (docs/protocols.md "Durable steps").
 */
const TRANSIENT_SEND = new Set(['transport_unreachable', 'transport_timeout', 'transport_retry_later', 'transport_error', 'transport_reply_unavailable', 'delivery_failed']);

type Data = Record<string, unknown>;

/** The thread a message belongs to; a problem report names it in pthid (DIDComm v2 §Problem Reports). */
export function threadOfMessage(message: PlainMessage): string {
  return isProblemReport(message) && message.pthid ? message.pthid : threadId(message);
}

/** What a step's handler answers a received message with: a message to send, and/or more store writes of the step. */
export interface StepAnswer {
  message?: PlainMessage;
  ops?: BatchOp[];
}

/** The thread a received message moves to (not stored). */
function received<S extends string>(ctx: WalletContext, machine: StateMachine<S>, existing: WalletThread<S> | undefined, message: PlainMessage, sender: string | undefined, options: { start?: boolean; data?: Data }): WalletThread<S> {
  const now = isoNow(ctx.clock);
  if (!existing && options.start) {
    const record = startThread(machine, 'receive', message, sender ?? message.from);
    return { ...record, data: { ...options.data }, createdAt: now, updatedAt: now };
  }
  const known = requireThread(existing, message) as WalletThread<S>;
  const record = advanceThread(machine, known, 'receive', message, sender);
  return { ...known, ...record, data: { ...known.data, ...options.data }, updatedAt: now };
}

/** `message` as we send it on the thread (our `from` for the peer, return_route when we cannot be reached). */
async function outgoing(ctx: WalletContext, message: PlainMessage): Promise<{ outgoing: PlainMessage; to: string | undefined }> {
  const to = message.to?.[0];
  const headers = await outgoingHeaders(ctx, to);
  return { to, outgoing: { ...message, from: message.from ?? headers.from, ...(headers.return_route && !message.return_route ? { return_route: headers.return_route } : {}) } };
}

/** The thread after we send `message` on it (not stored). */
function sending<S extends string>(ctx: WalletContext, machine: StateMachine<S>, existing: WalletThread<S> | undefined, message: PlainMessage, to: string | undefined, options: { start?: boolean; data?: Data }): WalletThread<S> {
  const now = isoNow(ctx.clock);
  if (!existing && options.start) return { ...startThread(machine, 'send', message, to), data: { ...options.data }, createdAt: now, updatedAt: now };
  const known = requireThread(existing, message) as WalletThread<S>;
  return { ...known, ...advanceThread(machine, known, 'send', message), data: { ...known.data, ...options.data }, updatedAt: now };
}

/**
 * Applies a received `message` to its thread. `start` allows a message with no thread yet to
 * open one (an offer, a proof request); otherwise an unknown thread is refused. `also` adds store
 * writes of the same step (made from the new thread), stored in one batch with it.
 */
export async function receiveStep<S extends string>(
  ctx: WalletContext,
  machine: StateMachine<S>,
  message: PlainMessage,
  sender: string | undefined,
  options: { start?: boolean; data?: Data; also?: (thread: WalletThread<S>) => Promise<BatchOp[]> } = {},
): Promise<{ thread: WalletThread<S>; previous?: S }> {
  const thid = threadOfMessage(message);
  return ctx.threads.exclusive(thid, async () => {
    const existing = await ctx.threads.get<S>(thid);
    const thread = received(ctx, machine, existing, message, sender, options);
    const more = options.also ? await options.also(thread) : [];
    await ctx.store.batch([ctx.threads.putOp(thread), ...more]);
    endedEvent(ctx, machine, thread);
    return { thread, previous: existing?.state };
  });
}

/**
 * Receives `message` and answers it in ONE step: the thread moved by the message and then by the
 * answer `answer(thread)` makes is stored in one batch with that answer and the step's other
 * writes (docs/protocols.md "Durable steps"), so a crash leaves the message unanswered and
 * unrecorded (its sender's retry is handled afresh) or answered and recorded (the retry gets the
 * stored answer), never recorded and unanswered. Without a message in the answer, the received
 * state is stored with the answer's writes (an item parked for the user).
 */
export async function answerStep<S extends string>(
  ctx: WalletContext,
  machine: StateMachine<S>,
  message: PlainMessage,
  sender: string | undefined,
  options: { start?: boolean; data?: Data; stored?: (thread: WalletThread<S>) => void },
  answer: (thread: WalletThread<S>) => Promise<StepAnswer | undefined>,
): Promise<{ thread: WalletThread<S>; previous?: S }> {
  const thid = threadOfMessage(message);
  const step = await ctx.threads.exclusive(thid, async () => {
    const existing = await ctx.threads.get<S>(thid);
    const thread = received(ctx, machine, existing, message, sender, options);
    const a = await answer(thread);
    if (!a?.message) {
      await ctx.store.batch([ctx.threads.putOp(thread), ...(a?.ops ?? [])]);
      return { existing, thread };
    }
    const out = await outgoing(ctx, a.message);
    const next = sending(ctx, machine, thread, out.outgoing, out.to, {});
    const prepared = await ctx.router.prepare(out.outgoing, { to: out.to, ops: [ctx.threads.putOp(next), ...(a.ops ?? [])] });
    return { existing, thread, next, prepared };
  });
  endedEvent(ctx, machine, step.thread);
  // Between the step's write and its answer's delivery: an answer that comes back on the return
  // route (or over a fast link) is handled before the delivery returns, so what is announced
  // about the message received must go out first.
  options.stored?.(step.thread);
  if (step.prepared) await deliverStep(ctx, machine, step.prepared, { before: step.thread, after: step.next! });
  return { thread: step.thread, previous: step.existing?.state };
}

/**
 * Sends `message` (already threaded) to the thread's peer: the thread's new state, the message
 * and `ops` (the step's other writes) are stored in one batch first, then it goes out.
 */
export async function sendStep<S extends string>(
  ctx: WalletContext,
  machine: StateMachine<S>,
  message: PlainMessage,
  options: { data?: Data; start?: boolean } & StepTake = {},
): Promise<SendResult | undefined> {
  const thid = threadOfMessage(message);
  const out = await outgoing(ctx, message);
  // The lock covers check-and-store only, never the delivery: a reply that comes back on the
  // return route is handled inside it and needs the lock itself.
  const step = await ctx.threads.exclusive(thid, async () => {
    const existing = await ctx.threads.get<S>(thid);
    if (options.expect) await expectStill(ctx, thid, existing, options.expect);
    const thread = sending(ctx, machine, existing, out.outgoing, out.to, options);
    const prepared = await ctx.router.prepare(out.outgoing, { to: out.to, ops: [ctx.threads.putOp(thread), ...(options.ops ?? [])] });
    return { existing, thread, prepared };
  });
  return deliverStep(ctx, machine, step.prepared, { before: step.existing, after: step.thread });
}

/**
 * What else a step takes, with its thread: `ops` stored in its batch (a pending item taken), and
 * what must still hold under the thread's lock for it to be taken at all (the thread where the
 * pending item found it, the item still pending): an approve and a decline of one offer at once
 * do not both answer it.
 */
export interface StepTake {
  ops?: BatchOp[];
  expect?: { state: string; pendingId?: string };
}

async function expectStill(ctx: WalletContext, thid: string, thread: WalletThread | undefined, expect: NonNullable<StepTake['expect']>): Promise<void> {
  if (thread?.state !== expect.state) throw new IdsyncError('invalid_state', `thread ${thid} is ${thread?.state ?? 'unknown'}, not ${expect.state}`);
  if (expect.pendingId !== undefined && !(await ctx.pending.get(expect.pendingId))) throw new IdsyncError('not_found', `nothing pending with id ${expect.pendingId}: it was answered meanwhile`);
}

/** Delivers a stored step; a failure that may pass leaves it to the retries, one for good puts the thread back. */
async function deliverStep<S extends string>(ctx: WalletContext, machine: StateMachine<S>, prepared: PreparedSend, t: { before?: WalletThread<S>; after: WalletThread<S> }): Promise<SendResult | undefined> {
  const thid = t.after.thid;
  try {
    const result = await ctx.router.deliver(prepared);
    endedEvent(ctx, machine, t.after);
    return result;
  } catch (err) {
    const code = toIdsyncError(err).code;
    const steps = ctx.router.steps();
    // Stored with its thread before the send: a retry delivers it (or a later step of the thread,
    // already under way inside this send, took its place). The step stands.
    if (TRANSIENT_SEND.has(code) && steps) {
      ctx.logger('info', 'a protocol message could not be sent now; it is sent again later', { thid, type: prepared.message.type, code });
      endedEvent(ctx, machine, t.after);
      return undefined;
    }
    if ((await steps?.get(thid))?.out?.message.id === prepared.message.id) await steps!.cancel(thid);
    // Not sent for good: put the thread back where it was, unless a reply moved it on meanwhile.
    await ctx.threads.exclusive(thid, async () => {
      const now = await ctx.threads.get(thid);
      if (now && now.state === t.after.state && now.messages.length === t.after.messages.length) {
        if (t.before) await ctx.threads.put(t.before);
        else await ctx.threads.put({ ...now, state: 'abandoned', data: { ...now.data, error: 'send_failed' } });
      }
    });
    throw err;
  }
}

function endedEvent<S extends string>(ctx: WalletContext, machine: StateMachine<S>, thread: WalletThread<S>): void {
  if (isFinal(machine, thread.state)) ctx.events.emit('thread-ended', { thid: thread.thid, protocol: thread.protocol, state: thread.state });
}

/**
 * The durable-steps engine gave up on a thread (no answer before its deadline): the thread ends
 * `abandoned` with error `unanswered`, and a Data Pipe still requested fails.
 */
export async function stepGivenUp(ctx: WalletContext, thid: string): Promise<void> {
  const thread = await ctx.threads.exclusive(thid, async () => {
    const t = await ctx.threads.get(thid);
    if (!t || t.state === 'abandoned' || t.state === 'done' || t.state === 'established' || t.state === 'closed') return undefined;
    const ended: WalletThread = { ...t, state: 'abandoned', data: { ...t.data, error: 'unanswered' }, updatedAt: isoNow(ctx.clock) };
    await ctx.threads.put(ended);
    return ended;
  });
  if (!thread) return;
  if (thread.protocol === DATA_PIPE_PIURI) {
    const id = String(thread.data.connectionId ?? thread.thid);
    const c = await ctx.connections.get(id);
    if (c && c.state === 'requested') await ctx.connections.update(id, { state: 'failed', meta: { ...c.meta, error: 'unanswered' } });
  }
  ctx.events.emit('thread-ended', { thid: thread.thid, protocol: thread.protocol, state: 'abandoned' });
}
