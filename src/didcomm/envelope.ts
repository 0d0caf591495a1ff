// DIDComm Messaging v2 envelopes (plaintext, JWS, JWE) over didcomm-node; the only file that
// imports it. Every WASM object it hands out is freed here, on success and on error.
//
// Modes ↔ didcomm-node calls (DIDComm v2 "Message Formats" and "Sender Authenticated Encryption"):
//
// | mode                | pack call                                             | on the wire                        |
// |---------------------|-------------------------------------------------------|------------------------------------|
// | plaintext           | pack_plaintext                                        | JWM                                |
// | signed              | pack_signed(signBy)                                   | JWS(JWM)                           |
// | anoncrypt           | pack_encrypted(to, null, null)                        | ECDH-ES JWE(JWM)                   |
// | anoncrypt-signed    | pack_encrypted(to, null, signBy)                      | ECDH-ES JWE(JWS)                   |
// | authcrypt           | pack_encrypted(to, from, null)                        | ECDH-1PU JWE(JWM)                  |
// | anoncrypt-authcrypt | pack_encrypted(to, from, null, protect_sender)        | ECDH-ES JWE(ECDH-1PU JWE(JWM))     |
// | authcrypt-signed    | pack_encrypted(to, from, signBy, protect_sender)      | ECDH-ES JWE(ECDH-1PU JWE(JWS))     |
//
// didcomm-node's protect_sender does not hide `skid` inside one JWE: it anoncrypts the
// authcrypted JWE again. So unpack metadata says authenticated + anonymous_sender for both
// protected modes; `envelopeMode` tells them apart by non_repudiation. An authcrypted JWS
// without the outer layer (`protectSender: false`, or the spec's appendix vector) is also
// reported as 'authcrypt-signed', with anonymousSender false.
import { Message, FromPrior } from 'didcomm-node';
import { IdsyncError, isIdsyncError, type ErrorCode } from '../errors.js';
import { libraryResolver, librarySecrets, sameDid, type ErrorTrap, type LibDidResolver } from './adapters.js';
import { didOf } from './message.js';
import {
  MEDIA_TYPES,
  type EnvelopeContext,
  type EnvelopeMode,
  type PackOptions,
  type PackResult,
  type PlainMessage,
  type UnpackMetadata,
  type UnpackResult,
} from './types.js';

type LibMessageInput = ConstructorParameters<typeof Message>[0];

/** Forward message type (DIDComm v2 "Routing Protocol 2.0"). */
export const FORWARD_TYPE = 'https://didcomm.org/routing/2.0/forward';

export interface UnpackOptions {
  /**
   * A forward addressed to us that wraps a message also encrypted to keys we hold is unwrapped
   * in one go; the metadata is the inner message's, with reWrappedInForward. Default true.
   */
  unwrapReWrappingForward?: boolean;
  /** Every key of ours the message is encrypted to must decrypt it. Default false. */
  expectDecryptByAllKeys?: boolean;
  /**
   * Refuse ('sender_mismatch') a message whose signing or authcrypt sender key is not a key of
   * its `from` DID. Default true; a router that reports the mismatch itself may turn it off.
   */
  checkSender?: boolean;
}

// didcomm-node error names → our codes.
const CODES: Readonly<Record<string, ErrorCode>> = {
  DIDCommMalformed: 'didcomm_malformed',
  DIDCommDIDNotResolved: 'did_not_resolved',
  DIDCommDIDUrlNotFound: 'did_not_resolved',
  DIDCommIllegalArgument: 'didcomm_invalid_argument',
  DIDCommUnsupported: 'didcomm_unsupported',
  DIDCommNoCompatibleCrypto: 'didcomm_unsupported',
  DIDCommSecretNotFound: 'secret_not_found',
  DIDCommIoError: 'didcomm_error',
  DIDCommInvalidState: 'didcomm_error',
};

const UNSUPPORTED_HINT = ' (didcomm-node agrees keys on X25519 and P-256 only, and signs with EdDSA, ES256 or ES256K)';

