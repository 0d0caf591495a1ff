// What the router sends: packing and delivery, replies (over the return route when asked), its
// own problem reports, and the message log records of all of them.
import type { EventEmitter } from 'node:events';
import type { Clock, IdGenerator } from '../clock.js';
import type { RuleRegistry } from '../conformance/registry.js';
import { refusalsOf, type ConformanceResult } from '../conformance/types.js';
import { IdsyncError, isIdsyncError, toIdsyncError, type ErrorCode } from '../errors.js';
import type { MessageRecord } from '../store/messages.js';
import { createMessage, sameDid, threadId, type MessageDraft } from '../didcomm/message.js';
import { replySenderKid, senderOf } from './addressing.js';
import {
  type LogLevel,
  type Outbound,
  type PackFn,
  type ProblemReporter,
  type ReceiveInfo,
  type RouterOptions,
  type RouterResult,
  type PreparedSend,
  type SendOptions,
  type SendResult,
} from './types.js';
import type { StepEngine } from './steps/engine.js';
import { stepThread } from './steps/names.js';
import type { BatchOp } from '../store/store.js';
import { keepJsonText } from '../json-text.js';
import type { EnvelopeMode, PackResult, PlainMessage, Transport, UnpackMetadata } from '../didcomm/types.js';

export type LogInput = Omit<MessageRecord, 'at'>;

/** The parts of one router that sending needs (router.ts builds it once). */
export interface RouterCore {
  options: RouterOptions;
  clock: Clock;
  ids: IdGenerator;
  events: EventEmitter;
  conformance: RuleRegistry;
  strict: boolean;
  pack: PackFn;
  /** Our DIDs (live: addDid adds to it). */
  myDids: string[];
  reporter(): ProblemReporter | undefined;
  /** Writes a message log record; never throws. Returns its seq. */
  record(rec: LogInput): Promise<string | undefined>;
  /** Completes record `seq` with `patch` (or, for a log that cannot update, writes rec + patch now); never throws. */
  finishRecord(seq: string | undefined, rec: LogInput, patch: Partial<LogInput>): Promise<void>;
  log(level: LogLevel, msg: string, data?: Record<string, unknown>): void;
  receive(packed: string, info?: ReceiveInfo): Promise<RouterResult>;
  /** The durable steps (steps/engine.ts), when configured. */
  steps(): StepEngine | undefined;
  /** The id of the message being handled on thread `thid`, if any (what a send on it answers). */
  handling(thid: string): string | undefined;
}

/** A received message being handled. */
export interface Incoming {
  message: PlainMessage;
  metadata: UnpackMetadata;
  info: ReceiveInfo;
  /** Replies sent on the return route, for the RouterResult. */
  replies: string[];
  /** Our DID as the message addressed it (router-addressing.ts addressedDid). */
  me?: string;
}

const AUTHCRYPT_MODES: readonly EnvelopeMode[] = ['authcrypt', 'anoncrypt-authcrypt', 'authcrypt-signed'];

/** The refusal for failed MUST rules, coded by the layer of the first one. */
export function refusalFor(failures: ConformanceResult[]): IdsyncError {
  const first = failures[0];
  const code: ErrorCode =
    first.layer === 'plaintext' ? 'message_malformed'
    : first.layer === 'protocol' ? 'message_invalid_body'
    : first.rule === 'envelope.from-matches-sender' || first.rule === 'envelope.from-matches-signer' ? 'sender_mismatch'
    : 'envelope_nonconformant';
  return new IdsyncError(code, `${first.rule}: ${first.detail ?? 'failed'}`, { details: { failures: failures.map((f) => ({ rule: f.rule, detail: f.detail })) } });
}

function outgoingChecks(core: RouterCore, message: PlainMessage, unchecked?: boolean): ConformanceResult[] {
  const results = core.conformance.check(message);
  const errors = refusalsOf(results);
  if (core.strict && !unchecked && errors.length) throw refusalFor(errors);
  return results;
}

/**
 * `senderKid`: the authcrypt sender key id (router-addressing.ts replySenderKid), else `from` itself.
 * `message` is one just made for this send: what stores it next (its step, the message log) copies
 * the text that went into the envelope (json-text.ts), the message as sent.
 */
