// The DIDComm router: unpacks what arrives, checks conformance, drops duplicates (telling an
// authenticated sender), refuses expired messages, dispatches to protocol handlers by message
// type, and answers problems with report-problem messages. Packs, delivers and logs what goes
// out (router-outbound.ts). It never throws from `receive`: every outcome is a coded RouterResult.
// A message id counts as seen once its outcome is final (seen.ts): a handler failure
// that may pass leaves it free for the sender's retry. What the log keeps: records.ts.
import { EventEmitter } from 'node:events';
import { describeEpochSeconds, uuid } from '../clock.js';
import { checkEnvelope, outerMode } from '../conformance/envelope.js';
import { createRuleRegistry } from '../conformance/registry.js';
import { fail, refusalsOf, type ConformanceResult } from '../conformance/types.js';
import { IdsyncError, isIdsyncError, toIdsyncError } from '../errors.js';
import { keepJsonText } from '../json-text.js';
import type { UnpackResult } from '../didcomm/types.js';
import { isExpired, parseMessageType, parsePiuri, threadId, withBody } from '../didcomm/message.js';
import { addressedDid, senderOf } from './addressing.js';
import { deliverPrepared, prepareMessage, prepareReply, problemCodeFor, refusalFor, replyTo, sendMessage, sendProblem, type Incoming, type LogInput, type RouterCore } from './outbound.js';
import { loggedConformance, receivedRecord, refusedByRule, refusingRule, undecryptableRecord } from './records.js';
import { formerSeenKey, isTransientProblem, seenKey, seenTracker } from './seen.js';
import { createStepEngine, type StepEngine } from './steps/engine.js';
import { stepThread } from './steps/names.js';
import type { StepOut } from './steps/state.js';
import {
  DUPLICATE_RULE,
  type HandlerContext,
  type LogLevel,
  type MessageHandler,
  type PackFn,
  type ProblemReporter,
  type ProtocolModule,
  type ReceiveInfo,
  type Router,
  type RouterOptions,
  type RouterResult,
  type RouterStatus,
  type UnpackFn,
} from './types.js';
import { waitForEvent, type WaitOptions } from '../wait.js';

export * from './types.js';
export { transportOutbound } from './outbound.js';
export { DEFAULT_SEEN_PRUNE_EVERY, DEFAULT_SEEN_RETENTION_MS } from './seen.js';
export { DEFAULT_LOG_MESSAGE_MAX_BYTES } from './records.js';

// The envelope module is loaded on first use and then kept: a dynamic import() per message goes
// through the module loader every time (under a loader hook such as tsx, a round trip to its
// thread), which was a tenth of a whole sync flow's time.
let envelopeModule: Promise<typeof import('../didcomm/envelope/index.js')> | undefined;
const envelopeApi = () => (envelopeModule ??= import('../didcomm/envelope/index.js'));
const defaultPack: PackFn = async (m, o, c) => (await envelopeApi()).pack(m, o, c);
const defaultUnpack: UnpackFn = async (p, c, parsed) => (await envelopeApi()).unpack(p, c, parsed ? { parsed } : {});

