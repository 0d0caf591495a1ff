// Our own small DIDComm v2 types. Only didcomm/envelope/didcomm-node.ts sees didcomm-node's types.
import type { DocumentResolver, Secret } from '../did/types.js';
import type { ErrorCode } from '../errors.js';

/** DIDComm Messaging v2 §2.4 plaintext message. */
export interface Attachment {
  id?: string;
  description?: string;
  filename?: string;
  media_type?: string;
  format?: string;
  lastmod_time?: number;
  byte_count?: number;
  data: { json?: unknown; base64?: string; links?: string[]; hash?: string; jws?: unknown };
}

export interface PlainMessage {
  id: string;
  type: string;
  typ?: string;
  from?: string;
  to?: string[];
  thid?: string;
  pthid?: string;
  created_time?: number;
  expires_time?: number;
  body: Record<string, unknown>;
  attachments?: Attachment[];
  /** DIDComm v2 §6.1 (transport return route extension): 'all' | 'thread' | 'none'. */
  return_route?: 'all' | 'thread' | 'none';
  from_prior?: string;
  [header: string]: unknown;
}

/**
 * How a message travels. `authcrypt-signed` is authcrypt of a signed message,
 * authcrypt(sign(plaintext)) (DIDComm v2.1 §IANA Media Types: it "SHOULD NOT be emitted", and
 * "implementations MAY accept it"); `anoncrypt-authcrypt` is authcrypt wrapped again in anoncrypt
 * (what protect_sender produces in didcomm-node).
 */
export type EnvelopeMode = 'plaintext' | 'signed' | 'anoncrypt' | 'authcrypt' | 'authcrypt-signed' | 'anoncrypt-authcrypt' | 'anoncrypt-signed';

export const MEDIA_TYPES = {
  plaintext: 'application/didcomm-plain+json',
  signed: 'application/didcomm-signed+json',
  encrypted: 'application/didcomm-encrypted+json',
} as const;

/** Private keys by full key id. */
export interface SecretsSource {
  get(kid: string): Promise<Secret | undefined>;
  /** The subset of `kids` held here. */
  find(kids: string[]): Promise<string[]>;
}

/**
 * Which implementation packs and unpacks: 'native' (our own, over node:crypto; the default) or
 * 'didcomm-node' (the WASM library, kept as a second engine and as the oracle in tests).
 */
export type EnvelopeEngine = 'native' | 'didcomm-node';
export const ENVELOPE_ENGINES: readonly EnvelopeEngine[] = ['native', 'didcomm-node'];

/** Content encryption for anoncrypt (DIDComm v2 §Curves and Content Encryption Algorithms). */
export type AnoncryptEnc = 'A256CBC-HS512' | 'A256GCM' | 'XC20P';

export interface EnvelopeContext {
  resolve: DocumentResolver;
  secrets: SecretsSource;
  /** The engine for every pack and unpack with this context (default: DEFAULT_ENGINE in envelope/index.ts). */
  engine?: EnvelopeEngine;
}

/**
 * A form an unpack met and accepted, though it is not the usual one (a flattened JWS, a `kid`
 * only in the protected header, P-384/P-521): the conformance log records it with the rule it
 * concerns. `broken`: the form breaks that rule and was read anyway, to be liberal in what is
 * accepted (anoncrypt without `apv`): the log records the rule as failed.
 */
export interface EnvelopeNote {
  rule: string;
  detail: string;
  broken?: boolean;
}

export interface PackOptions {
  mode: EnvelopeMode;
  /** Recipient DID (or key id) for encrypted modes; defaults to message.to[0]. */
  to?: string;
  /** Sender DID or key id for authcrypt; defaults to message.from. */
  from?: string;
  /** Signer DID or key id for signed modes; defaults to message.from. */
  signBy?: string;
  /** Wrap in routing forwards when the recipient's service names routing keys (default true). */
  forward?: boolean;
  /**
   * 'authcrypt-signed' only: anoncrypt the authcrypted JWS again (didcomm-node's protect_sender),
   * giving anoncrypt(authcrypt(sign(plaintext))). Default false. DIDComm v2.1 §IANA Media Types:
   * "envelope combinations other than the ones above MUST NOT be used. In particular, it makes no
   * sense to use anoncrypt(authcrypt(sign(plaintext))); use anoncrypt(sign(plaintext)) instead."
   * true emits that forbidden combination (Appendix C.3's vector packs it): for testing how
   * recipients take it, not for talking to them. To hide the sender, use 'anoncrypt-signed'.
   */
  protectSender?: boolean;
  /** Content encryption of the anoncrypt layers (the outer one of the protected modes, and forwards); default XC20P. */
  encAlgAnon?: AnoncryptEnc;
  /** Overrides the context's engine for this call. */
  engine?: EnvelopeEngine;
}

