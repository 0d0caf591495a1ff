// Unpacking with the native engine: liberal in the forms it reads (a flattened JWS or JWE, a kid
// only in the protected header, anoncrypt without apv, P-384 and P-521), each recorded as a note;
// strict where DIDComm v2 says MUST, refusing with the rule broken (refusal.ts). Layers nest as
// DIDComm v2 §Message Formats allows: anoncrypt ⊃ authcrypt ⊃ signed ⊃ plaintext, each optional.
import { MEDIA_TYPES, type EnvelopeNote, type UnpackMetadata, type UnpackResult } from '../types.js';
import { sameDid } from './adapters.js';
import { verifyFromPrior } from './from-prior.js';
import { isContentEnc, type ContentEnc } from './jwe/content.js';
import { decryptJwe } from './jwe/decrypt.js';
import { recipientsDigest } from './jwe/encrypt.js';
import type { KeyWrapAlg } from './jwe/kdf.js';
import { parseJwe, type ParsedJwe } from './jwe/parse.js';
import { checkPlaintext } from './jwm.js';
import { CURVE_OF_ALG, verifyBytes } from './jws/algorithms.js';
import { parseJws } from './jws/parse.js';
import { signingInput } from './jws/sign.js';
import { curveOf, isAgreementCurve, publicKeyOf, type AgreementCurve } from './key-objects.js';
import { boundedMemo } from './memo.js';
import { envelopeMode } from './mode.js';
import { didAndFragment, methodCurve, methodKey, methodOf, type NativeCall } from './native-call.js';
import { b64Member, isObject, malformed, notResolved, parseJsonObject, secretNotFound, unsupported } from './refusal.js';

type Layer = 'anoncrypt' | 'authcrypt' | 'signed' | 'plaintext';
const RANK: Record<Layer, number> = { anoncrypt: 0, authcrypt: 1, signed: 2, plaintext: 3 };

const utf8 = new TextDecoder('utf-8', { fatal: true });

interface State {
  md: UnpackMetadata;
  notes: EnvelopeNote[];
  call: NativeCall;
  expectAll: boolean;
}

function text(bytes: Buffer, what: string, rule: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw malformed(rule, `${what} is not UTF-8`);
  }
}

// Both memoised for the strings of the conversations at hand (bounded): the digest of a recipient
// list as base64url, and a sender kid's bytes and base64url (its apu).
const digestB64 = (() => {
  const seen = new WeakMap<Buffer, string>();
  return (digest: Buffer): string => {
    let b64 = seen.get(digest);
    if (b64 === undefined) seen.set(digest, (b64 = digest.toString('base64url')));
    return b64;
  };
})();
const kidBytes = boundedMemo(256, (kid: string) => {
  const bytes = Buffer.from(kid, 'utf8');
  // A kid with a lone surrogate does not survive UTF-8: it never takes the short way.
  return { bytes, b64: bytes.toString('utf8') === kid ? bytes.toString('base64url') : undefined };
});

function layerOf(v: Record<string, unknown>): Layer | 'jwe' {
  if ('ciphertext' in v) return 'jwe';
  if ('payload' in v && ('signatures' in v || 'signature' in v)) return 'signed';
  if ('id' in v || 'type' in v || 'body' in v) return 'plaintext';
  throw malformed('envelope.shape', 'not a JWE, a JWS or a plaintext message');
}

