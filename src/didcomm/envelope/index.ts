// DIDComm Messaging v2 envelopes (plaintext, JWS, JWE): pack and unpack, forwards and from_prior,
// over one of two engines: 'native' (our own, node:crypto; the default) or 'didcomm-node' (the
// WASM library, kept as a second engine and as the oracle in tests). Chosen per call
// (options.engine), per context (ctx.engine), else native. What both share is here: argument
// checks, the sender rule, and unwrapping forwards re-wrapped to us.
//
// | mode                | layers, outermost first                  | metadata                                   |
// |---------------------|------------------------------------------|--------------------------------------------|
// | plaintext           | JWM                                      |                                            |
// | signed              | JWS(JWM)                                 | nonRepudiation                             |
// | anoncrypt           | ECDH-ES JWE(JWM)                         | anonymousSender                            |
// | anoncrypt-signed    | ECDH-ES JWE(JWS)                         | anonymousSender, nonRepudiation            |
// | authcrypt           | ECDH-1PU JWE(JWM)                        | authenticated                              |
// | anoncrypt-authcrypt | ECDH-ES JWE(ECDH-1PU JWE(JWM))           | authenticated, anonymousSender             |
// | authcrypt-signed    | ECDH-1PU JWE(JWS)                        | authenticated, nonRepudiation              |
//
// authcrypt-signed is authcrypt(sign(plaintext)), which §IANA Media Types lists but says "SHOULD
// NOT be emitted by conforming implementations. However, implementations MAY accept it." Only an
// explicit `protectSender: true` anoncrypts it again, as didcomm-node's protect_sender does, into
// anoncrypt(authcrypt(sign(plaintext))): a combination the same section says "MUST NOT be used"
// (Appendix C.3's vector packs it all the same). It exists to test recipients, never as a default.
// Unpacked, either form is 'authcrypt-signed'; anonymousSender tells them apart.
import { IdsyncError } from '../../errors.js';
import { didOf } from '../message.js';
import type { EnvelopeContext, EnvelopeEngine, PackOptions, PackResult, PlainMessage, UnpackResult } from '../types.js';
import { sameDid } from './adapters.js';
import { didcommNodeEngine } from './didcomm-node.js';
import type { Engine, PackPlan } from './engine.js';
import { FORWARD_TYPE, forwardedKids, parseForward } from './forward.js';
import type { FromPriorClaims } from './from-prior.js';
import { nativeEngine } from './native.js';

export { FORWARD_TYPE, parseForward };
export { envelopeMode } from './mode.js';

/** The engine when neither the call nor the context names one. */
export const DEFAULT_ENGINE: EnvelopeEngine = 'native';

const ENGINES: Record<EnvelopeEngine, Engine> = { native: nativeEngine, 'didcomm-node': didcommNodeEngine };

function engineFor(requested: unknown, ctx: EnvelopeContext | undefined): Engine {
  const name = requested ?? ctx?.engine ?? DEFAULT_ENGINE;
  const engine = ENGINES[name as EnvelopeEngine];
  if (!engine || !Object.hasOwn(ENGINES, name as string)) {
    throw new IdsyncError('didcomm_invalid_argument', `unknown envelope engine ${String(name)} (native or didcomm-node)`);
  }
  return engine;
}

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
  /** Overrides the context's engine for this call. */
  engine?: EnvelopeEngine;
  /**
   * `packed` as a transport already parsed it (InboundHandler's `info.parsed`: a JSON object of
   * that very text, within MAX_JSON_DEPTH): the native engine opens it without a second parse.
   */
  parsed?: Record<string, unknown>;
}

function invalid(message: string): IdsyncError {
  return new IdsyncError('didcomm_invalid_argument', message);
}

