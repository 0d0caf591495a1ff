// One step of a protocol thread: check the message against the thread's state machine
// (protocols/thread-state.ts), persist the new state, then send. A message out of order, of an
// unknown thread or from another DID than the thread's throws the state machine's coded error
// (e.p.msg.unexpected / e.p.msg.unknown-thread) before anything is stored, so a refusal changes
// no state. The thread lock covers check-and-write only, never a send: a reply that comes back
// on the return route is handled inside the send and needs the lock itself.
import { isoNow } from '../clock.js';
import { threadId } from '../didcomm/message.js';
import type { SendResult } from '../router/router.js';
import type { PlainMessage } from '../didcomm/types.js';
import { advanceThread, isFinal, requireThread, startThread, type StateMachine } from '../protocols/thread-state.js';
import { isProblemReport } from '../protocols/report-problem.js';
import { outgoingHeaders, type WalletContext } from './context.js';
import type { WalletThread } from './threads.js';
import { toIdsyncError } from '../errors.js';
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

/**
 * Applies a received `message` to its thread. `start` allows a message with no thread yet to
 * open one (an offer, a proof request); otherwise an unknown thread is refused.
 */
export async function receiveStep<S extends string>(
  ctx: WalletContext,
  machine: StateMachine<S>,
  message: PlainMessage,
  sender: string | undefined,
  options: { start?: boolean; data?: Data } = {},
): Promise<{ thread: WalletThread<S>; previous?: S }> {
  const thid = threadOfMessage(message);
  return ctx.threads.exclusive(thid, async () => {
    const existing = await ctx.threads.get<S>(thid);
    const now = isoNow(ctx.clock);
    let thread: WalletThread<S>;
    if (!existing && options.start) {
      const record = startThread(machine, 'receive', message, sender ?? message.from);
      thread = { ...record, data: { ...options.data }, createdAt: now, updatedAt: now };
    } else {
      const known = requireThread(existing, message) as WalletThread<S>;
      const record = advanceThread(machine, known, 'receive', message, sender);
      thread = { ...known, ...record, data: { ...known.data, ...options.data }, updatedAt: now };
    }
    await ctx.threads.put(thread);
    endedEvent(ctx, machine, thread);
    return { thread, previous: existing?.state };
  });
}

/** Builds nothing: sends `message` (already threaded) to the thread's peer after recording the send. */
export async function sendStep<S extends string>(
  ctx: WalletContext,
  machine: StateMachine<S>,
  message: PlainMessage,
  options: { data?: Data; start?: boolean } = {},
): Promise<SendResult | undefined> {
  const thid = threadOfMessage(message);
  const to = message.to?.[0];
  const headers = await outgoingHeaders(ctx, to);
  const outgoing: PlainMessage = { ...message, from: message.from ?? headers.from, ...(headers.return_route && !message.return_route ? { return_route: headers.return_route } : {}) };
  const before = await ctx.threads.exclusive(thid, async () => {
    const existing = await ctx.threads.get<S>(thid);
    const now = isoNow(ctx.clock);
    let thread: WalletThread<S>;
    if (!existing && options.start) {
      thread = { ...startThread(machine, 'send', outgoing, to), data: { ...options.data }, createdAt: now, updatedAt: now };
    } else {
      const known = requireThread(existing, outgoing) as WalletThread<S>;
      thread = { ...known, ...advanceThread(machine, known, 'send', outgoing), data: { ...known.data, ...options.data }, updatedAt: now };
    }
    await ctx.threads.put(thread);
    return { existing, thread };
  });
  try {
    const result = await ctx.router.send(outgoing, { to });
    endedEvent(ctx, machine, before.thread);
    return result;
  } catch (err) {
    const code = toIdsyncError(err).code;
    const resender = ctx.router.steps();
    // Stored with its thread before the send: a retry delivers it (or a later step of the thread,
    // already under way inside this send, took its place). The step stands.
    if (TRANSIENT_SEND.has(code) && resender) {
      ctx.logger('info', 'a protocol message could not be sent now; it is sent again later', { thid, type: outgoing.type, code });
      endedEvent(ctx, machine, before.thread);
      return undefined;
    }
    if ((await resender?.get(thid))?.out?.message.id === outgoing.id) await resender!.cancel(thid);
    // Not sent for good: put the thread back where it was, unless a reply moved it on meanwhile.
    await ctx.threads.exclusive(thid, async () => {
      const now = await ctx.threads.get(thid);
      if (now && now.state === before.thread.state && now.messages.length === before.thread.messages.length) {
        if (before.existing) await ctx.threads.put(before.existing);
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
