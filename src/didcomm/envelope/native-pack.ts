// Packing with the native engine (DIDComm v2 §Message Formats): plaintext → (signed) →
// (authcrypt | anoncrypt) → (anoncrypt again with protect_sender) → (forwards), the same layers,
// keys and bytes-on-the-wire layout as didcomm-node (see the table in index.ts).
import { MEDIA_TYPES, type PackResult, type PlainMessage } from '../types.js';
import { sameDid } from './adapters.js';
import type { ContentEnc } from './jwe/content.js';
import { serializePlaintext } from './jwm.js';
import { algOfCurve } from './jws/algorithms.js';
import { signJws } from './jws/sign.js';
import { checkFromPriorClaims, verifyFromPrior } from './from-prior.js';
import { knownNoForward, wrapIfNeeded } from './forward.js';
import { didAndFragment, isDid, type NativeCall } from './native-call.js';
import { anoncrypt, authcrypt } from './native-encrypt.js';
import { invalidArgument, malformed, notResolved, secretNotFound, unsupported } from './refusal.js';
import type { PackPlan } from './engine.js';

/** The plaintext as it goes on the wire; a from_prior is verified first (§DID Rotation). */
async function plaintextWithFromPrior(message: PlainMessage, call: NativeCall): Promise<string> {
  if (typeof message.from_prior !== 'string') throw malformed('from_prior.jwt', 'from_prior must be a JWT');
  const { claims, issuerKid } = await verifyFromPrior(message.from_prior, call);
  checkFromPriorClaims(claims, issuerKid);
  if (message.from !== undefined && claims.sub !== message.from) throw malformed('from_prior.sub', 'from_prior sub is not the message from');
  return serializePlaintext(message);
}

/** §Message Signing: the first held authentication key of the signer (or the one named). */
async function sign(plaintext: string, signBy: string, call: NativeCall): Promise<{ jws: string; kid: string }> {
  if (!isDid(signBy)) throw invalidArgument(`signer ${signBy} is not a DID or DID URL`);
  const { did, hasFragment } = didAndFragment(signBy);
  const doc = await call.requireDoc(did, 'signer');
  if (hasFragment && !doc.authentication.includes(signBy)) throw notResolved(`${signBy} is not an authentication key of ${did}`);
  const [kid] = await call.heldKids(hasFragment ? [signBy] : doc.authentication);
  if (!kid) throw secretNotFound(`no secret held for an authentication key of ${did}`);
  const key = call.heldKey(kid);
  const alg = algOfCurve(key.curve);
  if (!alg) throw unsupported('envelope.jws-alg', `${kid} is a ${key.curve} key; DIDComm v2 signs with EdDSA, ES256 or ES256K`);
  return { jws: signJws(plaintext, { kid, alg, key: key.key }), kid };
}

/** The first DIDComm service endpoint of the recipient, when it names one (advice for the caller). */
async function endpointOf(to: string | undefined, call: NativeCall): Promise<string | undefined> {
  if (!to) return undefined;
  try {
    return (await call.doc(didAndFragment(to).did))?.service[0]?.serviceEndpoint.uri;
  } catch {
    return undefined;
  }
}

/** endpointOf() without waiting, when this call has already loaded the recipient's document. */
function knownEndpointOf(to: string, call: NativeCall): string | undefined {
  return call.knownDoc(didAndFragment(to).did)?.service[0]?.serviceEndpoint.uri;
}

export async function nativePack(message: PlainMessage, plan: PackPlan, call: NativeCall): Promise<PackResult> {
  const { mode, to, from, signBy } = plan;
  const plaintext = message.from_prior === undefined ? serializePlaintext(message) : await plaintextWithFromPrior(message, call);
  let packed = plaintext;
  if (mode === 'plaintext') {
    const result: PackResult = { packed, mode, mediaType: MEDIA_TYPES.plaintext, toKids: [], plaintext };
    const endpoint = await endpointOf(to, call);
    if (endpoint) result.serviceEndpoint = endpoint;
    return result;
  }
  let signByKid: string | undefined;
  if (plan.signs) ({ jws: packed, kid: signByKid } = await sign(packed, signBy!, call));
  if (mode === 'signed') {
    const result: PackResult = { packed, mode, mediaType: MEDIA_TYPES.signed, toKids: [], plaintext };
    if (signByKid) result.signByKid = signByKid;
    const endpoint = await endpointOf(to, call);
    if (endpoint) result.serviceEndpoint = endpoint;
    return result;
  }
  // The checks didcomm-node makes of an encrypted pack's arguments.
  if (!isDid(to!)) throw invalidArgument(`recipient ${to} is not a DID or DID URL`);
  if (from !== undefined && !isDid(from)) throw invalidArgument(`sender ${from} is not a DID or DID URL`);
  const toDid = didAndFragment(to!).did;
  if (Array.isArray(message.to) && !message.to.some((t) => sameDid(t, toDid))) throw invalidArgument(`message.to does not contain the recipient ${toDid}`);
  if (plan.authcrypts && message.from !== undefined && !sameDid(didAndFragment(from!).did, message.from)) {
    throw invalidArgument(`message.from ${message.from} is not the DID of the sender ${from}`);
  }
  const enc: ContentEnc = plan.encAlgAnon;
  const body = Buffer.from(packed, 'utf8');
  let toKids: string[];
  let fromKid: string | undefined;
  if (plan.authcrypts) ({ packed, fromKid, toKids } = await authcrypt(body, { to: to!, from: from!, protect: plan.protect, encAnon: enc }, call));
  else ({ packed, toKids } = await anoncrypt(body, to!, enc, call));
  const result: PackResult = { packed, mode, mediaType: MEDIA_TYPES.encrypted, toKids, plaintext };
  // Encrypting has loaded the recipient's document: when it asks for no forwards, nothing more is awaited.
  const forwarded = plan.forward && !knownNoForward(to!, call) ? await wrapIfNeeded(packed, to!, enc, call) : undefined;
  if (forwarded) result.packed = forwarded.packed;
  const endpoint = forwarded?.serviceEndpoint ?? (call.knownDoc(didAndFragment(to!).did) ? knownEndpointOf(to!, call) : await endpointOf(to, call));
  if (endpoint) result.serviceEndpoint = endpoint;
  if (fromKid) result.fromKid = fromKid;
  if (signByKid) result.signByKid = signByKid;
  return result;
}