function toError(op: string, err: unknown, trap: ErrorTrap): IdsyncError {
  // Our resolver or secrets source failed inside the library: report that failure, not the echo.
  if (trap.error !== undefined) {
    if (isIdsyncError(trap.error)) return trap.error;
    const code = trap.source === 'resolver' ? 'did_not_resolved' : 'didcomm_error';
    const what = trap.source === 'resolver' ? 'DID resolution failed' : 'secret lookup failed';
    return new IdsyncError(code, `${op}: ${what}`, { cause: trap.error });
  }
  if (isIdsyncError(err)) return err;
  const name = err instanceof Error ? err.name : '';
  const message = err instanceof Error ? err.message : String(err);
  let code: ErrorCode = Object.hasOwn(CODES, name) ? CODES[name] : 'didcomm_error';
  // Anoncrypt to a recipient whose only key agreement keys are on curves the library lacks
  // (P-384, P-521) surfaces as an internal-state error; it is an unsupported-crypto case.
  if (name === 'DIDCommInvalidState' && message.includes('No key agreement keys found')) code = 'didcomm_unsupported';
  const hint = code === 'didcomm_unsupported' ? UNSUPPORTED_HINT : '';
  return new IdsyncError(code, `${op}: ${message}${hint}`, { cause: err, details: name ? { library: name } : undefined });
}

function invalid(message: string): IdsyncError {
  return new IdsyncError('didcomm_invalid_argument', message);
}

function checkMessage(message: PlainMessage): void {
  // DIDComm v2 "Plaintext Message Structure": id and type are required; the library also requires body.
  if (!message || typeof message !== 'object') throw invalid('a message is an object');
  if (typeof message.id !== 'string' || message.id === '') throw invalid('message.id must be a non-empty string');
  if (typeof message.type !== 'string' || message.type === '') throw invalid('message.type must be a non-empty string');
  if (!message.body || typeof message.body !== 'object' || Array.isArray(message.body)) throw invalid('message.body must be an object');
}

/** How a message was protected, from didcomm-node's unpack metadata (see the table above). */
export function envelopeMode(m: { encrypted: boolean; nonRepudiation: boolean; anonymousSender: boolean; encryptedFromKid?: string }): EnvelopeMode {
  if (!m.encrypted) return m.nonRepudiation ? 'signed' : 'plaintext';
  if (m.encryptedFromKid) {
    if (m.nonRepudiation) return 'authcrypt-signed';
    return m.anonymousSender ? 'anoncrypt-authcrypt' : 'authcrypt';
  }
  return m.nonRepudiation ? 'anoncrypt-signed' : 'anoncrypt';
}

// Library algorithm names → JOSE `alg`/`enc` (DIDComm v2 "Curves and Content Encryption Algorithms").
const ALGS: Record<string, string> = {
  A256cbcHs512Ecdh1puA256kw: 'ECDH-1PU+A256KW/A256CBC-HS512',
  A256cbcHs512EcdhEsA256kw: 'ECDH-ES+A256KW/A256CBC-HS512',
  Xc20pEcdhEsA256kw: 'ECDH-ES+A256KW/XC20P',
  A256gcmEcdhEsA256kw: 'ECDH-ES+A256KW/A256GCM',
};

interface LibUnpackMetadata {
  encrypted: boolean;
  authenticated: boolean;
  non_repudiation: boolean;
  anonymous_sender: boolean;
  re_wrapped_in_forward: boolean;
  encrypted_from_kid?: string | null;
  encrypted_to_kids?: string[] | null;
  sign_from?: string | null;
  from_prior_issuer_kid?: string | null;
  enc_alg_auth?: string | null;
  enc_alg_anon?: string | null;
  sign_alg?: string | null;
  from_prior?: { iss: string; sub: string; iat?: number } | null;
}

interface LibPackMetadata {
  messaging_service?: { id: string; service_endpoint: string } | null;
  from_kid?: string | null;
  sign_by_kid?: string | null;
  to_kids?: string[];
}

