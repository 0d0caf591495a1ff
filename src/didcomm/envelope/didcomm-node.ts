// The didcomm-node engine: DIDComm Messaging v2 envelopes over the WASM library, kept as the
// second engine (`engine: 'didcomm-node'`) and as the oracle of the native one in tests. The only
// file that imports didcomm-node. Every WASM object it hands out is freed here, on success and on
// error.
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
// | authcrypt-signed    | pack_encrypted(to, from, signBy)                      | ECDH-1PU JWE(JWS)                  |
// |   protectSender     | pack_encrypted(to, from, signBy, protect_sender)      | ECDH-ES JWE(ECDH-1PU JWE(JWS))     |
//
// didcomm-node's protect_sender does not hide `skid` inside one JWE: it anoncrypts the
// authcrypted JWE again. So unpack metadata says authenticated + anonymous_sender for both
// protected forms; `envelopeMode` tells them apart by non_repudiation. With a signature that gives
// anoncrypt(authcrypt(sign(plaintext))), which DIDComm v2.1 §IANA Media Types says "MUST NOT be
// used": only an explicit `protectSender: true` asks for it. An authcrypted JWS with or without
// the outer layer is reported as 'authcrypt-signed' (anonymousSender says which).
import { Message, FromPrior } from 'didcomm-node';
import { IdsyncError, isIdsyncError, type ErrorCode } from '../../errors.js';
import { libraryResolver, librarySecrets, type ErrorTrap, type LibDidResolver } from './adapters.js';
import { didOf } from '../message.js';
import { MEDIA_TYPES, type AnoncryptEnc, type EnvelopeContext, type PackResult, type PlainMessage, type UnpackMetadata, type UnpackResult } from '../types.js';
import type { Engine, PackPlan } from './engine.js';
import { envelopeMode } from './mode.js';

type LibMessageInput = ConstructorParameters<typeof Message>[0];

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
  let code: ErrorCode = Object.hasOwn(CODES, name) ? CODES[name]! : 'didcomm_error';
  // Anoncrypt to a recipient whose only key agreement keys are on curves the library lacks
  // (P-384, P-521) surfaces as an internal-state error; it is an unsupported-crypto case.
  if (name === 'DIDCommInvalidState' && message.includes('No key agreement keys found')) code = 'didcomm_unsupported';
  const hint = code === 'didcomm_unsupported' ? UNSUPPORTED_HINT : '';
  return new IdsyncError(code, `${op}: ${message}${hint}`, { cause: err, details: name ? { library: name } : undefined });
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

// JOSE `enc` → the library's name of the anoncrypt algorithm.
const ANON_ALGS = {
  'A256CBC-HS512': 'A256cbcHs512EcdhEsA256kw',
  A256GCM: 'A256gcmEcdhEsA256kw',
  XC20P: 'Xc20pEcdhEsA256kw',
} as const satisfies Record<AnoncryptEnc, string>;

async function pack(message: PlainMessage, plan: PackPlan, ctx: EnvelopeContext): Promise<PackResult> {
  const { mode, to, from, signBy } = plan;
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
    const [packed, meta] = (await msg.pack_encrypted(
      to!,
      plan.authcrypts ? from! : null,
      plan.signs ? signBy! : null,
      resolver,
      secrets,
      { forward: plan.forward, protect_sender: plan.protect, enc_alg_anon: ANON_ALGS[plan.encAlgAnon] },
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

async function unpack(packed: string, ctx: EnvelopeContext, options: { expectDecryptByAllKeys: boolean }): Promise<UnpackResult> {
  const { trap, resolver, secrets } = context(ctx);
  let msg: Message | undefined;
  let message: PlainMessage;
  let meta: LibUnpackMetadata;
  try {
    const out = (await Message.unpack(packed, resolver, secrets, {
      unwrap_re_wrapping_forward: false,
      expect_decrypt_by_all_keys: options.expectDecryptByAllKeys,
    })) as [Message, LibUnpackMetadata];
    msg = out[0];
    meta = out[1];
    message = msg.as_value() as PlainMessage;
  } catch (err) {
    throw toError('unpack', err, trap);
  } finally {
    msg?.free();
  }
  return { message, metadata: toMetadata(meta) };
}

export const didcommNodeEngine: Engine = {
  pack,
  unpack,
  async wrapInForward(packed, o, ctx) {
    const { trap, resolver } = context(ctx);
    try {
      return (await Message.wrap_in_forward(packed, o.headers, o.to, o.routingKeys, ANON_ALGS[o.enc], resolver)) as string;
    } catch (err) {
      throw toError('wrapInForward', err, trap);
    }
  },
  async packFromPrior(claims, issuerKid, ctx) {
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
  },
};
