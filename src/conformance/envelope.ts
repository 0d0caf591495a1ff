// Envelope rules: the outer JOSE structure against its media type (DIDComm v2 §Message Types,
// §Message Encryption, §Message Signing), and sender authentication: the plaintext `from`
// must be the DID whose key authcrypted or signed it (§Message Headers `from`,
// §Sender Authenticated Encryption, §Message Signing).
import { didOf, sameDid } from '../didcomm/message.js';
import { MEDIA_TYPES, type EnvelopeMode } from '../didcomm/types.js';
import { b64uDecodeText, b64uEncode, sha256 } from '../encoding.js';
import { KEY_ID, isPlainObject, sameMediaType } from './plaintext.js';
import { check, fail, note, pass, type ConformanceResult, type MessageRule } from './types.js';

const L = 'envelope' as const;

const AUTHCRYPT_ALG = 'ECDH-1PU+A256KW';
const ANONCRYPT_ALG = 'ECDH-ES+A256KW';
// §Curves and Content Encryption Algorithms.
const AUTHCRYPT_ENC = ['A256CBC-HS512'];
const ANONCRYPT_ENC = ['A256CBC-HS512', 'A256GCM', 'XC20P'];
// §Message Signing: algorithms for JWS.
const SIGN_ALGS = ['EdDSA', 'ES256', 'ES256K'];

export type EnvelopeShape = 'encrypted' | 'signed' | 'plaintext' | 'unknown';

function decodeHeader(protectedB64: unknown): Record<string, unknown> | null {
  if (typeof protectedB64 !== 'string') return null;
  try {
    const h = JSON.parse(b64uDecodeText(protectedB64));
    return isPlainObject(h) ? h : null;
  } catch {
    return null;
  }
}

/** What kind of JSON structure a packed message is, by its members. */
export function envelopeShape(value: unknown): EnvelopeShape {
  if (!isPlainObject(value)) return 'unknown';
  if ('ciphertext' in value && 'protected' in value) return 'encrypted';
  // RFC 7515 §7.2: General (signatures) or Flattened (signature) JSON serialization.
  if ('payload' in value && ('signatures' in value || 'signature' in value)) return 'signed';
  if ('id' in value && 'type' in value) return 'plaintext';
  return 'unknown';
}