export function createRouter(options: RouterOptions): Router {
  const { envelope, clock } = options;
  const ids = options.ids ?? uuid;
  const unpack = options.unpack ?? defaultUnpack;
  const reportDuplicates = options.reportDuplicates !== false;
  const events = new EventEmitter();
  const handlers = new Map<string, { module: ProtocolModule; handler: MessageHandler }>();
  const modules = new Map<string, ProtocolModule>();
  let reporter: ProblemReporter | undefined;

  const log = (level: LogLevel, msg: string, data?: Record<string, unknown>) => {
    options.logger?.(level, msg, data);
    events.emit('log', { level, msg, data });
  };
  const seen = seenTracker(options, clock, log);
  // Durable steps (steps/engine.ts): per thread, the messages being handled now, latest last, so
  // that what a handler sends on that thread is stored as the answer to the latest. Handlers nest
  // (an answer's delivery can carry the peer's next message in) and may end in any order.
  const handling = new Map<string, string[]>();
  let steps: StepEngine | undefined;

  /** Writes a log record; the log never breaks message handling. Returns its seq. */
  async function record(rec: LogInput): Promise<string | undefined> {
    if (!options.log) return undefined;
    try {
      return (await options.log.record(rec)).seq;
    } catch (err) {
      log('error', 'message log write failed', { code: toIdsyncError(err).code });
      return undefined;
    }
  }

  /** With an updatable log the in-record is written on arrival and completed here; else written here. */
  async function finishRecord(seq: string | undefined, rec: LogInput, patch: Partial<LogInput>): Promise<void> {
    if (!options.log) return;
    if (!options.log.update) {
      await record({ ...rec, ...patch });
      return;
    }
    if (seq === undefined) return;
    try {
      await options.log.update(seq, patch);
    } catch (err) {
      log('error', 'message log update failed', { code: toIdsyncError(err).code });
    }
  }

  const core: RouterCore = {
    options,
    clock,
    ids,
    events,
    conformance: options.conformance ?? createRuleRegistry(),
    strict: options.strict !== false,
    pack: options.pack ?? defaultPack,
    myDids: [...(options.myDids ?? [])],
    reporter: () => reporter,
    record,
    finishRecord,
    log,
    receive: (packed, info) => receive(packed, info),
    steps: () => steps,
    handling: (thid) => handling.get(thid)?.at(-1),
  };
  if (options.steps) {
    steps = createStepEngine(options.steps, {
      clock,
      log,
      // A resend is not a new step: it leaves the thread's record as it is.
      send: async (out: StepOut) => void (await sendMessage(core, out.message, { to: out.to, mode: out.mode, untracked: true })),
    });
  }

  function typeKey(moduleParts: ReturnType<typeof parsePiuri>, key: string): string {
    const type = key.includes(':') ? key : `${moduleParts!.piuri}/${key}`;
    return parseMessageType(type)?.majorKey ?? type;
  }

  function unregister(piuri: string): void {
    for (const [k, v] of handlers) if (v.module.piuri === piuri) handlers.delete(k);
    modules.delete(piuri);
  }

  async function receive(packed: string, info: ReceiveInfo = {}): Promise<RouterResult> {
    const replies: string[] = [];
    let unpacked: UnpackResult;
    try {
      unpacked = await unpack(packed, envelope, info.parsed);
    } catch (err) {
      // Nobody to answer: the sender is unknown until the envelope opens.
      const error = toIdsyncError(err, 'didcomm_error');
      // Logged with the rule that refused it (the envelope layer names it, e.g. a signed envelope's
      // envelope.jws-header-disjoint), as `message check` names it.
      const conformance = checkEnvelope(packed);
      const refused = refusedByRule(error);
      if (refused && !conformance.some((r) => r.rule === refused.rule && !r.ok)) conformance.push(refused);
      const rule = refused?.rule ?? refusingRule(conformance);
      const result: RouterResult = { status: 'undecryptable', code: error.code, conformance, replies, error };
      // Our own store failing while looking up keys says nothing about the message: retry it.
      if (error.code.startsWith('store_')) result.retryable = true;
      // The envelope opened, but what it holds breaks a plaintext rule (attachments that are no
      // list, say): refused for good like a message a rule refuses after opening, so a transport
      // that can answer says so (HTTP 400). One it could not open at all stays taken (202).
      else if (refused?.layer === 'plaintext') result.refusal = { code: error.code, message: error.message };
      log('warn', 'message could not be unpacked', { code: error.code, ...(rule ? { rule } : {}) });
      await record(undecryptableRecord(packed, `undecryptable-${ids()}`, outerMode(packed), result.conformance, info, { code: error.code, ...(rule ? { rule } : {}) }));
      events.emit('result', result, packed);
      return result;
    }
    const { message, metadata } = unpacked;
    // Stored as it arrived (the message log, records that keep it): copied from the engine's text.
    if (unpacked.plaintext !== undefined) keepJsonText(message, unpacked.plaintext);
    const inc: Incoming = { message, metadata, info, replies, me: addressedDid(core.myDids, message, metadata) };
    // What the envelope engine opened it accepts (liberal in what it reads: anoncrypt without apv,
    // a flattened JWE); those envelope results are logged, and strict mode judges the opened message.
    const opened = core.conformance.check(message, { metadata, packed });
    const results = [...checkEnvelope(packed, unpacked.outer), ...opened];
    // Recorded before handling so that replies are logged after it; the result follows.
    const rec = receivedRecord(packed, unpacked, results, info, { invalidId: () => `invalid-${ids()}`, maxBytes: options.logMessageMaxBytes });
    const seq = options.log?.update ? await record(rec) : undefined;
    events.emit('received', { message, metadata, conformance: results });
    let result: RouterResult;
    try {
      result = await dispatch(inc, results, opened);
    } catch (err) {
      // dispatch() handles its own errors; what escapes (e.g. the store failing in the replay
      // check) happened before any outcome was final, so the message may be sent again.
      const error = toIdsyncError(err);
      result = { status: 'failed', code: error.code, message, metadata, conformance: results, replies, error, retryable: true };
    }
    // A refusal is logged with its code and the rule that refused it, when a rule did.
    // A replay is refused by idsync's own replay rule (advice: the spec obliges no receiver to).
    // Looked for only when there is a refusal to log: most messages are handled.
    const rule = result.status === 'handled' ? undefined : result.status === 'duplicate' ? DUPLICATE_RULE : refusingRule(result.conformance);
    const refusal = result.status === 'handled' ? {} : { ...(result.code ? { errorCode: result.code } : {}), ...(rule ? { rule } : {}) };
    await finishRecord(seq, rec, { result: result.status, problemCode: result.problemCode, conformance: loggedConformance(result.conformance), ...refusal });
    events.emit('result', result, packed);
    if (result.status === 'handled') events.emit('handled', { message, metadata, result });
    return result;
  }

  /**
   * docs/protocols.md "Refusals that change no state": a replay is logged with the rule it breaks
   * and, when its sender is authenticated, answered with e.p.msg.duplicate (pthid = its thread) —
   * unless duplicates are expected (`reportDuplicates: false`, or a receive marked `redelivery`).
   */
  async function refuseDuplicate(inc: Incoming, results: ConformanceResult[], handling = false): Promise<RouterResult> {
    const { message, metadata, replies } = inc;
    const id = String(message.id);
    // idsync's replay protection (docs/protocols.md, idsync profile); the spec obliges no receiver to.
    const broken = fail('plaintext', DUPLICATE_RULE, `message id ${id} was already received from this sender`);
    const error = new IdsyncError('duplicate_message', `Message ${id} was already received.`, {
      details: { id, thid: threadId(message) },
    });
    // The sender may be retrying because our answer was lost: send that answer again instead.
    const answered = senderOf(metadata) !== undefined && (await answerReplay(inc));
    const report = !answered && reportDuplicates && inc.info.redelivery !== true && senderOf(metadata) !== undefined;
    const problemCode = report ? await sendProblem(core, inc, error) : undefined;
    log('info', 'duplicate message dropped', { id: message.id, ...(problemCode ? { problemCode } : {}) });
    const result: RouterResult = { message, metadata, replies, conformance: [...results, broken], status: 'duplicate', code: error.code, problemCode, error };
    if (handling) result.otherCopyHandling = true;
    // A copy of a message refused for good without a report is refused the same way again (its
    // sender may be retrying because the first answer was lost), never accepted as if taken.
    const sender = senderOf(metadata) ?? message.from;
    const refusal = await seen.refusalOf(seenKey(message.id, sender), formerSeenKey(message.id, sender));
    if (refusal) result.refusal = refusal;
    return result;
  }

  /** steps/engine.ts: a replay of a message we answered is answered with the same message again. */
  async function answerReplay(inc: Incoming): Promise<boolean> {
    if (!steps) return false;
    try {
      const out = await steps.answerFor(inc.message);
      if (!out) return false;
      log('info', 'replay answered with the message sent after it', { id: inc.message.id, answer: out.message.id });
      await replyTo(core, inc, out.message, out.mode, false);
      return true;
    } catch (err) {
      log('info', 'could not answer a replay again', { id: inc.message.id, code: toIdsyncError(err).code });
      return false;
    }
  }

  async function dispatch(inc: Incoming, results: ConformanceResult[], opened: ConformanceResult[]): Promise<RouterResult> {
    const { message, metadata, replies } = inc;
    const base = { message, metadata, conformance: results, replies };
    // `final`: refused for good (the id is marked seen). Such a refusal that no problem report
    // told the sender of carries `refusal`, so a transport that can answer says so (HTTP 400):
    // a message that can never succeed is not asked to be sent again.
    const refuse = async (status: RouterStatus, error: IdsyncError, final = true): Promise<RouterResult> => {
      const problemCode = await sendProblem(core, inc, error);
      log(final ? 'warn' : 'error', `message ${status}`, { code: error.code, id: message.id, type: message.type });
      const result: RouterResult = { ...base, status, code: error.code, problemCode, error };
      if (final && problemCode === undefined) {
        const intended = problemCodeFor(core, inc, error);
        result.refusal = { code: error.code, message: error.message, ...(intended ? { problemCode: intended } : {}) };
      }
      return result;
    };

    const failures = refusalsOf(opened);
    if (core.strict && failures.length) return refuse('rejected', refusalFor(failures));

    const sender = senderOf(metadata) ?? message.from;
    const key = seenKey(message.id, sender);
    const claim = await seen.claim(key, formerSeenKey(message.id, sender));
    if (claim !== 'claimed') return refuseDuplicate(inc, results, claim === 'handling');
    // Handled before, though its id was never marked seen (the process stopped while handling
    // it, after its answer was stored): a replay all the same (steps/engine.ts).
    if (steps && senderOf(metadata) !== undefined && (await steps.answerFor(message).catch(() => undefined))) {
      await seen.finish(key, { type: message.type });
      return refuseDuplicate(inc, results);
    }
    // Set once the outcome is final (handled or deliberately refused): the id is then marked seen.
    let final = false;
    let outcome: RouterResult | undefined;
    try {
      // DIDComm v2 §Message Headers expires_time: the sender considers it invalid after that time.
      if (isExpired(message, clock.now())) {
        final = true;
        return (outcome = await refuse('expired', new IdsyncError('message_expired', `message expired at ${describeEpochSeconds(message.expires_time!)}`, {
          details: { expires_time: message.expires_time },
        })));
      }

      const parts = typeof message.type === 'string' ? parseMessageType(message.type) : null;
      const entry = handlers.get(parts?.majorKey ?? String(message.type));
      if (!entry) {
        final = true;
        return (outcome = await refuse('unsupported', new IdsyncError('unsupported_message_type', `message type ${String(message.type)} is not supported`, { details: { type: message.type } })));
      }

      const ctx: HandlerContext = {
        // Handlers read the body as their protocol does: an absent one (OPTIONAL in v2.1) as empty.
        message: withBody(message), metadata, me: inc.me, sender: senderOf(metadata), thid: threadId(message), router, received: inc.info,
        reply: (draft, o) => replyTo(core, inc, draft, o?.mode, true, o?.ops),
        prepareReply: (draft, o) => prepareReply(core, inc, draft, o?.mode, true, o?.ops),
        send: (draft, o) => sendMessage(core, draft, o),
        emit: (event, data) => void events.emit(event, data),
        log,
      };
      const thid = stepThread(message);
      const mine = steps && typeof message.id === 'string' ? message.id : undefined;
      if (mine !== undefined) handling.set(thid, [...(handling.get(thid) ?? []), mine]);
      const mark = steps?.mark();
      try {
        await entry.handler(ctx);
        if (steps) await steps.noteReceived(message, mark);
      } catch (err) {
        const error = toIdsyncError(err);
        // The thread had recorded this very message (handled before a crash kept its id from being
        // marked seen): the peer's step reached us, so our retries on its thread end as they would have.
        if (steps && error.code === 'duplicate_message') await steps.noteReceived(message, mark).catch(() => undefined);
        // A deliberate refusal (a coded error whose problem code says the same message will fail
        // again) is final, whether or not its sender can be told: a message with no way to reply
        // (an anoncrypted ping asking for a response, a pickup request or a proposal without an
        // authenticated sender) can never succeed. Anything else (a bug, a store error, a timeout,
        // or no reporter to classify it) may pass, so the id stays free for a retry.
        const intended = isIdsyncError(err) ? problemCodeFor(core, inc, error) : undefined;
        final = intended !== undefined && !isTransientProblem(intended);
        const result = (outcome = await refuse('failed', error, final));
        if (final) return result;
        log('info', 'message id left free for a retry', { id: message.id, code: result.code });
        return { ...result, retryable: true };
      } finally {
        if (mine !== undefined) {
          const left = (handling.get(thid) ?? []).filter((id, i, all) => id !== mine || all.indexOf(mine) !== i);
          if (left.length) handling.set(thid, left);
          else handling.delete(thid);
        }
      }
      final = true;
      return { ...base, status: 'handled' };
    } finally {
      await seen.finish(key, final ? { type: message.type, ...(outcome?.refusal ? { refusal: outcome.refusal } : {}) } : undefined);
    }
  }

  const router: Router = {
    events,
    conformance: core.conformance,
    clock,
    ids,
    use(...protocols) {
      for (const module of protocols) {
        const parts = parsePiuri(module.piuri);
        if (!parts) throw new IdsyncError('invalid_protocol', `not a protocol identifier URI: ${module.piuri}`);
        unregister(module.piuri);
        for (const [key, handler] of Object.entries(module.handlers)) {
          const k = typeKey(parts, key);
          const other = handlers.get(k);
          if (other && other.module.piuri !== module.piuri) {
            throw new IdsyncError('protocol_conflict', `${k} is already handled by ${other.module.piuri}`);
          }
          handlers.set(k, { module, handler });
        }
        for (const [key, rules] of Object.entries(module.rules ?? {})) {
          core.conformance.addProtocolRules(key.includes(':') ? key : `${module.piuri}/${key}`, ...rules);
        }
        if (module.problems) reporter = module.problems;
        modules.set(module.piuri, module);
      }
      return router;
    },
    protocols() {
      return [...modules.values()].map((m) => ({
        piuri: m.piuri,
        roles: m.roles ? [...m.roles] : undefined,
        goalCodes: m.goalCodes ? [...m.goalCodes] : undefined,
        messageTypes: Object.keys(m.handlers).map((k) => (k.includes(':') ? k : `${m.piuri}/${k}`)),
      }));
    },
    addDid(did) {
      if (!core.myDids.some((d) => d === did)) core.myDids.push(did);
    },
    dids: () => [...core.myDids],
    receive,
    async inbound(packed, info) {
      await receive(packed, info);
    },
    send: (draft, o) => sendMessage(core, draft, o),
    pruneSeen: () => seen.prune(),
    steps: () => steps,
    prepare: (draft, o) => prepareMessage(core, draft, o),
    deliver: (prepared, outbound) => deliverPrepared(core, prepared, outbound),
    waitFor<T>(event: string, predicate?: (data: T) => boolean, o?: WaitOptions) {
      return waitForEvent(events, event, predicate, o);
    },
  };
  return router;
}
