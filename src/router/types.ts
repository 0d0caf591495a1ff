// The router's public types and constants (router.ts re-exports all of them): options, what a
// protocol module and its handlers see, and the coded result of every received message.
import type { EventEmitter } from 'node:events';
import type { Clock, IdGenerator } from '../clock.js';
import type { RuleRegistry } from '../conformance/registry.js';
import type { ConformanceResult, MessageRule } from '../conformance/types.js';
import type { IdsyncError } from '../errors.js';
import type { MessageLog } from '../store/messages.js';
import type { Collection } from '../store/store.js';
import type { MessageDraft } from '../didcomm/message.js';
import type { StepEngine, StepOptions } from './steps/engine.js';
import type { BatchOp } from '../store/store.js';
import type { WaitOptions } from '../wait.js';
import type { EnvelopeContext, EnvelopeMode, InboundRefusal, PackOptions, PackResult, PlainMessage, UnpackMetadata, UnpackResult } from '../didcomm/types.js';

export type PackFn = (message: PlainMessage, options: PackOptions, ctx: EnvelopeContext) => Promise<PackResult>;
/** `parsed`: the packed message as its transport parsed it (ReceiveInfo.parsed), when it did. */
export type UnpackFn = (packed: string, ctx: EnvelopeContext, parsed?: Record<string, unknown>) => Promise<UnpackResult>;

/** Where an outgoing message goes; the delivery function returns any return-routed replies. */
export interface OutboundTarget {
  to: string;
  mode: EnvelopeMode;
  message: PlainMessage;
  /** `via` when given, else the service endpoint from the recipient's DID document. */
  endpoint?: string;
  returnRoute: boolean;
  /** The packer's media type of the packed message (PackResult.mediaType), for the transport's label. */
  mediaType?: string;
}
export type Outbound = (packed: string, target: OutboundTarget) => Promise<string[] | void>;

export interface ReceiveInfo {
  transport?: string;
  /** Present when the transport can carry a reply back on the same connection (return route). */
  reply?: (packed: string) => Promise<void>;
  /**
   * The message may arrive again by design (Message Pickup 3.0 delivers until `messages-received`,
   * a live socket may push what a delivery already gave): a duplicate is dropped silently, without
   * the e.p.msg.duplicate report that `reportDuplicates` would send.
   */
  redelivery?: boolean;
  /** WebSocket and memory transports: associate this connection with a DID for later pushes (live mode). */
  bind?: (key: string) => void;
  /** Whether the connection `reply` sends on is still open (a WebSocket): false once it closed. */
  open?: () => boolean;
  /** The JSON object the transport parsed the packed message into (InboundHandler's `info.parsed`): not parsed again. */
  parsed?: Record<string, unknown>;
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
  /**
   * A handler failure that may pass (internal, storage, transport, timeout, unresolved DID): the
   * message id was not marked seen, so a retry of the same message is handled. A transport may
   * answer so that the sender retries (e.g. HTTP 503 instead of 202).
   */
  retryable?: boolean;
  /**
   * A duplicate refused while another copy of the message is still being handled: that copy's
   * outcome (handled, or a failure that may pass) is not known yet.
   */
  otherCopyHandling?: boolean;
  /**
   * Refused for good (the id is marked seen) and no problem report told the sender: it has no
   * sender to answer (anoncrypt, plaintext without `from`), or the report could not be delivered.
   * A transport that can answer says so instead (HTTP 400 with the code), never "retry later".
   */
  refusal?: InboundRefusal;
}

export interface SendOptions {
  /** Recipient DID; defaults to message.to[0]. */
  to?: string;
  mode?: EnvelopeMode;
  /** An endpoint to deliver to instead of the one in the recipient's DID document. */
  via?: string;
  /**
   * false: never wrapped in routing forwards, whatever mediators the recipient's DID names (a
   * message pushed on the connection the recipient itself opened). Default: as the packer decides.
   */
  forward?: boolean;
  from?: string;
  expiresInMs?: number;
  /** Skip the outgoing conformance check (to send deliberately bad messages in tests). */
  unchecked?: boolean;
  /** Not stored as the thread's last message (steps/engine.ts): the router's own refusals. */
  untracked?: boolean;
  /**
   * Store writes of the step this message is part of (the thread's state, an operation, its
   * events): stored in ONE batch with the message before it goes out, so that a crash keeps
   * both or neither (docs/protocols.md "Durable steps"). Needs RouterOptions.steps.
   */
  ops?: BatchOp[];
}