async function packFor(core: RouterCore, message: PlainMessage, to: string, mode: EnvelopeMode, senderKid?: string, forward?: boolean): Promise<PackResult> {
  const packed = await core.pack(message, { mode, to, from: senderKid ?? message.from, signBy: message.from, ...(forward === false ? { forward } : {}) }, core.options.envelope);
  if (packed.plaintext !== undefined) keepJsonText(message, packed.plaintext);
  return packed;
}

/**
 * Logs an outgoing message when it is made, before it is sent, and completes the record with
 * the outcome: the peer may answer while our send is still open (an HTTP POST whose handler
 * replies to our endpoint), and the log must list the message before its answer. A log that
 * cannot update records once, when the outcome is known.
 */
async function logged<T>(core: RouterCore, rec: LogInput, send: () => Promise<T>): Promise<T> {
  const seq = core.options.log?.update ? await core.record({ ...rec, result: 'sending' }) : undefined;
  let value: T;
  try {
    value = await send();
  } catch (err) {
    await core.finishRecord(seq, rec, { ...rec, result: 'failed', errorCode: toIdsyncError(err, 'delivery_failed').code });
    throw err;
  }
  // The whole record as the patch: a log wrapper may rewrite the outcome by message id (the
  // service's marks 'queued' and 'dropped', service/didcomm/agent.ts).
  await core.finishRecord(seq, rec, { ...rec });
  return value;
}

function outRecord(message: PlainMessage, packed: PackResult, result: string, results: ConformanceResult[], extra: Partial<LogInput> = {}): LogInput {
  return {
    id: message.id, direction: 'out', type: message.type, thid: message.thid, pthid: message.pthid, from: message.from,
    to: message.to, mode: packed.mode, size: Buffer.byteLength(packed.packed), result, conformance: results, message, ...extra,
  };
}

/**
 * The first half of Router.send: the message made, checked and packed, then stored before it goes
 * out (steps/engine.ts) in ONE batch with `opts.ops`, the rest of its step. `senderKid` as for
 * packFor (replies only).
 */
export async function prepareMessage(core: RouterCore, draft: MessageDraft, opts: SendOptions = {}, senderKid?: string): Promise<PreparedSend> {
  const { clock, ids, options } = core;
  const mode = opts.mode ?? options.defaultMode ?? 'authcrypt';
  const to = opts.to ?? (Array.isArray(draft.to) ? (draft.to as string[])[0] : undefined);
  if (!to) throw new IdsyncError('didcomm_invalid_argument', 'send needs a recipient: options.to or message.to');
  const from = (draft.from as string | undefined) ?? opts.from ?? (mode === 'anoncrypt' || mode === 'plaintext' ? undefined : core.myDids[0]);
  const message = createMessage({ ...draft, to: (draft.to as string[] | undefined) ?? [to], from }, { clock, ids }, { expiresInMs: opts.expiresInMs });
  const results = outgoingChecks(core, message, opts.unchecked);
  const packed = await packFor(core, message, to, mode, senderKid, opts.forward);
  if (!options.send) throw new IdsyncError('no_outbound', 'the router has no outbound delivery function (options.send)');
  const returnRoute = message.return_route === 'all' || message.return_route === 'thread';
  const endpoint = opts.via ?? packed.serviceEndpoint;
  const untracked = opts.untracked === true;
  await storeStep(core, message, to, packed.mode, untracked, opts.ops);
  return { message, packed, to, ...(endpoint !== undefined ? { endpoint } : {}), returnRoute, results, untracked };
}

/** Stores the step of an outgoing message: its record and `ops` in one batch (ops alone when it is not tracked). */
async function storeStep(core: RouterCore, message: PlainMessage, to: string, mode: EnvelopeMode, untracked: boolean, ops: BatchOp[] = [], answering?: string): Promise<void> {
  const steps = core.steps();
  if (steps) return untracked ? steps.commit(ops) : steps.noteSending(message, to, mode, answering ?? core.handling(stepThread(message)), ops);
  if (ops.length) throw new IdsyncError('invalid_argument', 'store ops sent with a message need the durable steps (RouterOptions.steps)');
}

/**
 * The second half of Router.send: delivers a prepared message and handles its return-routed
 * replies; through `outbound` instead of the router's own delivery function when given.
 */