function jweRules(jwe: Record<string, unknown>): ConformanceResult[] {
  const out: ConformanceResult[] = [];
  const h = decodeHeader(jwe.protected);
  if (!h) return [fail(L, 'envelope.jwe-protected', 'the JWE protected header is not base64url JSON')];
  // §DIDComm Encrypted Message: typ is set in the JWE protected header.
  out.push(check(L, 'envelope.typ', sameMediaType(h.typ, MEDIA_TYPES.encrypted), `JWE typ must be ${MEDIA_TYPES.encrypted}, got ${String(h.typ)}`));
  for (const k of ['iv', 'tag', 'ciphertext']) {
    out.push(check(L, `envelope.jwe-${k}`, typeof jwe[k] === 'string', `JWE ${k} is required`));
  }
  // RFC 7516 §7.2.2: a flattened JWE is one recipient whose members sit at the top level.
  const recipients = jwe.recipients === undefined && 'encrypted_key' in jwe ? [{ header: jwe.header, encrypted_key: jwe.encrypted_key }] : jwe.recipients;
  const kids: string[] = [];
  if (!Array.isArray(recipients) || recipients.length === 0) {
    out.push(fail(L, 'envelope.jwe-recipients', 'JWE recipients must be a non-empty array (general JSON serialization)'));
  } else {
    const bad: number[] = [];
    recipients.forEach((r: unknown, i) => {
      const kid = isPlainObject(r) && isPlainObject(r.header) ? r.header.kid : undefined;
      if (typeof kid === 'string' && KEY_ID.test(kid) && typeof (r as Record<string, unknown>).encrypted_key === 'string') kids.push(kid);
      else bad.push(i);
    });
    // §Key IDs: each recipient kid is a DID URL naming a keyAgreement key.
    out.push(check(L, 'envelope.jwe-recipient-kid', bad.length === 0, `recipients ${bad.join(', ')} lack a DID URL kid or encrypted_key`));
  }
  out.push(check(L, 'envelope.jwe-epk', isPlainObject(h.epk), 'epk is required in the protected header'));
  if (h.alg === AUTHCRYPT_ALG) {
    out.push(pass(L, 'envelope.jwe-alg'));
    out.push(check(L, 'envelope.jwe-enc', AUTHCRYPT_ENC.includes(h.enc as string), `authcrypt requires enc A256CBC-HS512 (ECDH-1PU draft §2.1), got ${String(h.enc)}`));
    // §ECDH-1PU key wrapping: apu = base64url(skid); skid may be omitted, then apu carries it.
    let apu: string | null = null;
    try {
      apu = typeof h.apu === 'string' ? b64uDecodeText(h.apu) : null;
    } catch {
      apu = null;
    }
    if (h.skid !== undefined) {
      out.push(check(L, 'envelope.authcrypt-skid', typeof h.skid === 'string' && KEY_ID.test(h.skid), 'skid must be the sender key id (a DID URL)'));
      out.push(check(L, 'envelope.authcrypt-apu', apu !== null && apu === h.skid, 'apu must be base64url(skid)'));
    } else {
      out.push(check(L, 'envelope.authcrypt-apu', apu !== null && KEY_ID.test(apu), 'without skid, apu must be base64url of the sender key id'));
      out.push(fail(L, 'envelope.authcrypt-skid', 'skid should be set for authcrypt', 'warning'));
    }
  } else if (h.alg === ANONCRYPT_ALG) {
    out.push(pass(L, 'envelope.jwe-alg'));
    out.push(check(L, 'envelope.jwe-enc', ANONCRYPT_ENC.includes(h.enc as string), `anoncrypt enc must be one of ${ANONCRYPT_ENC.join(', ')}, got ${String(h.enc)}`));
    out.push(check(L, 'envelope.anoncrypt-no-skid', h.skid === undefined, 'anoncrypt must not name the sender (skid present)', 'warning'));
  } else {
    out.push(fail(L, 'envelope.jwe-alg', `alg must be ${AUTHCRYPT_ALG} or ${ANONCRYPT_ALG}, got ${String(h.alg)}`));
  }
  // §ECDH-1PU key wrapping: apv = base64url(SHA-256(sorted recipient kids joined by '.')).
  // RFC 7518 §4.6.1 makes apv optional for ECDH-ES: an anoncrypt without one is not judged here
  // (the unpack records it as a note); a present one must be right.
  if (kids.length > 0 && (h.alg === AUTHCRYPT_ALG || h.apv !== undefined)) {
    const expected = b64uEncode(sha256([...kids].sort().join('.')));
    out.push(check(L, 'envelope.jwe-apv', h.apv === expected, 'apv must be base64url(SHA-256 of the sorted recipient kids joined with ".")', h.alg === AUTHCRYPT_ALG ? 'error' : 'warning'));
  }
  return out;
}

function jwsRules(jws: Record<string, unknown>): ConformanceResult[] {
  const out: ConformanceResult[] = [];
  out.push(check(L, 'envelope.jws-payload', typeof jws.payload === 'string', 'JWS payload must be a base64url string'));
  // §Message Signing: "Either the General or Flattened form of a JWS is valid."
  const sigs = jws.signatures === undefined && typeof jws.signature === 'string' ? [{ protected: jws.protected, header: jws.header, signature: jws.signature }] : jws.signatures;
  if (!Array.isArray(sigs) || sigs.length === 0) return [...out, fail(L, 'envelope.jws-signatures', 'JWS signatures must be a non-empty array (general) or one signature (flattened)')];
  sigs.forEach((s: unknown, i) => {
    const sig = isPlainObject(s) ? s : {};
    const h = decodeHeader(sig.protected);
    const rule = sigs.length === 1 ? '' : `[${i}]`;
    if (!h) {
      out.push(fail(L, 'envelope.jws-protected', `signature${rule} has no base64url JSON protected header`));
      return;
    }
    // §DIDComm Signed Message: typ set in the JWS protected header.
    out.push(check(L, 'envelope.typ', sameMediaType(h.typ, MEDIA_TYPES.signed), `JWS typ must be ${MEDIA_TYPES.signed}, got ${String(h.typ)}`));
    out.push(check(L, 'envelope.jws-alg', SIGN_ALGS.includes(h.alg as string), `JWS alg must be one of ${SIGN_ALGS.join(', ')}, got ${String(h.alg)}`));
    // RFC 7515 §4: the JOSE header is the union of the protected and unprotected headers.
    const kid = (isPlainObject(sig.header) ? sig.header.kid : undefined) ?? h.kid;
    out.push(check(L, 'envelope.jws-kid', typeof kid === 'string' && KEY_ID.test(kid), `signature${rule} kid must be a DID URL`));
  });
  return out;
}