function toMetadata(m: LibUnpackMetadata): UnpackMetadata {
  const md: UnpackMetadata = {
    mode: 'plaintext',
    encrypted: m.encrypted,
    authenticated: m.authenticated,
    nonRepudiation: m.non_repudiation,
    anonymousSender: m.anonymous_sender,
    reWrappedInForward: m.re_wrapped_in_forward,
  };
  if (m.encrypted_from_kid) md.encryptedFromKid = m.encrypted_from_kid;
  if (m.encrypted_to_kids) md.encryptedToKids = m.encrypted_to_kids;
  if (m.sign_from) md.signFrom = m.sign_from;
  if (m.enc_alg_auth) md.encAlgAuth = ALGS[m.enc_alg_auth] ?? m.enc_alg_auth;
  if (m.enc_alg_anon) md.encAlgAnon = ALGS[m.enc_alg_anon] ?? m.enc_alg_anon;
  if (m.sign_alg) md.signAlg = m.sign_alg;
  if (m.from_prior) md.fromPrior = m.from_prior;
  if (m.from_prior_issuer_kid) md.fromPriorIssuerKid = m.from_prior_issuer_kid;
  md.mode = envelopeMode(md);
  return md;
}

function context(ctx: EnvelopeContext) {
  const trap: ErrorTrap = {};
  return { trap, resolver: libraryResolver(ctx.resolve, trap), secrets: librarySecrets(ctx.secrets, trap) };
}

/**
 * The first DIDComm service endpoint the recipient's document names, if any. didcomm-node only
 * reports the service when it wrapped the message in forwards; the resolution is this call's.
 */
async function endpointOf(to: string | undefined, resolver: LibDidResolver): Promise<string | undefined> {
  if (!to) return undefined;
  try {
    return (await resolver.resolve(didOf(to)))?.service[0]?.serviceEndpoint.uri;
  } catch {
    return undefined; // the endpoint is advice for the caller; a plaintext message packs regardless
  }
}

/** Packs a plaintext message in the given mode (see the table at the top of this file). */
export async function pack(message: PlainMessage, options: PackOptions, ctx: EnvelopeContext): Promise<PackResult> {
  checkMessage(message);
  const mode = options.mode;
  const to = options.to ?? message.to?.[0];
  const from = options.from ?? message.from;
  const signBy = options.signBy ?? message.from;
  const signs = mode === 'signed' || mode === 'anoncrypt-signed' || mode === 'authcrypt-signed';
  const authcrypts = mode === 'authcrypt' || mode === 'anoncrypt-authcrypt' || mode === 'authcrypt-signed';
  if (signs) {
    if (!signBy) throw invalid(`${mode} needs a signer: options.signBy or message.from`);
    // DIDComm v2 "Message Signing": the signing key must belong to the `from` DID.
    if (message.from && !sameDid(didOf(signBy), message.from)) throw invalid(`signer ${signBy} is not message.from ${message.from}`);
  }
  if (authcrypts && !from) throw invalid(`${mode} needs a sender: options.from or message.from`);
  if (mode !== 'plaintext' && mode !== 'signed' && !to) throw invalid(`${mode} needs a recipient: options.to or message.to`);

  const { trap, resolver, secrets } = context(ctx);
  let msg: Message | undefined;
  try {
    // Our Attachment type is looser than the library's (its data is a union); it validates.
    msg = new Message({ ...message, typ: message.typ ?? MEDIA_TYPES.plaintext } as unknown as LibMessageInput);
    if (mode === 'plaintext' || mode === 'signed') {
      let packed: string;
      let signByKid: string | undefined;
      if (mode === 'plaintext') packed = await msg.pack_plaintext(resolver);
      else [packed, { sign_by_kid: signByKid }] = (await msg.pack_signed(signBy!, resolver, secrets)) as [string, { sign_by_kid: string }];
      const result: PackResult = { packed, mode, mediaType: mode === 'plaintext' ? MEDIA_TYPES.plaintext : MEDIA_TYPES.signed, toKids: [] };
      if (signByKid) result.signByKid = signByKid;
      const endpoint = await endpointOf(to, resolver);
      if (endpoint) result.serviceEndpoint = endpoint;
      return result;
    }
    if (mode !== 'anoncrypt' && mode !== 'anoncrypt-signed' && !authcrypts) throw invalid(`unknown envelope mode ${String(mode)}`);
    const protect = mode === 'anoncrypt-authcrypt' || (mode === 'authcrypt-signed' && options.protectSender !== false);
    const [packed, meta] = (await msg.pack_encrypted(
      to!,
      authcrypts ? from! : null,
      signs ? signBy! : null,
      resolver,
      secrets,
      { forward: options.forward ?? true, protect_sender: protect },
    )) as [string, LibPackMetadata];
    const result: PackResult = { packed, mode, mediaType: MEDIA_TYPES.encrypted, toKids: meta.to_kids ?? [] };
    const endpoint = meta.messaging_service?.service_endpoint ?? (await endpointOf(to, resolver));
    if (endpoint) result.serviceEndpoint = endpoint;
    if (meta.from_kid) result.fromKid = meta.from_kid;
    if (meta.sign_by_kid) result.signByKid = meta.sign_by_kid;
    return result;
  } catch (err) {
    throw toError('pack', err, trap);
  } finally {
    msg?.free();
  }
}

