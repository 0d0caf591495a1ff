// The DIDComm router: unpacks what arrives, checks conformance, drops duplicates (telling an
// authenticated sender), refuses expired messages, dispatches to protocol handlers by message
// type, and answers problems with report-problem messages. Packs, delivers and logs what goes
// out (router-outbound.ts). It never throws from `receive`: every outcome is a coded RouterResult.
import { EventEmitter } from 'node:events';
import { uuid } from '../clock.js';
import { checkEnvelope, outerMode } from '../conformance/envelope.js';
import { createRuleRegistry } from '../conformance/registry.js';
import { errorsOf, fail, type ConformanceResult } from '../conformance/types.js';
import { ionShortForm } from '../did/ion-form.js';
import { IdsyncError, toIdsyncError } from '../errors.js';
import type { PlainMessage, UnpackResult } from './types.js';
import { isExpired, parseMessageType, parsePiuri, threadId } from './message.js';
import { addressedDid, senderOf } from './router-addressing.js';
import { refusalFor, replyTo, sendMessage, sendProblem, type Incoming, type LogInput, type RouterCore } from './router-outbound.js';
import {
  DUPLICATE_PROBLEM_CODE,
  DUPLICATE_RULE,
  ROUTER_ERRORS,
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
  type SeenRecord,
  type UnpackFn,
} from './router-types.js';
import { waitForEvent } from './router-wait.js';

export * from './router-types.js';
export { transportOutbound } from './router-outbound.js';

const defaultPack: PackFn = async (m, o, c) => (await import('./envelope.js')).pack(m, o, c);
const defaultUnpack: UnpackFn = async (p, c) => (await import('./envelope.js')).unpack(p, c);