function checkMessage(message: PlainMessage): void {
  // DIDComm v2 "Plaintext Message Structure": id, type and body are required.
  if (!message || typeof message !== 'object') throw invalid('a message is an object');
  if (typeof message.id !== 'string' || message.id === '') throw invalid('message.id must be a non-empty string');
  if (typeof message.type !== 'string' || message.type === '') throw invalid('message.type must be a non-empty string');
  if (!message.body || typeof message.body !== 'object' || Array.isArray(message.body)) throw invalid('message.body must be an object');
  // §Message Headers: `from` is a DID string, `to` an array of DID strings; the envelope reads them.
  if (message.from !== undefined && typeof message.from !== 'string') throw invalid('message.from must be a DID string');
  if (message.to !== undefined && (!Array.isArray(message.to) || !message.to.every((t) => typeof t === 'string'))) throw invalid('message.to must be an array of DID strings');
}

const ENCS = ['A256CBC-HS512', 'A256GCM', 'XC20P'];

/** Packs a plaintext message in the given mode (see the table at the top of this file). */
export async function pack(message: PlainMessage, options: PackOptions, ctx: EnvelopeContext): Promise<PackResult> {
  const engine = engineFor(options?.engine, ctx);
  checkMessage(message);
  const mode = options.mode;
  const to = options.to ?? message.to?.[0];
  const from = options.from ?? message.from;
  const signBy = options.signBy ?? message.from;
  const signs = mode === 'signed' || mode === 'anoncrypt-signed' || mode === 'authcrypt-signed';
  const authcrypts = mode === 'authcrypt' || mode === 'anoncrypt-authcrypt' || mode === 'authcrypt-signed';
  const known = mode === 'plaintext' || mode === 'anoncrypt' || signs || authcrypts;
  if (!known) throw invalid(`unknown envelope mode ${String(mode)}`);
  if (signs) {
    if (!signBy) throw invalid(`${mode} needs a signer: options.signBy or message.from`);
    // DIDComm v2 "Message Signing": the signing key must belong to the `from` DID.
    if (message.from && !sameDid(didOf(signBy), message.from)) throw invalid(`signer ${signBy} is not message.from ${message.from}`);
  }
  if (authcrypts && !from) throw invalid(`${mode} needs a sender: options.from or message.from`);
  if (mode !== 'plaintext' && mode !== 'signed' && !to) throw invalid(`${mode} needs a recipient: options.to or message.to`);
  if (options.encAlgAnon !== undefined && !ENCS.includes(options.encAlgAnon)) throw invalid(`encAlgAnon must be one of ${ENCS.join(', ')}`);
  // Asked for with any other mode, it would be dropped without a word: anoncrypt-authcrypt
  // already hides the sender, and the other modes have no authcrypt layer to hide.
  if (options.protectSender === true && mode !== 'authcrypt-signed') throw invalid(`protectSender applies to authcrypt-signed only, not ${mode}`);
  const plan: PackPlan = {
    mode,
    to,
    from,
    signBy,
    signs,
    authcrypts,
    protect: mode === 'anoncrypt-authcrypt' || (mode === 'authcrypt-signed' && options.protectSender === true),
    forward: options.forward ?? true,
    encAlgAnon: options.encAlgAnon ?? 'XC20P',
  };
  return engine.pack(message, plan, ctx);
}

/**
 * Unpacks any DIDComm message (JWE, JWS or plaintext) and says how it was protected. Input
 * that is not a DIDComm message, of any size, fails with 'didcomm_malformed'.
 */