/** A message made, checked, packed and stored, not yet sent (Router.prepare). */
export interface PreparedSend {
  message: PlainMessage;
  packed: PackResult;
  to: string;
  endpoint?: string;
  returnRoute: boolean;
  results: ConformanceResult[];
  untracked: boolean;
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
  /** Our DID this message was addressed to, in the form it was addressed to (ion long or short). */
  me?: string;
  /** The DID proven by the envelope (authcrypt sender or signer); undefined when anonymous. */
  sender?: string;
  thid: string;
  router: Router;
  /** How the message arrived: the transport's receive info as given to `receive` (return route, socket binding). */
  received: ReceiveInfo;
  /**
   * Replies in the thread (thid = message.thid ?? message.id), over the return route when asked;
   * without a `from` in the draft, from `me`.
   */
  reply(draft: MessageDraft, options?: { mode?: EnvelopeMode; ops?: BatchOp[] }): Promise<PlainMessage>;
  /**
   * The first half of reply: the reply made, packed and stored with `ops` (the rest of the step),
   * sent by its deliver(). A handler holding a lock over the step's state releases it in between.
   */
  prepareReply(draft: MessageDraft, options?: { mode?: EnvelopeMode; ops?: BatchOp[] }): Promise<{ message: PlainMessage; deliver(): Promise<PlainMessage> }>;
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
  /** When it was marked seen (clock ms); records older than `seenRetentionMs` no longer count. */
  at: number;
  type?: string;
  /** The message was refused for good without a problem report: a copy of it gets the same refusal. */
  refusal?: InboundRefusal;
}

/** Where seen message ids are kept; with `list` and `del` the router also deletes old ones. */
export type SeenStore = Pick<Collection<SeenRecord>, 'get' | 'put'> & Partial<Pick<Collection<SeenRecord>, 'list' | 'del'>>;

export interface RouterOptions {
  envelope: EnvelopeContext;
  pack?: PackFn;
  unpack?: UnpackFn;
  clock: Clock;
  ids?: IdGenerator;
  /**
   * Message ids already processed (seen.ts); a store collection makes duplicate detection
   * survive restarts. Default: in memory.
   */
  seen?: SeenStore;
  /** How long a seen id counts as a replay (default 7 days, seen.ts DEFAULT_SEEN_RETENTION_MS; Infinity: forever). */
  seenRetentionMs?: number;
  /** Older seen records are deleted after every this many writes (default 1000), when `seen` can list and delete. */
  seenPruneEvery?: number;
  log?: RouterLog;
  /**
   * Received messages larger than this (packed bytes) are logged as a digest, without their
   * plaintext, even when their sender is authenticated (default 256 KiB). Messages without an
   * authenticated sender are always logged as a digest (records.ts).
   */
  logMessageMaxBytes?: number;
  send?: Outbound;
  /** Our DIDs (an ion DID may be given in both forms); the first is the default sender. */
  myDids?: string[];
  /** Refuse messages that break a MUST of the specs (default true). */
  strict?: boolean;
  /**
   * Answer a replay (a message id already seen from that sender) from an authenticated sender
   * with report-problem e.p.msg.duplicate (docs/protocols.md "Refusals that change no state").
   * Default true; a receive with `redelivery: true` never reports.
   */
  reportDuplicates?: boolean;
  /** Envelope for replies; default: plaintext for plaintext, else authcrypt (anoncrypt without a DID of ours). */
  replyMode?: EnvelopeMode;
  /** Envelope for `send` without a mode (default authcrypt). */
  defaultMode?: EnvelopeMode;
  conformance?: RuleRegistry;
  logger?: (level: LogLevel, msg: string, data?: Record<string, unknown>) => void;
  /**
   * Durable protocol steps (steps/engine.ts): the last message of each thread stored before it is
   * sent, in one batch with the rest of its step, retried until answered or a deadline, and sent
   * again to answer a replay of what it answered.
   */
  steps?: StepOptions;
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
  /**
   * 'received' (unpacked, before handling), 'result' (RouterResult, and the packed message as
   * received as a second argument), 'handled', 'sent' ({message, packed, mode, to, returnRouted}),
   * 'log', and the events handlers emit.
   */
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
  /**
   * The first half of send: the message made, checked, packed and stored (with `options.ops`),
   * not yet sent; deliver() sends it. A caller holding a lock over the step's state releases it in
   * between: a reply may come back inside the delivery.
   */
  prepare(draft: MessageDraft, options?: SendOptions): Promise<PreparedSend>;
  /**
   * Sends a prepared message, logged as any other. `outbound` takes the place of the router's own
   * delivery function for this message: one that must travel on a given connection (a live push).
   */
  deliver(prepared: PreparedSend, outbound?: Outbound): Promise<SendResult>;
  /** Deletes seen message ids older than `seenRetentionMs` now (also done every `seenPruneEvery` writes). */
  pruneSeen(): Promise<number>;
  /** The durable-steps engine when `options.steps` was given (start(), runDue(), cancel()). */
  steps(): StepEngine | undefined;
  /** Resolves with the first `event` payload that satisfies `predicate`. */
  waitFor<T = unknown>(event: string, predicate?: (data: T) => boolean, options?: WaitOptions): Promise<T>;
}

/**
 * The rule a replay is logged under: idsync's replay protection (advice), not plaintext.id-unique,
 * which is about the ids a sender gives different messages; a copy sent again breaks no MUST.
 */
export const DUPLICATE_RULE = 'plaintext.id-replayed';