/** Rules on the outer packed form (before any decryption). Never throws. */
export function checkEnvelope(packed: string): ConformanceResult[] {
  let value: unknown;
  try {
    value = JSON.parse(packed);
  } catch {
    return [fail(L, 'envelope.json', 'the packed message is not JSON')];
  }
  switch (envelopeShape(value)) {
    case 'encrypted':
      return jweRules(value as Record<string, unknown>);
    case 'signed':
      return jwsRules(value as Record<string, unknown>);
    case 'plaintext': {
      const typ = (value as Record<string, unknown>).typ;
      return [check(L, 'envelope.typ', typ === undefined || sameMediaType(typ, MEDIA_TYPES.plaintext), `plaintext typ must be ${MEDIA_TYPES.plaintext}, got ${String(typ)}`)];
    }
    default:
      return [fail(L, 'envelope.shape', 'not a JWE, a JWS or a plaintext message')];
  }
}

/**
 * Sender authentication (needs the unpack metadata): `from` is the DID of the authcrypt
 * sender key and of the signer; the recipient key belongs to a DID listed in `to`.
 */
export const senderRules: MessageRule = (m, { metadata }) => {
  if (!metadata) return [];
  const out: ConformanceResult[] = [];
  if (metadata.encryptedFromKid) {
    // §Message Headers `from`: the sender key MUST be authorized by this DID.
    out.push(
      check(L, 'envelope.from-matches-sender', sameDid(m.from, metadata.encryptedFromKid),
        m.from ? `from ${m.from} is not the DID of the authcrypt sender key ${didOf(metadata.encryptedFromKid)}` : 'an authcrypted message must carry from'),
    );
  }
  if (metadata.signFrom) {
    // §Message Signing: the signer's DID is the sender.
    out.push(
      check(L, 'envelope.from-matches-signer', sameDid(m.from, metadata.signFrom),
        m.from ? `from ${m.from} is not the DID of the signing key ${didOf(metadata.signFrom)}` : 'a signed message must carry from'),
    );
  }
  if (metadata.encryptedToKids?.length && Array.isArray(m.to)) {
    const to = m.to as string[];
    const outside = metadata.encryptedToKids.filter((kid) => !to.some((t) => sameDid(t, kid)));
    out.push(check(L, 'envelope.recipient-in-to', outside.length === 0, `encrypted for keys of DIDs not listed in to: ${outside.map(didOf).join(', ')}`));
  }
  if (m.from !== undefined && !metadata.authenticated && !metadata.nonRepudiation) {
    out.push(fail(L, 'envelope.sender-authenticated', `from ${String(m.from)} is not authenticated by the envelope (${metadata.mode})`, 'warning'));
  }
  return out;
};

/** The forms the unpack accepted and noted (every layer, not only the outer one), as conformance notes. */
export const envelopeNotes: MessageRule = (_m, { metadata }) => (metadata?.notes ?? []).map((n) => note(L, n.rule, n.detail));

/** The envelope mode as far as the outer layer shows it (for logging what could not be opened). */
export function outerMode(packed: string): EnvelopeMode {
  let value: unknown;
  try {
    value = JSON.parse(packed);
  } catch {
    return 'plaintext';
  }
  const shape = envelopeShape(value);
  if (shape === 'signed') return 'signed';
  if (shape !== 'encrypted') return 'plaintext';
  return decodeHeader((value as Record<string, unknown>).protected)?.alg === AUTHCRYPT_ALG ? 'authcrypt' : 'anoncrypt';
}