export function createRouter(options: RouterOptions): Router {
  const { envelope, clock } = options;
  const ids = options.ids ?? uuid;
  const unpack = options.unpack ?? defaultUnpack;
  const reportDuplicates = options.reportDuplicates !== false;
  const events = new EventEmitter();
  const memorySeen = new Map<string, SeenRecord>();
  const seen = options.seen ?? { get: async (k: string) => memorySeen.get(k), put: async (k: string, v: SeenRecord) => void memorySeen.set(k, v) };
  const inFlight = new Set<string>();
  const handlers = new Map<string, { module: ProtocolModule; handler: MessageHandler }>();
  const modules = new Map<string, ProtocolModule>();
  let reporter: ProblemReporter | undefined;

  const log = (level: LogLevel, msg: string, data?: Record<string, unknown>) => {
    options.logger?.(level, msg, data);
    events.emit('log', { level, msg, data });
  };

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
    log,
    receive: (packed, info) => receive(packed, info),
  };

  function typeKey(moduleParts: ReturnType<typeof parsePiuri>, key: string): string {
    const type = key.includes(':') ? key : `${moduleParts!.piuri}/${key}`;
    return parseMessageType(type)?.majorKey ?? type;
  }

  function unregister(piuri: string): void {
    for (const [k, v] of handlers) if (v.module.piuri === piuri) handlers.delete(k);
    modules.delete(piuri);
  }

  async function receive(packed: string, info: ReceiveInfo = {}): Promise<RouterResult> {
    const size = Buffer.byteLength(packed);
    const replies: string[] = [];
    let unpacked: UnpackResult;
    try {
      unpacked = await unpack(packed, envelope);
    } catch (err) {
      // Nobody to answer: the sender is unknown until the envelope opens.
      const error = toIdsyncError(err, 'didcomm_error');
      const result: RouterResult = { status: 'undecryptable', code: error.code, conformance: checkEnvelope(packed), replies, error };
      log('warn', 'message could not be unpacked', { code: error.code });
      await record({
        id: `undecryptable-${ids()}`, direction: 'in', type: '', mode: outerMode(packed), size, result: result.status,
        conformance: result.conformance, transport: info.transport, message: {} as PlainMessage,
      });
      events.emit('result', result);
      return result;
    }
    const { message, metadata } = unpacked;
    const inc: Incoming = { message, metadata, info, replies, me: addressedDid(core.myDids, message, metadata) };
    const results = [...checkEnvelope(packed), ...core.conformance.check(message, { metadata, packed })];
    // Recorded before handling so that replies are logged after it; the result follows.
    const rec: LogInput = {
      id: typeof message.id === 'string' ? message.id : `invalid-${ids()}`, direction: 'in', type: String(message.type ?? ''),
      thid: message.thid, pthid: message.pthid, from: message.from, to: message.to, mode: metadata.mode, size,
      result: 'received', conformance: results, transport: info.transport, message,
    };
    const seq = options.log?.update ? await record(rec) : undefined;
    events.emit('received', { message, metadata, conformance: results });
    let result: RouterResult;
    try {
      result = await dispatch(inc, results);
    } catch (err) {
      // Defensive: dispatch() handles its own errors; this keeps `receive` from ever throwing.
      const error = toIdsyncError(err);
      result = { status: 'failed', code: error.code, message, metadata, conformance: results, replies, error };
    }
    await finishRecord(seq, rec, { result: result.status, problemCode: result.problemCode, conformance: result.conformance });
    events.emit('result', result);
    if (result.status === 'handled') events.emit('handled', { message, metadata, result });
    return result;
  }

  /**
   * docs/protocols.md "Refusals that change no state": a replay is logged with the rule it breaks
   * and, when its sender is authenticated, answered with e.p.msg.duplicate (pthid = its thread) —
   * unless duplicates are expected (`reportDuplicates: false`, or a receive marked `redelivery`).
   */
  async function refuseDuplicate(inc: Incoming, results: ConformanceResult[]): Promise<RouterResult> {
    const { message, metadata, replies } = inc;
    const id = String(message.id);
    // DIDComm v2 §Message Headers `id`: unique to the sender.
    const broken = fail('plaintext', DUPLICATE_RULE, `message id ${id} was already received from this sender`);
    const error = new IdsyncError(ROUTER_ERRORS.duplicate, `Message ${id} was already received.`, {
      details: { problemCode: DUPLICATE_PROBLEM_CODE, id, thid: threadId(message) },
    });
    const report = reportDuplicates && inc.info.redelivery !== true && senderOf(metadata) !== undefined;
    const problemCode = report ? await sendProblem(core, inc, error) : undefined;
    log('info', 'duplicate message dropped', { id: message.id, ...(problemCode ? { problemCode } : {}) });
    return { message, metadata, replies, conformance: [...results, broken], status: 'duplicate', code: error.code, problemCode, error };
  }

  async function dispatch(inc: Incoming, results: ConformanceResult[]): Promise<RouterResult> {
    const { message, metadata, replies } = inc;
    const base = { message, metadata, conformance: results, replies };
    const refuse = async (status: RouterStatus, error: IdsyncError): Promise<RouterResult> => {
      const problemCode = await sendProblem(core, inc, error);
      log(status === 'failed' ? 'error' : 'warn', `message ${status}`, { code: error.code, id: message.id, type: message.type });
      return { ...base, status, code: error.code, problemCode, error };
    };

    const failures = errorsOf(results);
    if (core.strict && failures.length) return refuse('rejected', refusalFor(failures));

    // DIDComm v2 §Threading: ids are unique per sender and compared case-insensitively.
    const sender = senderOf(metadata) ?? message.from;
    const key = `${String(message.id).toLowerCase()}|${sender ? ionShortForm(sender) : ''}`;
    if (inFlight.has(key) || (await seen.get(key)) !== undefined) return refuseDuplicate(inc, results);
    inFlight.add(key);
    try {
      await seen.put(key, { at: clock.now(), type: message.type });

      // DIDComm v2 §Message Headers expires_time: the sender considers it invalid after that time.
      if (isExpired(message, clock.now())) {
        return refuse('expired', new IdsyncError(ROUTER_ERRORS.expired, `message expired at ${new Date(message.expires_time! * 1000).toISOString()}`, {
          details: { expires_time: message.expires_time },
        }));
      }

      const parts = typeof message.type === 'string' ? parseMessageType(message.type) : null;
      const entry = handlers.get(parts?.majorKey ?? String(message.type));
      if (!entry) {
        return refuse('unsupported', new IdsyncError(ROUTER_ERRORS.unsupported, `message type ${String(message.type)} is not supported`, { details: { type: message.type } }));
      }

      const ctx: HandlerContext = {
        message, metadata, me: inc.me, sender: senderOf(metadata), thid: threadId(message), router,
        reply: (draft, o) => replyTo(core, inc, draft, o?.mode),
        send: (draft, o) => sendMessage(core, draft, o),
        emit: (event, data) => void events.emit(event, data),
        log,
      };
      try {
        await entry.handler(ctx);
      } catch (err) {
        return refuse('failed', toIdsyncError(err));
      }
      return { ...base, status: 'handled' };
    } finally {
      inFlight.delete(key);
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
    waitFor<T>(event: string, predicate?: (data: T) => boolean, o?: { timeoutMs?: number; signal?: AbortSignal }) {
      return waitForEvent(events, event, predicate, o);
    },
  };
  return router;
}