/** What both kinds of JWE share: enc, epk, recipients of one DID, apv. */
function jweBasics(jwe: ParsedJwe, alg: KeyWrapAlg, s: State): { enc: ContentEnc; curve: AgreementCurve; kids: string[]; apv: Buffer } {
  const h = jwe.header;
  // §Curves and Content Encryption Algorithms; 1PU-04 §2.1: key wrapping with 1PU requires AES-CBC-HMAC.
  const encs: string[] = alg === 'ECDH-1PU+A256KW' ? ['A256CBC-HS512'] : ['A256CBC-HS512', 'A256GCM', 'XC20P'];
  if (!isContentEnc(h.enc) || !encs.includes(h.enc)) {
    throw unsupported(alg === 'ECDH-1PU+A256KW' ? 'envelope.authcrypt-enc' : 'envelope.jwe-enc', `${alg} with enc ${String(h.enc)} is outside DIDComm v2's tables (${encs.join(', ')})`);
  }
  if (!isObject(h.epk)) throw malformed('envelope.jwe-epk', 'the protected header has no epk');
  if ('d' in h.epk) throw malformed('envelope.jwe-epk-public', 'the epk carries a private key');
  const curve = curveOf(h.epk);
  if (!isAgreementCurve(curve)) throw unsupported('envelope.jwe-epk-crv', `epk kty ${String(h.epk.kty)} crv ${String(h.epk.crv)} is outside DIDComm v2's key agreement curves (X25519, P-256, P-384, P-521)`);
  if (curve === 'P-384' || curve === 'P-521') s.notes.push({ rule: 'envelope.jwe-curve', detail: `${alg} on ${curve} accepted (DIDComm v2 §Curves; agents that agree keys only on X25519 and P-256 cannot read it)` });
  const kids = jwe.recipients.map((r) => r.kid);
  // §Message Encryption: "A message being sent to multiple DIDs MUST be encrypted for each DID independently."
  const { did } = didAndFragment(kids[0]!);
  const stray = kids.filter((k) => !didAndFragment(k).hasFragment || didAndFragment(k).did !== did);
  if (stray.length) throw malformed('envelope.jwe-recipients-one-did', `recipient kids must be key ids of one DID: ${stray.join(', ')}`);
  const digest = recipientsDigest(kids);
  let apv: Buffer = Buffer.alloc(0);
  if (h.apv === digestB64(digest)) {
    apv = digest; // the usual case, compared as text: no decoding
  } else if (h.apv === undefined) {
    // DIDComm v2.1 §ECDH-ES key wrapping: anoncrypt MUST set apv too. It is read all the same
    // (RFC 7518 §4.6.1 makes apv optional for ECDH-ES, so the KDF is defined without it) and
    // recorded as broken; authcrypt needs apv to bind the recipients to the sender's key.
    if (alg === 'ECDH-1PU+A256KW') throw malformed('envelope.jwe-apv', 'authcrypt requires apv = base64url(SHA-256 of the sorted recipient kids joined with ".")');
    s.notes.push({ rule: 'envelope.anoncrypt-no-apv', detail: 'an anoncrypted JWE without apv, opened all the same', broken: true });
  } else {
    apv = b64Member(h.apv, 'apv', 'envelope.jwe-apv');
    if (!apv.equals(digest)) {
      if (alg === 'ECDH-1PU+A256KW') throw malformed('envelope.jwe-apv', 'apv is not base64url(SHA-256 of the sorted recipient kids joined with "."): the recipient list was changed');
      s.notes.push({ rule: 'envelope.anoncrypt-apv-mismatch', detail: 'the anoncrypt apv is not the digest of the recipient kids; opened all the same (ECDH-ES only needs both sides to feed the KDF the same apv)', broken: true });
    }
  }
  return { enc: h.enc, curve, kids, apv };
}

/** Decrypts with the first of our keys the JWE names (or with each, when asked), after checking their curves. */
async function decryptForUs(jwe: ParsedJwe, i: { alg: KeyWrapAlg; enc: ContentEnc; curve: AgreementCurve; kids: string[]; apu: Buffer; apv: Buffer; sender?: ReturnType<typeof publicKeyOf> }, s: State): Promise<Buffer> {
  const held = await s.call.heldKids(i.kids);
  if (held.length === 0) throw secretNotFound(`no secret held for any recipient of the message (${i.kids.join(', ')})`);
  const keys = held.map((k) => s.call.heldKey(k));
  const odd = keys.find((k) => k.curve !== i.curve);
  // One epk serves all recipients, so they must all be on its curve.
  if (odd) throw malformed('envelope.jwe-recipient-curve', `recipient ${odd.kid} is a ${odd.curve} key but the epk is ${i.curve}: mixed curves among recipients`);
  // Each message has its own epk: imported, not kept.
  const epk = publicKeyOf(jwe.header.epk as Record<string, unknown>, 'the epk', 'envelope.jwe-epk-public', false);
  let out: Buffer | undefined;
  for (const k of s.expectAll ? keys : keys.slice(0, 1)) {
    out = decryptJwe(jwe, { alg: i.alg, enc: i.enc, epk, apu: i.apu, apv: i.apv, recipient: { kid: k.kid, key: k.key }, sender: i.sender });
  }
  return out!;
}

async function openAnoncrypt(jwe: ParsedJwe, s: State): Promise<Buffer> {
  const alg = 'ECDH-ES+A256KW';
  const { enc, curve, kids, apv } = jweBasics(jwe, alg, s);
  const apu = jwe.header.apu === undefined ? Buffer.alloc(0) : b64Member(jwe.header.apu, 'apu', 'envelope.jwe-apu');
  Object.assign(s.md, { encrypted: true, anonymousSender: true, encryptedToKids: kids, encAlgAnon: `${alg}/${enc}` });
  return decryptForUs(jwe, { alg, enc, curve, kids, apu, apv }, s);
}

