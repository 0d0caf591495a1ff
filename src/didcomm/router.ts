// The DIDComm router: unpacks what arrives, checks conformance, drops duplicates, refuses
// expired messages, dispatches to protocol handlers by message type, and answers problems
// with report-problem messages. Packs, delivers and logs what goes out. It never throws
// from `receive`: every outcome is a coded RouterResult.
import { EventEmitter } from 'node:events';
import type { Clock, IdGenerator } from '../clock.js';
import { uuid } from '../clock.js';
import { checkEnvelope, outerMode } from '../conformance/envelope.js';
import { createRuleRegistry, type RuleRegistry } from '../conformance/registry.js';
import { errorsOf, type ConformanceResult, type MessageRule } from '../conformance/types.js';
import { ionShortForm } from '../did/ion-form.js';
import { IdsyncError, toIdsyncError } from '../errors.js';
import type { MessageLog, MessageRecord } from '../store/messages.js';
import type { Collection } from '../store/store.js';
import { createMessage, didOf, isExpired, parseMessageType, parsePiuri, sameDid, threadId, type MessageDraft } from './message.js';
import type { EnvelopeContext, EnvelopeMode, PackOptions, PackResult, PlainMessage, Transport, UnpackMetadata, UnpackResult } from './types.js';

export type PackFn = (message: PlainMessage, options: PackOptions, ctx: EnvelopeContext) => Promise<PackResult>;
export type UnpackFn = (packed: string, ctx: EnvelopeContext) => Promise<UnpackResult>;

/** Where an outgoing message goes; the delivery function returns any return-routed replies. */
export interface OutboundTarget {
  to: string;
  mode: EnvelopeMode;
  message: PlainMessage;
  /** `via` when given, else the service endpoint from the recipient's DID document. */
  endpoint?: string;
  returnRoute: boolean;
}
export type Outbound = (packed: string, target: OutboundTarget) => Promise<string[] | void>;

export interface ReceiveInfo {
  transport?: string;
  /** Present when the transport can carry a reply back on the same connection (return route). */
  reply?: (packed: string) => Promise<void>;
}

export type RouterStatus = 'handled' | 'duplicate' | 'expired' | 'unsupported' | 'rejected' | 'undecryptable' | 'failed';

export interface RouterResult {
  status: RouterStatus;
  /** The IdsyncError code when the message was not handled. */
  code?: string;
  /** The problem code sent back, when a problem report was sent. */
  problemCode?: string;
  message?: PlainMessage;
  metadata?: UnpackMetadata;
  conformance: ConformanceResult[];
  /** Replies packed for the return route of the transport this message came on. */
  replies: string[];
  error?: IdsyncError;
}

export interface SendOptions {
  /** Recipient DID; defaults to message.to[0]. */
  to?: string;
  mode?: EnvelopeMode;
  /** An endpoint to deliver to instead of the one in the recipient's DID document. */
  via?: string;
  from?: string;
  expiresInMs?: number;
  /** Skip the outgoing conformance check (to send deliberately bad messages in tests). */
  unchecked?: boolean;
}

export interface SendResult {
  message: PlainMessage;
  packed: string;
  mode: EnvelopeMode;
  /** Results of processing the replies that came back on the return route. */
  replies: RouterResult[];
}

/** What a protocol handler gets for one message. */
export interface HandlerContext {
  message: PlainMessage;
  metadata: UnpackMetadata;
  /** Our DID this message was addressed to. */
  me?: string;
  /** The DID proven by the envelope (authcrypt sender or signer); undefined when anonymous. */
  sender?: string;
  thid: string;
  router: Router;
  /** Replies in the thread (thid = message.thid ?? message.id), over the return route when asked. */
  reply(draft: MessageDraft, options?: { mode?: EnvelopeMode }): Promise<PlainMessage>;
  send(draft: MessageDraft, options: SendOptions): Promise<SendResult>;
  emit(event: string, data: unknown): void;
  log(level: LogLevel, msg: string, data?: Record<string, unknown>): void;
}

export type MessageHandler = (ctx: HandlerContext) => Promise<void> | void;

/** Turns router errors into problem reports; the report-problem protocol provides one. */
export interface ProblemReporter {
  /** The draft to send back for `error` caused by `incoming`. */
  report(incoming: PlainMessage, error: IdsyncError): MessageDraft;
  /** Problem reports are never answered with problem reports. */
  isReport(message: PlainMessage): boolean;
}