export interface PackResult {
  packed: string;
  mode: EnvelopeMode;
  mediaType: string;
  /** The service the message should go to, when the recipient's document names one. */
  serviceEndpoint?: string;
  fromKid?: string;
  signByKid?: string;
  toKids: string[];
  /** The plaintext's JSON text as it went into the envelope, when the engine wrote it itself. */
  plaintext?: string;
}

export interface UnpackMetadata {
  mode: EnvelopeMode;
  encrypted: boolean;
  authenticated: boolean;
  nonRepudiation: boolean;
  anonymousSender: boolean;
  encryptedFromKid?: string;
  encryptedToKids?: string[];
  signFrom?: string;
  encAlgAuth?: string;
  encAlgAnon?: string;
  signAlg?: string;
  reWrappedInForward: boolean;
  /** DIDComm v2 "DID Rotation": the verified `from_prior` claims (iss = prior DID, sub = new DID). */
  fromPrior?: { iss: string; sub: string; iat?: number };
  fromPriorIssuerKid?: string;
  /** Accepted forms worth recording (native engine); absent when there is nothing to note. */
  notes?: EnvelopeNote[];
}

export interface UnpackResult {
  message: PlainMessage;
  metadata: UnpackMetadata;
  /**
   * The outer JWE or JWS as the engine parsed it, left unchanged, when it has it (the native
   * engine): the envelope rules read it instead of parsing the packed text once more. Not
   * enumerable: what prints or compares an unpack's result sees the message and metadata only.
   */
  outer?: Record<string, unknown>;
  /**
   * The plaintext's JSON text, when the engine parsed the message from it and changed nothing
   * (the native engine): the router stores the message by copying it (json-text.ts). Not
   * enumerable, as `outer`.
   */
  plaintext?: string;
}

export interface TransportSendOptions {
  returnRoute?: boolean;
  /**
   * The plaintext `type` of what is sent, as the sender knows it (a transport never unpacks): for
   * observing and fault injection (testing/fault-plan.ts). Transports do not act on it.
   */
  messageType?: string;
  /**
   * The media type of `packed` as its packer made it (PackResult.mediaType): a transport that
   * labels what it sends (HTTP's Content-Type) takes it instead of parsing the message to judge
   * its JSON shape (transport/media-type.ts detectMediaType).
   */
  mediaType?: string;
}

/** A transport delivers a packed message to an endpoint; replies come back when return_route asks. */
export interface Transport {
  readonly schemes: string[];
  send(endpoint: string, packed: string, options?: TransportSendOptions): Promise<string[]>;
  close?(): Promise<void>;
}

/**
 * What an inbound handler may resolve with: `retryable` asks HTTP to answer 503 + Retry-After;
 * `refusal` says the message was refused for good and its sender could not be told by a problem
 * report (no sender to answer, or the report could not be delivered): HTTP answers 400 with its code.
 */
export interface InboundOutcome {
  retryable?: boolean;
  /** Seconds the sender should wait (default DEFAULT_RETRY_AFTER_SECONDS in transport/media-type.ts). */
  retryAfterSeconds?: number;
  /**
   * With `retryable`: why the message was not taken now, when the handler knows a coded reason
   * (the mediator's full queue, queue_full): the 503 names it instead of the generic code.
   */
  reason?: InboundRefusal;
  refusal?: InboundRefusal;
}

/** A message refused for good that no problem report answered. */
export interface InboundRefusal {
  /** The IdsyncError code (e.g. `no_reply_address`, `sender_not_authenticated`). */
  code: ErrorCode;
  message: string;
  /** The DIDComm problem code the refusal maps to (report-problem 2.0), when one is known. */
  problemCode?: string;
}

/**
 * What an inbound endpoint calls with each message it receives. Replies go through `reply`; a
 * handler may resolve with `{retryable: true, retryAfterSeconds?}` (the router's result has that
 * shape) so HTTP answers 503 + Retry-After instead of 202 (transport/media-type.ts).
 */
export type InboundHandler = (
  packed: string,
  info: {
    transport: string;
    reply?: (packed: string) => Promise<void>;
    /** WebSocket and memory transports: associate this connection with a DID for later pushes (return_route 'all'). */
    bind?: (key: string) => void;
    /**
     * The JSON object the transport parsed `packed` into while checking it (HTTP: depth, shape),
     * so that the receiver opens it without parsing the same text again. The receiver may change it.
     */
    parsed?: Record<string, unknown>;
  },
) => Promise<void | InboundOutcome>;