export async function deliverPrepared(core: RouterCore, p: PreparedSend, outbound?: Outbound): Promise<SendResult> {
  const send = outbound ?? core.options.send!;
  const { message, packed, to } = p;
  let replies: string[] | void;
  try {
    replies = await logged(core, outRecord(message, packed, 'sent', p.results, { endpoint: p.endpoint }), () =>
      send(packed.packed, { to, mode: packed.mode, message, endpoint: p.endpoint, returnRoute: p.returnRoute, mediaType: packed.mediaType }),
    );
  } catch (err) {
    const e = toIdsyncError(err, 'delivery_failed');
    if (!p.untracked) core.steps()?.noteFailed(message, e);
    throw e;
  }
  core.steps()?.noteSent(message);
  core.events.emit('sent', { message, packed: packed.packed, mode: packed.mode, to, returnRouted: false });
  const processed: RouterResult[] = [];
  for (const r of replies ?? []) processed.push(await core.receive(r, { transport: 'return-route' }));
  return { message, packed: packed.packed, mode: packed.mode, replies: processed };
}

/** Router.send; `senderKid` as for packFor (replies only). */
export async function sendMessage(core: RouterCore, draft: MessageDraft, opts: SendOptions = {}, senderKid?: string): Promise<SendResult> {
  return deliverPrepared(core, await prepareMessage(core, draft, opts, senderKid));
}

/**
 * Sends `draft` as a reply to `inc`: threaded, over the return route when asked and possible,
 * from the form of our DID the message was addressed to (unless the draft names a `from`).
 */
export async function replyTo(core: RouterCore, inc: Incoming, draft: MessageDraft, mode?: EnvelopeMode, track = true, ops?: BatchOp[]): Promise<PlainMessage> {
  return (await prepareReply(core, inc, draft, mode, track, ops)).deliver();
}

/** A reply made, checked, packed and stored (with `ops`, the rest of its step), not yet sent. */
export interface PreparedReply {
  message: PlainMessage;
  /** Sends it: over the return route when asked and possible, else as any message. */
  deliver(): Promise<PlainMessage>;
}

/** The first half of replyTo (see Router.prepare: a caller holding a lock over its step's state releases it before deliver()). */
export async function prepareReply(core: RouterCore, inc: Incoming, draft: MessageDraft, mode?: EnvelopeMode, track = true, ops?: BatchOp[]): Promise<PreparedReply> {
  const { clock, ids, options } = core;
  // The DID the envelope proves wins over a `from` it contradicts (never reflect to a claimed sender).
  const proven = senderOf(inc.metadata);
  const to = proven && !sameDid(proven, inc.message.from) ? proven : inc.message.from ?? proven;
  if (!to) throw new IdsyncError('no_reply_address', 'the message has no sender to reply to');
  const isProblem = core.reporter()?.isReport(draft as PlainMessage) ?? false;
  // A problem report answering a message whose sender the envelope does not prove goes
  // anoncrypted: authcrypted, it would carry our word, on the thread the message named, to a DID
  // that only claimed to send it, and end our thread with that DID there (a stranger writing the
  // peer's DID in `from` could so end any thread it knows the id of).
  const unproven = isProblem && !inc.metadata.authenticated;
  const replyMode = mode ?? options.replyMode ?? (inc.metadata.mode === 'plaintext' ? 'plaintext' : inc.me && !unproven ? 'authcrypt' : 'anoncrypt');
  const base: MessageDraft = { ...draft, to: [to], from: (draft.from as string | undefined) ?? (replyMode === 'anoncrypt' ? undefined : inc.me) };
  // DIDComm v2 §Threading: replies carry the thread id; a problem report starts a child thread (pthid).
  if (!isProblem && base.thid === undefined) base.thid = threadId(inc.message);
  const senderKid = AUTHCRYPT_MODES.includes(replyMode) ? replySenderKid(inc.metadata, base.from as string | undefined) : undefined;
  const rr = inc.message.return_route;
  if ((rr === 'all' || rr === 'thread') && inc.info.reply) {
    const message = createMessage(base, { clock, ids });
    const results = outgoingChecks(core, message);
    // Back on the sender's own connection, to the sender itself ("utilizing the same connection
    // channel for the reply", Message Pickup 3.0 §Requirements): never wrapped in a forward to
    // the mediator its DID names, which is for the hops to its endpoint (DIDComm v2.1 §Routing).
    // Wrapped, a wallet behind a mediator got a message for the mediator's keys as the answer to
    // its pickup request, and no status.
    const packed = await packFor(core, message, to, replyMode, senderKid, false);
    const rec = outRecord(message, packed, 'sent', results, { transport: 'return-route', problemCode: isProblem ? (message.body.code as string) : undefined });
    const reply = inc.info.reply;
    await storeStep(core, message, to, packed.mode, !track, ops, typeof inc.message.id === 'string' ? inc.message.id : undefined);
    return {
      message,
      async deliver() {
        await logged(core, rec, () => reply(packed.packed));
        if (track) core.steps()?.noteSent(message);
        inc.replies.push(packed.packed);
        core.events.emit('sent', { message, packed: packed.packed, mode: packed.mode, to, returnRouted: true });
        return message;
      },
    };
  }
  let prepared: PreparedSend;
  try {
    prepared = await prepareMessage(core, base, { to, mode: replyMode, ...(track ? {} : { untracked: true }), ...(ops ? { ops } : {}) }, senderKid);
  } catch (err) {
    throw noReplyRoute(err, to);
  }
  return {
    message: prepared.message,
    deliver: async () => {
      try {
        return (await deliverPrepared(core, prepared)).message;
      } catch (err) {
        throw noReplyRoute(err, to);
      }
    },
  };
}