export interface ProtocolModule {
  /** Protocol identifier URI, e.g. `https://didcomm.org/trust-ping/2.0`. */
  piuri: string;
  roles?: string[];
  /** Handlers by message name (`ping`) or full type URI. */
  handlers: Record<string, MessageHandler>;
  goalCodes?: string[];
  /** Body rules by message name or full type URI, added to the router's conformance registry. */
  rules?: Record<string, MessageRule[]>;
  problems?: ProblemReporter;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The message log (src/store/messages.ts messageLog): records in arrival order, updated once the result is known. */
export type RouterLog = Pick<MessageLog, 'record'> & Partial<Pick<MessageLog, 'update'>>;

export interface SeenRecord {
  at: number;
  type?: string;
}

export interface RouterOptions {
  envelope: EnvelopeContext;
  pack?: PackFn;
  unpack?: UnpackFn;
  clock: Clock;
  ids?: IdGenerator;
  /** Message ids already processed; a store collection makes duplicate detection survive restarts. */
  seen?: Pick<Collection<SeenRecord>, 'get' | 'put'>;
  log?: RouterLog;
  send?: Outbound;
  myDids?: string[];
  /** Refuse messages that break a MUST of the specs (default true). */
  strict?: boolean;
  /** Envelope for replies; default: plaintext for plaintext, else authcrypt (anoncrypt without a DID of ours). */
  replyMode?: EnvelopeMode;
  /** Envelope for `send` without a mode (default authcrypt). */
  defaultMode?: EnvelopeMode;
  conformance?: RuleRegistry;
  logger?: (level: LogLevel, msg: string, data?: Record<string, unknown>) => void;
}

export interface RegisteredProtocol {
  piuri: string;
  roles?: string[];
  goalCodes?: string[];
  messageTypes: string[];
}

/** DIDComm v2 as a discover-features `didcomm-version` id. */
export const DIDCOMM_V2_VERSION = 'https://github.com/decentralized-identity/didcomm-messaging';
/** Headers the router acts on (discover-features `header`). */
export const ROUTER_HEADERS = ['return_route'];

export interface Router {
  readonly events: EventEmitter;
  readonly conformance: RuleRegistry;
  readonly clock: Clock;
  /** The id generator of this router, for protocol helpers that need an id before sending. */
  readonly ids: IdGenerator;
  use(...protocols: ProtocolModule[]): Router;
  protocols(): RegisteredProtocol[];
  addDid(did: string): void;
  dids(): string[];
  receive(packed: string, info?: ReceiveInfo): Promise<RouterResult>;
  /** An InboundHandler for transports. */
  inbound(packed: string, info: ReceiveInfo): Promise<void>;
  send(draft: MessageDraft, options?: SendOptions): Promise<SendResult>;
  /** Resolves with the first `event` payload that satisfies `predicate`. */
  waitFor<T = unknown>(event: string, predicate?: (data: T) => boolean, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<T>;
}

/** IdsyncError codes of the router's own refusals (mapped to problem codes by report-problem). */
export const ROUTER_ERRORS = {
  malformed: 'message_malformed',
  invalidBody: 'message_invalid_body',
  senderMismatch: 'sender_mismatch',
  envelope: 'envelope_nonconformant',
  expired: 'message_expired',
  unsupported: 'unsupported_message_type',
  noReplyAddress: 'no_reply_address',
  noOutbound: 'no_outbound',
} as const;

const defaultPack: PackFn = async (m, o, c) => (await import('./envelope.js')).pack(m, o, c);
const defaultUnpack: UnpackFn = async (p, c) => (await import('./envelope.js')).unpack(p, c);

function refusalFor(failures: ConformanceResult[]): IdsyncError {
  const first = failures[0];
  const code =
    first.layer === 'plaintext' ? ROUTER_ERRORS.malformed
    : first.layer === 'protocol' ? ROUTER_ERRORS.invalidBody
    : first.rule === 'envelope.from-matches-sender' || first.rule === 'envelope.from-matches-signer' ? ROUTER_ERRORS.senderMismatch
    : ROUTER_ERRORS.envelope;
  return new IdsyncError(code, `${first.rule}: ${first.detail ?? 'failed'}`, { details: { failures: failures.map((f) => ({ rule: f.rule, detail: f.detail })) } });
}

export function createRouter(options: RouterOptions): Router {
  const { envelope, clock } = options;
  const ids = options.ids ?? uuid;
  const pack = options.pack ?? defaultPack;
  const unpack = options.unpack ?? defaultUnpack;
  const strict = options.strict !== false;
  const conformance = options.conformance ?? createRuleRegistry();
  const events = new EventEmitter();
  const myDids = [...(options.myDids ?? [])];
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

  type LogInput = Omit<MessageRecord, 'at'>;

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

  function typeKey(moduleParts: ReturnType<typeof parsePiuri>, key: string): string {
    const type = key.includes(':') ? key : `${moduleParts!.piuri}/${key}`;
    return parseMessageType(type)?.majorKey ?? type;
  }

  function unregister(piuri: string): void {
    for (const [k, v] of handlers) if (v.module.piuri === piuri) handlers.delete(k);
    modules.delete(piuri);
  }

  function myDidFor(message: PlainMessage, metadata: UnpackMetadata): string | undefined {
    const candidates = [...(metadata.encryptedToKids ?? []).map(didOf), ...(Array.isArray(message.to) ? message.to : [])];
    const mine = myDids.find((d) => candidates.some((c) => sameDid(c, d)));
    return mine ?? candidates[0] ?? myDids[0];
  }

  function senderOf(metadata: UnpackMetadata): string | undefined {
    const kid = metadata.encryptedFromKid ?? metadata.signFrom;
    return kid ? didOf(kid) : undefined;
  }

  function outgoingChecks(message: PlainMessage, unchecked?: boolean): ConformanceResult[] {
    const results = conformance.check(message);
    const errors = errorsOf(results);
    if (strict && !unchecked && errors.length) throw refusalFor(errors);
    return results;
  }

  async function packFor(message: PlainMessage, to: string, mode: EnvelopeMode): Promise<PackResult> {
    const from = message.from;
    return pack(message, { mode, to, from, signBy: from }, envelope);
  }

  async function send(draft: MessageDraft, opts: SendOptions = {}): Promise<SendResult> {
    const mode = opts.mode ?? options.defaultMode ?? 'authcrypt';
    const to = opts.to ?? (Array.isArray(draft.to) ? (draft.to as string[])[0] : undefined);
    if (!to) throw new IdsyncError('didcomm_invalid_argument', 'send needs a recipient: options.to or message.to');
    const from = (draft.from as string | undefined) ?? opts.from ?? (mode === 'anoncrypt' || mode === 'plaintext' ? undefined : myDids[0]);
    const message = createMessage({ ...draft, to: (draft.to as string[] | undefined) ?? [to], from }, { clock, ids }, { expiresInMs: opts.expiresInMs });
    const results = outgoingChecks(message, opts.unchecked);
    const packed = await packFor(message, to, mode);
    if (!options.send) throw new IdsyncError(ROUTER_ERRORS.noOutbound, 'the router has no outbound delivery function (options.send)');
    const returnRoute = message.return_route === 'all' || message.return_route === 'thread';
    let replies: string[] | void;
    try {
      replies = await options.send(packed.packed, { to, mode: packed.mode, message, endpoint: opts.via ?? packed.serviceEndpoint, returnRoute });
    } catch (err) {
      const e = toIdsyncError(err, 'delivery_failed');
      await record(outRecord(message, packed, 'failed', results, { endpoint: opts.via ?? packed.serviceEndpoint }));
      throw e;
    }
    await record(outRecord(message, packed, 'sent', results, { endpoint: opts.via ?? packed.serviceEndpoint }));
    events.emit('sent', { message, packed: packed.packed, mode: packed.mode, to, returnRouted: false });
    const processed: RouterResult[] = [];
    for (const r of replies ?? []) processed.push(await receive(r, { transport: 'return-route' }));
    return { message, packed: packed.packed, mode: packed.mode, replies: processed };
  }

  function outRecord(message: PlainMessage, packed: PackResult, result: string, results: ConformanceResult[], extra: Partial<LogInput> = {}): LogInput {
    return {
      id: message.id, direction: 'out', type: message.type, thid: message.thid, pthid: message.pthid, from: message.from,
      to: message.to, mode: packed.mode, size: Buffer.byteLength(packed.packed), result, conformance: results, message, ...extra,
    };
  }

  interface Incoming {
    message: PlainMessage;
    metadata: UnpackMetadata;
    info: ReceiveInfo;
    replies: string[];
    me?: string;
  }

  /** Sends `draft` as a reply to `inc`: threaded, over the return route when asked and possible. */
  async function replyTo(inc: Incoming, draft: MessageDraft, mode?: EnvelopeMode): Promise<PlainMessage> {
    // The DID the envelope proves wins over a `from` it contradicts (never reflect to a claimed sender).
    const proven = senderOf(inc.metadata);
    const to = proven && !sameDid(proven, inc.message.from) ? proven : inc.message.from ?? proven;
    if (!to) throw new IdsyncError(ROUTER_ERRORS.noReplyAddress, 'the message has no sender to reply to');
    const replyMode = mode ?? options.replyMode ?? (inc.metadata.mode === 'plaintext' ? 'plaintext' : inc.me ? 'authcrypt' : 'anoncrypt');
    const isProblem = reporter?.isReport(draft as PlainMessage) ?? false;
    const base: MessageDraft = { ...draft, to: [to], from: (draft.from as string | undefined) ?? (replyMode === 'anoncrypt' ? undefined : inc.me) };
    // DIDComm v2 §Threading: replies carry the thread id; a problem report starts a child thread (pthid).
    if (!isProblem && base.thid === undefined) base.thid = threadId(inc.message);
    const rr = inc.message.return_route;
    if ((rr === 'all' || rr === 'thread') && inc.info.reply) {
      const message = createMessage(base, { clock, ids });
      const results = outgoingChecks(message);
      const packed = await packFor(message, to, replyMode);
      await inc.info.reply(packed.packed);
      inc.replies.push(packed.packed);
      await record(outRecord(message, packed, 'sent', results, { transport: 'return-route', problemCode: isProblem ? (message.body.code as string) : undefined }));
      events.emit('sent', { message, packed: packed.packed, mode: packed.mode, to, returnRouted: true });
      return message;
    }
    return (await send(base, { to, mode: replyMode })).message;
  }

  async function sendProblem(inc: Incoming, error: IdsyncError): Promise<string | undefined> {
    if (!reporter) {
      log('warn', 'no problem reporter registered (router.use(reportProblemProtocol())): the sender is not told', { code: error.code });
      return undefined;
    }
    if (reporter.isReport(inc.message)) return undefined;
    if (typeof inc.message.id !== 'string' || !(inc.message.from ?? senderOf(inc.metadata))) return undefined;
    try {
      const draft = reporter.report(inc.message, error);
      await replyTo(inc, draft);
      return draft.body?.code as string | undefined;
    } catch (err) {
      log('warn', 'could not send a problem report', { code: toIdsyncError(err).code, for: inc.message.id });
      return undefined;
    }
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
    const inc: Incoming = { message, metadata, info, replies, me: myDidFor(message, metadata) };
    const results = [...checkEnvelope(packed), ...conformance.check(message, { metadata, packed })];
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
    await finishRecord(seq, rec, { result: result.status, problemCode: result.problemCode });
    events.emit('result', result);
    if (result.status === 'handled') events.emit('handled', { message, metadata, result });
    return result;
  }

  async function dispatch(inc: Incoming, results: ConformanceResult[]): Promise<RouterResult> {
    const { message, metadata, replies } = inc;
    const base = { message, metadata, conformance: results, replies };
    const refuse = async (status: RouterStatus, error: IdsyncError): Promise<RouterResult> => {
      const problemCode = await sendProblem(inc, error);
      log(status === 'failed' ? 'error' : 'warn', `message ${status}`, { code: error.code, id: message.id, type: message.type });
      return { ...base, status, code: error.code, problemCode, error };
    };

    const failures = errorsOf(results);
    if (strict && failures.length) return refuse('rejected', refusalFor(failures));

    // DIDComm v2 §Threading: ids are unique per sender and compared case-insensitively.
    const sender = senderOf(metadata) ?? message.from;
    const key = `${String(message.id).toLowerCase()}|${sender ? ionShortForm(sender) : ''}`;
    if (inFlight.has(key) || (await seen.get(key)) !== undefined) {
      log('info', 'duplicate message dropped', { id: message.id });
      return { ...base, status: 'duplicate', code: 'duplicate_message' };
    }
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
        reply: (draft, o) => replyTo(inc, draft, o?.mode),
        send: (draft, o) => send(draft, o),
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
    conformance,
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
          conformance.addProtocolRules(key.includes(':') ? key : `${module.piuri}/${key}`, ...rules);
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
      if (!myDids.some((d) => d === did)) myDids.push(did);
    },
    dids: () => [...myDids],
    receive,
    async inbound(packed, info) {
      await receive(packed, info);
    },
    send,
    waitFor<T>(event: string, predicate?: (data: T) => boolean, o: { timeoutMs?: number; signal?: AbortSignal } = {}) {
      return new Promise<T>((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          events.off(event, listener);
          o.signal?.removeEventListener('abort', aborted);
        };
        const listener = (data: T) => {
          if (predicate && !predicate(data)) return;
          done();
          resolve(data);
        };
        const aborted = () => {
          done();
          reject(new IdsyncError('aborted', `stopped waiting for ${event}`));
        };
        // A guard against waiting forever, not a way to wait for state.
        const timer = setTimeout(() => {
          done();
          reject(new IdsyncError('timeout', `no ${event} event within ${o.timeoutMs ?? 10_000} ms`));
        }, o.timeoutMs ?? 10_000);
        timer.unref?.();
        if (o.signal?.aborted) return aborted();
        o.signal?.addEventListener('abort', aborted);
        events.on(event, listener);
      });
    },
  };
  return router;
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
    return transport.send(target.endpoint, packed, { returnRoute: target.returnRoute });
  };
}