/**
 * Unpacks any DIDComm message (JWE, JWS or plaintext) and says how it was protected. Input
 * that is not a DIDComm message, of any size, fails with 'didcomm_malformed'.
 */
export async function unpack(packed: string, ctx: EnvelopeContext, options: UnpackOptions = {}): Promise<UnpackResult> {
  // Every DIDComm serialisation is a JSON object (DIDComm v2 "Message Formats"); the library
  // reports an empty string as an internal state error, so refuse obvious non-messages here.
  if (typeof packed !== 'string' || !/^\s*\{/.test(packed)) {
    throw new IdsyncError('didcomm_malformed', 'unpack: a DIDComm message is a JSON object (JWE, JWS or plaintext JWM)');
  }
  let result = await unpackOnce(packed, ctx, options);
  if (options.unwrapReWrappingForward === false) return result;
  // A forward addressed to us around a message also addressed to us ("re-wrapping" by a
  // mediator, or our own key listed as a routing key). didcomm-node can unwrap it, but then
  // merges both layers' metadata so that an authcrypted message looks sender-protected; we
  // unwrap here and keep the inner message's metadata.
  for (let depth = 0; depth < MAX_REWRAP_DEPTH && result.message.type === FORWARD_TYPE; depth++) {
    const inner = await forwardedToUs(result.message, ctx);
    if (!inner) break;
    const next = await unpackOnce(inner, ctx, options);
    result = { message: next.message, metadata: { ...next.metadata, reWrappedInForward: true } };
  }
  return result;
}

const MAX_REWRAP_DEPTH = 4;

/** The forwarded message when it is encrypted to keys we hold, else undefined. */
async function forwardedToUs(forward: PlainMessage, ctx: EnvelopeContext): Promise<string | undefined> {
  let attachment: string;
  try {
    attachment = parseForward(forward)!.attachment;
  } catch {
    return undefined; // a broken forward is returned as it is, for the router to report
  }
  let kids: string[];
  try {
    const jwe = JSON.parse(attachment) as { recipients?: { header?: { kid?: unknown } }[] };
    kids = (jwe.recipients ?? []).map((r) => r?.header?.kid).filter((k): k is string => typeof k === 'string');
  } catch {
    return undefined;
  }
  if (kids.length === 0) return undefined;
  return (await ctx.secrets.find(kids)).length > 0 ? attachment : undefined;
}

async function unpackOnce(packed: string, ctx: EnvelopeContext, options: UnpackOptions): Promise<UnpackResult> {
  const { trap, resolver, secrets } = context(ctx);
  let msg: Message | undefined;
  let message: PlainMessage;
  let meta: LibUnpackMetadata;
  try {
    const out = (await Message.unpack(packed, resolver, secrets, {
      unwrap_re_wrapping_forward: false,
      expect_decrypt_by_all_keys: options.expectDecryptByAllKeys ?? false,
    })) as [Message, LibUnpackMetadata];
    msg = out[0];
    meta = out[1];
    message = msg.as_value() as PlainMessage;
  } catch (err) {
    throw toError('unpack', err, trap);
  } finally {
    msg?.free();
  }
  const metadata = toMetadata(meta);
  // didcomm-node does not tie the signer to `from`; DIDComm v2 "Message Signing" requires the
  // signing key to be authorised by the `from` DID, and authcrypt's skid likewise ("Sender
  // Authenticated Encryption").
  if (message.from !== undefined && typeof message.from !== 'string') {
    throw new IdsyncError('didcomm_malformed', 'unpack: message.from must be a DID string');
  }
  for (const kid of options.checkSender === false ? [] : [metadata.signFrom, metadata.encryptedFromKid]) {
    if (kid && message.from && !sameDid(didOf(kid), message.from)) {
      throw new IdsyncError('sender_mismatch', `unpack: key ${kid} does not belong to the sender ${message.from}`, {
        details: { kid, from: message.from },
      });
    }
  }
  return { message, metadata };
}

/**
 * Wraps a packed message in forwards (DIDComm v2 "Routing Protocol 2.0"), one per routing key, the
 * last one outermost; `to` is the final recipient. The result is anoncrypted to the routing keys.
 */
export async function wrapInForward(
  packed: string,
  options: { to: string; routingKeys: string[]; headers?: Record<string, string> },
  ctx: EnvelopeContext,
): Promise<string> {
  if (typeof packed !== 'string' || packed === '') throw invalid('wrapInForward: nothing to wrap');
  if (typeof options?.to !== 'string' || options.to === '') throw invalid('wrapInForward: options.to must be the final recipient DID');
  if (!Array.isArray(options.routingKeys) || options.routingKeys.length === 0 || !options.routingKeys.every((k) => typeof k === 'string')) {
    throw invalid('wrapInForward: options.routingKeys must name at least one key');
  }
  const { trap, resolver } = context(ctx);
  try {
    return (await Message.wrap_in_forward(packed, options.headers ?? {}, options.to, options.routingKeys, 'Xc20pEcdhEsA256kw', resolver)) as string;
  } catch (err) {
    throw toError('wrapInForward', err, trap);
  }
}

/**
 * Reads a forward (DIDComm v2 "Routing Protocol 2.0"): `next` is the DID or key to pass to, and
 * `attachment` the packed message to pass on, as a string. Other message types give null; a
 * forward missing either part fails with 'didcomm_malformed'.
 *
 * Parsed here, not with didcomm-node's try_parse_forward: that needs the whole message copied
 * into WASM, and it returns null for a base64 attachment, which the protocol allows.
 */
export function parseForward(msg: PlainMessage): { next: string; attachment: string } | null {
  if (msg?.type !== FORWARD_TYPE) return null;
  const next = (msg.body as { next?: unknown } | undefined)?.next;
  if (typeof next !== 'string' || next === '') throw new IdsyncError('didcomm_malformed', 'forward: body.next must be a DID or key id');
  const data = msg.attachments?.[0]?.data;
  let attachment: string | undefined;
  if (data?.json !== undefined && data.json !== null && typeof data.json === 'object') attachment = JSON.stringify(data.json);
  else if (typeof data?.base64 === 'string') attachment = Buffer.from(data.base64, 'base64').toString('utf8');
  if (!attachment || !attachment.trimStart().startsWith('{')) {
    throw new IdsyncError('didcomm_malformed', 'forward: the first attachment must hold the message to forward (json or base64)');
  }
  return { next, attachment };
}

/**
 * Signs a `from_prior` JWT for DID rotation (DIDComm v2 "DID Rotation"): `sub` is the
 * new DID, `iss` the prior one, signed by a key of `iss` (`issuerKid`, or one the library picks).
 */
export async function packFromPrior(
  claims: { iss: string; sub: string; iat?: number },
  issuerKid: string | undefined,
  ctx: EnvelopeContext,
): Promise<{ jwt: string; issuerKid: string }> {
  const { trap, resolver, secrets } = context(ctx);
  let fp: FromPrior | undefined;
  try {
    fp = new FromPrior(claims);
    const [jwt, kid] = (await fp.pack(issuerKid ?? null, resolver, secrets)) as [string, string];
    return { jwt, issuerKid: kid };
  } catch (err) {
    throw toError('packFromPrior', err, trap);
  } finally {
    fp?.free();
  }
}