export async function unpack(packed: string, ctx: EnvelopeContext, options: UnpackOptions = {}): Promise<UnpackResult> {
  const engine = engineFor(options.engine, ctx);
  // Every DIDComm serialisation is a JSON object (DIDComm v2 "Message Formats"): refuse obvious
  // non-messages before any engine sees them.
  if (typeof packed !== 'string' || !/^\s*\{/.test(packed)) {
    throw new IdsyncError('didcomm_malformed', 'unpack: a DIDComm message is a JSON object (JWE, JWS or plaintext JWM)');
  }
  let result = await unpackOnce(engine, packed, ctx, options, options.parsed);
  if (options.unwrapReWrappingForward === false) return result;
  // A forward addressed to us around a message also addressed to us ("re-wrapping" by a
  // mediator, or our own key listed as a routing key): unwrapped here, keeping the inner
  // message's metadata (didcomm-node would merge both layers', so that an authcrypted message
  // looks sender-protected).
  for (let depth = 0; depth < MAX_REWRAP_DEPTH && result.message.type === FORWARD_TYPE; depth++) {
    const inner = await forwardedToUs(result.message, ctx);
    if (!inner) break;
    const next = await unpackOnce(engine, inner, ctx, options);
    result = { message: next.message, metadata: { ...next.metadata, reWrappedInForward: true } };
  }
  return result;
}

const MAX_REWRAP_DEPTH = 4;

/** The forwarded message when it is encrypted to keys we hold, else undefined. */
async function forwardedToUs(forward: PlainMessage, ctx: EnvelopeContext): Promise<string | undefined> {
  const kids = forwardedKids(forward);
  if (!kids || kids.length === 0) return undefined;
  if ((await ctx.secrets.find(kids)).length === 0) return undefined;
  try {
    return parseForward(forward)!.attachment;
  } catch {
    return undefined; // a broken forward is returned as it is, for the router to report
  }
}

async function unpackOnce(engine: Engine, packed: string, ctx: EnvelopeContext, options: UnpackOptions, parsed?: Record<string, unknown>): Promise<UnpackResult> {
  const expectDecryptByAllKeys = options.expectDecryptByAllKeys ?? false;
  const { message, metadata, outer, plaintext } = await engine.unpack(packed, ctx, parsed ? { expectDecryptByAllKeys, parsed } : { expectDecryptByAllKeys });
  if (message.from !== undefined && typeof message.from !== 'string') {
    throw new IdsyncError('didcomm_malformed', 'unpack: message.from must be a DID string');
  }
  // DIDComm v2 "Message Signing": the signing key must be authorised by the `from` DID, and
  // authcrypt's skid likewise ("Sender Authenticated Encryption"; §Message Headers `from`).
  const checks = [
    { kid: metadata.signFrom, rule: 'envelope.from-matches-signer' },
    { kid: metadata.encryptedFromKid, rule: 'envelope.from-matches-sender' },
  ];
  for (const { kid, rule } of options.checkSender === false ? [] : checks) {
    if (kid && message.from && !sameDid(didOf(kid), message.from)) {
      throw new IdsyncError('sender_mismatch', `unpack: key ${kid} does not belong to the sender ${message.from} [${rule}]`, {
        details: { kid, from: message.from, rule },
      });
    }
  }
  const result: UnpackResult = { message, metadata };
  if (plaintext !== undefined) Object.defineProperty(result, 'plaintext', { value: plaintext });
  return outer ? Object.defineProperty(result, 'outer', { value: outer }) : result;
}

/**
 * Wraps a packed message in forwards (DIDComm v2 "Routing Protocol 2.0"), one per routing key, the
 * first one outermost (the first hop); `to` is the final recipient. Each layer is anoncrypted to
 * its routing key.
 */
export async function wrapInForward(
  packed: string,
  options: { to: string; routingKeys: string[]; headers?: Record<string, string>; engine?: EnvelopeEngine },
  ctx: EnvelopeContext,
): Promise<string> {
  const engine = engineFor(options?.engine, ctx);
  if (typeof packed !== 'string' || packed === '') throw invalid('wrapInForward: nothing to wrap');
  if (typeof options?.to !== 'string' || options.to === '') throw invalid('wrapInForward: options.to must be the final recipient DID');
  if (!Array.isArray(options.routingKeys) || options.routingKeys.length === 0 || !options.routingKeys.every((k) => typeof k === 'string')) {
    throw invalid('wrapInForward: options.routingKeys must name at least one key');
  }
  return engine.wrapInForward(packed, { to: options.to, routingKeys: options.routingKeys, headers: options.headers ?? {}, enc: 'XC20P' }, ctx);
}

/**
 * Signs a `from_prior` JWT for DID rotation (DIDComm v2 "DID Rotation"): `sub` is the
 * new DID, `iss` the prior one, signed by a key of `iss` (`issuerKid`, or the first held).
 */
export async function packFromPrior(
  claims: FromPriorClaims,
  issuerKid: string | undefined,
  ctx: EnvelopeContext,
  options: { engine?: EnvelopeEngine } = {},
): Promise<{ jwt: string; issuerKid: string }> {
  return engineFor(options.engine, ctx).packFromPrior(claims, issuerKid, ctx);
}