async function openAuthcrypt(jwe: ParsedJwe, s: State): Promise<Buffer> {
  const alg = 'ECDH-1PU+A256KW';
  const { enc, curve, kids, apv } = jweBasics(jwe, alg, s);
  const { skid, apu: apuB64 } = jwe.header;
  // §ECDH-1PU key wrapping: apu = base64url(skid); without skid the sender is read from apu.
  if (apuB64 === undefined) throw malformed('envelope.authcrypt-apu', 'authcrypt requires apu = base64url(sender key id)');
  // The usual case, apu spelled as senders write it (base64url of skid), is compared as text.
  const known = typeof skid === 'string' && apuB64 === kidBytes(skid).b64 ? kidBytes(skid) : undefined;
  const apu = known?.bytes ?? b64Member(apuB64, 'apu', 'envelope.authcrypt-apu');
  const senderKid = known ? (skid as string) : text(apu, 'apu', 'envelope.authcrypt-apu');
  if (skid !== undefined && skid !== senderKid) throw malformed('envelope.authcrypt-apu', `skid ${String(skid)} and apu (${senderKid}) name different sender keys`);
  if (skid === undefined) s.notes.push({ rule: 'envelope.authcrypt-skid-from-apu', detail: 'authcrypt without skid accepted: the sender key id was read from apu' });
  const { did, hasFragment } = didAndFragment(senderKid);
  if (!hasFragment) throw malformed('envelope.authcrypt-skid', `the sender key id ${senderKid} is not a DID URL`);
  const doc = await s.call.requireDoc(did, 'sender');
  const vm = doc.keyAgreement.includes(senderKid) ? methodOf(doc, senderKid) : undefined;
  if (!vm) throw notResolved(`the sender key ${senderKid} is not a keyAgreement key of ${did}`);
  const senderCurve = methodCurve(vm);
  if (senderCurve !== curve) throw malformed('envelope.jwe-epk-curve', `the sender key ${senderKid} is ${String(senderCurve)} but the epk is ${curve}: mixed curves`);
  s.md.encryptedToKids ??= kids;
  Object.assign(s.md, { authenticated: true, encrypted: true, encryptedFromKid: senderKid, encAlgAuth: `${alg}/${enc}` });
  return decryptForUs(jwe, { alg, enc, curve, kids, apu, apv, sender: methodKey(vm, 'envelope.jwe-sender-key') }, s);
}

/** The signed payload, verified, and the text it was parsed from. */
async function openSigned(value: Record<string, unknown>, s: State): Promise<{ value: Record<string, unknown>; text: string }> {
  const jws = parseJws(value);
  s.notes.push(...jws.notes);
  const payload = text(jws.payload, 'the signed payload', 'envelope.jws-payload');
  const inner = parseJsonObject(payload, 'the signed payload', 'envelope.jws-payload');
  // §Message Signing: only the sender's signature counts; with several, verify the one of `from`.
  let sig = jws.signatures[0]!;
  if (jws.signatures.length > 1) {
    sig = jws.signatures.find((x) => typeof inner.from === 'string' && sameDid(didAndFragment(x.kid).did, inner.from)) ?? sig;
    s.notes.push({ rule: 'envelope.jws-several-signatures', detail: `${jws.signatures.length} signatures; the sender's (${sig.kid}) was verified` });
  }
  const { did, hasFragment } = didAndFragment(sig.kid);
  if (!hasFragment) throw malformed('envelope.jws-kid', `the signing kid ${sig.kid} is not a DID URL`);
  const doc = await s.call.requireDoc(did, 'signer');
  // §Message Signing: the key must be in the authentication section of the signer's document.
  const vm = doc.authentication.includes(sig.kid) ? methodOf(doc, sig.kid) : undefined;
  if (!vm) throw notResolved(`the signing key ${sig.kid} is not an authentication key of ${did}`);
  const curve = methodCurve(vm);
  if (curve !== CURVE_OF_ALG[sig.alg]) throw malformed('envelope.jws-alg-key', `alg ${sig.alg} does not fit the ${String(curve)} key ${sig.kid}`);
  if (!verifyBytes(sig.alg, methodKey(vm, 'envelope.jws-kid'), signingInput(sig.protectedB64, jws.payloadB64), sig.signature)) {
    throw malformed('envelope.jws-signature', `the signature of ${sig.kid} does not verify`);
  }
  Object.assign(s.md, { authenticated: true, nonRepudiation: true, signFrom: sig.kid, signAlg: sig.alg });
  return { value: inner, text: payload };
}