/**
 * A reply to a sender whose DID names no DIDComm endpoint, to a message that asked for no return
 * route, can never be delivered: like a message without a sender, it has no reply address
 * (final, e.p.req.no-reply-address), where no_endpoint (e.p.xfer) would ask the sender to send
 * it again, and it would fail the same way every time.
 */
function noReplyRoute(err: unknown, to: string): unknown {
  if (!isIdsyncError(err) || err.code !== 'no_endpoint') return err;
  return new IdsyncError('no_reply_address', `the sender ${to.slice(0, 120)} names no DIDComm endpoint and asked for no return route: a reply cannot reach it`, { cause: err });
}

/**
 * The problem code a report of `error` would carry (the registered reporter's mapping), whether or
 * not one can be sent; undefined without a reporter.
 */
export function problemCodeFor(core: RouterCore, inc: Incoming, error: IdsyncError): string | undefined {
  try {
    const code = core.reporter()?.report(inc.message, error).body?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** Answers `inc` with a problem report for `error`; the problem code sent, or undefined when none was. */
export async function sendProblem(core: RouterCore, inc: Incoming, error: IdsyncError): Promise<string | undefined> {
  const reporter = core.reporter();
  if (!reporter) {
    core.log('warn', 'no problem reporter registered (router.use(reportProblemProtocol())): the sender is not told', { code: error.code });
    return undefined;
  }
  // DIDComm v2 §Problem Reports: a problem report is never answered with a problem report.
  if (reporter.isReport(inc.message)) return undefined;
  if (typeof inc.message.id !== 'string' || !(inc.message.from ?? senderOf(inc.metadata))) return undefined;
  try {
    const draft = reporter.report(inc.message, error);
    // The router's own refusals do not replace the thread's last message (steps/engine.ts).
    await replyTo(core, inc, draft, undefined, false);
    return draft.body?.code as string | undefined;
  } catch (err) {
    core.log('warn', 'could not send a problem report', { code: toIdsyncError(err).code, for: inc.message.id });
    return undefined;
  }
}

/** An Outbound over transports: picks the transport by the endpoint's URL scheme. */
export function transportOutbound(transports: Transport | Transport[]): Outbound {
  const list = Array.isArray(transports) ? transports : [transports];
  return async (packed, target) => {
    if (!target.endpoint) throw new IdsyncError('no_endpoint', `no service endpoint for ${target.to}`);
    let scheme: string;
    try {
      scheme = new URL(target.endpoint).protocol.replace(/:$/, '');
    } catch {
      throw new IdsyncError('no_endpoint', `not a URL endpoint: ${target.endpoint}`);
    }
    const transport = list.find((t) => t.schemes.includes(scheme));
    if (!transport) throw new IdsyncError('unsupported_scheme', `no transport for ${scheme}: endpoints`);
    return transport.send(target.endpoint, packed, { returnRoute: target.returnRoute, messageType: target.message.type, ...(target.mediaType ? { mediaType: target.mediaType } : {}) });
  };
}
