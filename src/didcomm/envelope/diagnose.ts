// Opening what the strict unpack refused, by trying the deviant forms agents are known to send, so
// that a checker can say what it found instead of stopping at the first refusal, and then judge the
// message inside. Never used to accept a message: the router keeps the strict unpack.
//
// The variants tried, each reported as a deviation naming the rule it breaks:
// - ECDH-1PU with the KDF of draft 03, which had no cctag: draft 04 §2.3 appends the JWE tag to
//   SuppPubInfo in key wrapping mode (Veramo 7's authcrypt derives without it:
//   https://github.com/decentralized-identity/veramo/issues/1375);
// - ECDH-1PU with a content encryption outside AES_CBC_HMAC_SHA2 (draft 04 §2.1), e.g. A256GCM;
// - no apu and/or no apv: the KDF then runs with empty PartyUInfo / PartyVInfo (draft 04 §2.3);
// - the sender named by skid alone.
import { IdsyncError, isIdsyncError } from '../../errors.js';
import { MEDIA_TYPES, type EnvelopeContext, type UnpackMetadata } from '../types.js';
import { CONTENT_CIPHERS, isContentEnc } from './jwe/content.js';
import { deriveKek, partyInfo, type KeyWrapAlg } from './jwe/kdf.js';
import { unwrapKey } from './jwe/key-wrap.js';
import { parseJwe, type ParsedJwe } from './jwe/parse.js';
import { publicKeyOf, type EngineKey } from './key-objects.js';
import { didAndFragment, methodKey, methodOf, NativeCall } from './native-call.js';
import { envelopeMode } from './mode.js';
import { isObject } from './refusal.js';
import { unpack } from './index.js';

/** Something found that the strict unpack refuses or the spec forbids, and the rule it breaks. */
export interface Deviation {
  rule: string;
  finding: string;
}

export interface LenientOpen {
  /** The innermost message as opened (a plaintext object), when some variant opened every layer. */
  message?: Record<string, unknown>;
  metadata?: UnpackMetadata;
  /** What was found on the way, each with the rule it breaks. */
  deviations: Deviation[];
  /** Why it did not open, when it did not. */
  failure?: string;
}

const AUTHCRYPT: KeyWrapAlg = 'ECDH-1PU+A256KW';
const ANONCRYPT: KeyWrapAlg = 'ECDH-ES+A256KW';

function b64(value: unknown): Buffer {
  return typeof value === 'string' ? Buffer.from(value.replace(/=+$/, ''), 'base64url') : Buffer.alloc(0);
}

/** The content key of one recipient, with the KDF given the JWE tag (draft 04) or not (draft 03). */
function contentKey(jwe: ParsedJwe, i: { alg: KeyWrapAlg; own: EngineKey; epk: EngineKey; sender?: EngineKey; kid: string; withTag: boolean }): Buffer | undefined {
  const entry = jwe.recipients.find((r) => r.kid === i.kid);
  if (!entry) return undefined;
  try {
    const kek = deriveKek({
      alg: i.alg,
      own: i.own,
      peer: i.epk,
      staticPair: i.sender ? { own: i.own, peer: i.sender } : undefined,
      info: partyInfo(i.alg, b64(jwe.header.apu), b64(jwe.header.apv)),
      tag: i.withTag ? jwe.tag : undefined,
    });
    return unwrapKey(kek, b64(entry.encryptedKey));
  } catch {
    return undefined;
  }
}

function decrypt(jwe: ParsedJwe, cek: Buffer): Buffer | undefined {
  const enc = jwe.header.enc;
  if (!isContentEnc(enc)) return undefined;
  const cipher = CONTENT_CIPHERS[enc];
  if (cek.length !== cipher.keyBytes || jwe.iv.length !== cipher.ivBytes) return undefined;
  return cipher.decrypt(cek, jwe.iv, jwe.ciphertext, jwe.tag, jwe.aad);
}

/** What a JWE's protected header shows before any key is used (nothing for what is not a JWE of DIDComm's algs). */
export function headerDeviations(jwe: Pick<ParsedJwe, 'header'>, alg: unknown = jwe.header.alg): Deviation[] {
  if (alg !== AUTHCRYPT && alg !== ANONCRYPT) return [];
  const h = jwe.header;
  const out: Deviation[] = [];
  if (alg === AUTHCRYPT && h.enc !== 'A256CBC-HS512') out.push({ rule: 'envelope.authcrypt-enc', finding: `ECDH-1PU with ${String(h.enc)} (authcrypt requires the AES-CBC-HMAC family)` });
  if (alg === ANONCRYPT) {
    if (h.apv === undefined) out.push({ rule: 'envelope.anoncrypt-no-apv', finding: 'anoncrypt without apv' });
    return out;
  }
  const missing = [h.apu === undefined ? 'apu' : '', h.apv === undefined ? 'apv' : ''].filter(Boolean);
  if (missing.length) out.push({ rule: missing[0] === 'apu' ? 'envelope.authcrypt-apu' : 'envelope.jwe-apv', finding: `no ${missing.join('/')}` });
  return out;
}