export async function nativeUnpack(packed: string, call: NativeCall, o: { expectDecryptByAllKeys: boolean; parsed?: Record<string, unknown> }): Promise<UnpackResult> {
  const md: UnpackMetadata = { mode: 'plaintext', encrypted: false, authenticated: false, nonRepudiation: false, anonymousSender: false, reWrappedInForward: false };
  const s: State = { md, notes: [], call, expectAll: o.expectDecryptByAllKeys };
  // A transport that checked the message parsed it already (depth and object bounds as here).
  let value = o.parsed ?? parseJsonObject(packed, 'the message', 'envelope.json');
  // The text the message is parsed from, while the message is exactly that text's value.
  let plaintext: string | undefined = packed;
  // Nothing below changes a JWE or JWS object (a plaintext one becomes the message).
  const opened = layerOf(value) === 'plaintext' ? undefined : value;
  let next = 0;
  let outer: Layer | undefined;
  const seen: Layer[] = [];
  for (;;) {
    const kind = layerOf(value);
    let layer: Layer = kind === 'jwe' ? 'anoncrypt' : kind;
    let jwe: ParsedJwe | undefined;
    if (kind === 'jwe') {
      jwe = parseJwe(value);
      s.notes.push(...jwe.notes);
      const alg = jwe.header.alg;
      if (alg === 'ECDH-1PU+A256KW') layer = 'authcrypt';
      else if (alg !== 'ECDH-ES+A256KW') throw unsupported('envelope.jwe-alg', `alg ${String(alg)} is not ECDH-ES+A256KW or ECDH-1PU+A256KW`);
    }
    // §Message Formats: anoncrypt(authcrypt(signed(plaintext))), any layer left out, none repeated.
    if (RANK[layer] < next) throw malformed('envelope.nesting', `${layer === 'plaintext' ? 'a plaintext' : layer} inside ${outer}: DIDComm nests anoncrypt ⊃ authcrypt ⊃ signed ⊃ plaintext`);
    // §IANA Media Types: "envelope combinations other than the ones above MUST NOT be used. In
    // particular, it makes no sense to use anoncrypt(authcrypt(sign(plaintext)))". The sender broke
    // that; nothing forbids reading it, so it is read and the failed rule recorded. (Appendix C.3's
    // vector packs exactly this combination: the spec contradicts itself.)
    if (layer === 'signed' && outer === 'authcrypt' && seen[0] === 'anoncrypt') {
      s.notes.push({ rule: 'envelope.nesting-protected-signed', detail: 'anoncrypt(authcrypt(sign(plaintext))), read all the same: §IANA Media Types says envelope combinations outside its table MUST NOT be used and names this one ("use anoncrypt(sign(plaintext)) instead"); Appendix C.3\'s vector packs it nonetheless', broken: true });
    }
    next = RANK[layer] + 1;
    outer = layer;
    seen.push(layer);
    if (layer === 'plaintext') break;
    if (layer === 'signed') ({ value, text: plaintext } = await openSigned(value, s));
    else {
      const bytes = layer === 'anoncrypt' ? await openAnoncrypt(jwe!, s) : await openAuthcrypt(jwe!, s);
      plaintext = text(bytes, 'the decrypted payload', 'envelope.jwe-payload');
      value = parseJsonObject(plaintext, 'the decrypted payload', 'envelope.jwe-payload');
    }
  }
  // DIDComm v2.1 §Message Headers: body is OPTIONAL, "allowed ... to not exist when receiving"; a
  // missing one is read as the empty object handlers expect, and noted for the conformance log.
  if (!('body' in value)) {
    plaintext = undefined;
    value.body = {};
    s.notes.push({ rule: 'plaintext.body-present', detail: 'the message has no body: read as {}', broken: true });
  }
  const message = checkPlaintext(value);
  // didcomm-node reports the default typ of a plaintext that has none; so do we.
  if (message.typ === undefined) {
    plaintext = undefined;
    message.typ = MEDIA_TYPES.plaintext;
  }
  if (message.from_prior !== undefined) {
    const { claims, issuerKid } = await verifyFromPrior(message.from_prior, call);
    md.fromPrior = claims as UnpackMetadata['fromPrior'];
    md.fromPriorIssuerKid = issuerKid;
  }
  md.mode = envelopeMode(md);
  if (s.notes.length) md.notes = s.notes;
  const result: UnpackResult = { message, metadata: md };
  if (plaintext !== undefined) Object.defineProperty(result, 'plaintext', { value: plaintext });
  return opened ? Object.defineProperty(result, 'outer', { value: opened }) : result;
}