async function openJwe(value: Record<string, unknown>, call: NativeCall, md: UnpackMetadata, deviations: Deviation[]): Promise<Buffer | string> {
  let jwe: ParsedJwe;
  try {
    jwe = parseJwe(value);
  } catch (err) {
    return `the JWE cannot be read: ${(err as Error).message}`;
  }
  const given = jwe.header.alg;
  if (given !== AUTHCRYPT && given !== ANONCRYPT) return `alg ${String(given)} is not ECDH-1PU+A256KW or ECDH-ES+A256KW`;
  const alg: KeyWrapAlg = given === AUTHCRYPT ? AUTHCRYPT : ANONCRYPT;
  deviations.push(...headerDeviations(jwe, alg));
  const kids = jwe.recipients.map((r) => r.kid);
  const held = await call.heldKids(kids);
  if (held.length === 0) return `no key is held for any recipient (${kids.join(', ')})`;
  const own = call.heldKey(held[0]!);
  let epk: EngineKey;
  try {
    epk = publicKeyOf(jwe.header.epk as Record<string, unknown>, 'the epk', 'envelope.jwe-epk-public', false);
  } catch (err) {
    return `the epk is not a usable public key: ${(err as Error).message}`;
  }
  let sender: EngineKey | undefined;
  if (alg === AUTHCRYPT) {
    const skid = typeof jwe.header.skid === 'string' ? jwe.header.skid : b64(jwe.header.apu).toString('utf8');
    const { did, hasFragment } = didAndFragment(skid);
    if (!hasFragment) return `no sender key id (skid or apu): ${skid || 'none'}`;
    const doc = await call.doc(did);
    const vm = doc ? methodOf(doc, skid) : undefined;
    if (!doc || !vm) return `the sender key ${skid} does not resolve`;
    if (!doc.keyAgreement.includes(skid)) deviations.push({ rule: 'envelope.jwe-sender-key', finding: `the sender key ${skid} is not in the keyAgreement section of ${did}` });
    try {
      sender = methodKey(vm, 'envelope.jwe-sender-key');
    } catch (err) {
      return `the sender key ${skid} is not usable: ${(err as Error).message}`;
    }
    Object.assign(md, { authenticated: true, encryptedFromKid: skid, encAlgAuth: `${alg}/${String(jwe.header.enc)}` });
  } else {
    Object.assign(md, { anonymousSender: true, encAlgAnon: `${alg}/${String(jwe.header.enc)}` });
  }
  md.encrypted = true;
  md.encryptedToKids ??= kids;
  const variants = alg === AUTHCRYPT ? [true, false] : [false];
  for (const withTag of variants) {
    const cek = contentKey(jwe, { alg, own: own.key, epk, sender, kid: own.kid, withTag });
    const plain = cek && decrypt(jwe, cek);
    if (!plain) continue;
    if (alg === AUTHCRYPT && !withTag) deviations.push({ rule: 'envelope.authcrypt-kdf', finding: 'opens only with the draft-03 ECDH-1PU KDF (no tag in the KDF)' });
    return plain;
  }
  return alg === AUTHCRYPT ? 'no variant opens it: neither the draft 04 KDF (with the tag) nor the draft 03 one (without)' : 'the content key does not unwrap';
}

/**
 * Opens `packed` layer by layer as leniently as the known deviant forms need, collecting what it
 * finds. A signed layer inside is left to the caller (its payload is readable without a key).
 */
export async function openLeniently(packed: string, ctx: EnvelopeContext): Promise<LenientOpen> {
  const call = new NativeCall(ctx);
  const md: UnpackMetadata = { mode: 'plaintext', encrypted: false, authenticated: false, nonRepudiation: false, anonymousSender: false, reWrappedInForward: false };
  const deviations: Deviation[] = [];
  let value: unknown;
  try {
    value = JSON.parse(packed);
  } catch {
    return { deviations, failure: 'not JSON' };
  }
  for (let depth = 0; depth < 3 && isObject(value) && 'ciphertext' in value; depth++) {
    let opened: Buffer | string;
    try {
      opened = await openJwe(value, call, md, deviations);
    } catch (err) {
      return { deviations, failure: err instanceof IdsyncError ? err.message : String(err) };
    }
    if (typeof opened === 'string') return { deviations, failure: opened };
    try {
      value = JSON.parse(opened.toString('utf8'));
    } catch {
      return { deviations, failure: 'the decrypted payload is not JSON' };
    }
  }
  if (!isObject(value)) return { deviations, failure: 'the innermost layer is not a JSON object' };
  let message: Record<string, unknown> = value;
  if ('payload' in message) {
    // A signed layer: verified by the strict unpack; if that refuses, its payload is still readable.
    try {
      const signed = await unpack(JSON.stringify(message), ctx, { checkSender: false });
      Object.assign(md, { nonRepudiation: true, signFrom: signed.metadata.signFrom, signAlg: signed.metadata.signAlg });
      message = signed.message as Record<string, unknown>;
    } catch (err) {
      // A refusal naming a rule is a deviation; one that names none (the signer's DID did not
      // resolve) says nothing about the message.
      const rule = isIdsyncError(err) ? (err.details as { rule?: unknown } | undefined)?.rule : undefined;
      if (typeof rule === 'string') deviations.push({ rule, finding: `the signed layer does not verify: ${(err as Error).message}` });
      let payload: unknown;
      try {
        payload = JSON.parse(b64(message.payload).toString('utf8'));
      } catch {
        return { deviations, failure: 'the signed payload is not JSON' };
      }
      if (!isObject(payload)) return { deviations, failure: 'the signed payload is not a JSON object' };
      message = payload;
    }
  }
  md.mode = envelopeMode(md);
  if (message.typ === undefined) message.typ = MEDIA_TYPES.plaintext;
  return { message, metadata: md, deviations };
}
