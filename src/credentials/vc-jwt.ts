// VC-JWT: the JWT encoding of VC Data Model v1.1 §6.3.1 (iss, sub, nbf, exp, jti and the
// credential in `vc`), a JWS compact serialization (RFC 7515 §7.1) signed EdDSA/Ed25519 through
// keys.ts, as Data Integrity proofs are (src/crypto/ed25519.ts underneath, as for envelopes): so a
// VC-JWT gets the same refusals as proofs and envelopes (small-order or non-canonical key,
// small-order R), which OpenSSL, behind jose, does not make. Ed25519 is deterministic: the
// tokens are the ones jose makes, byte for byte (test/credentials/vc-jwt-jose.test.ts).
// Algorithms are pinned: a token with any other `alg` ('none', HS256, …) is refused before its
// signature is looked at.
import { isoOfEpochSeconds } from '../clock.js';
import { b64uDecodeText, b64uEncode } from '../encoding.js';
import { IdsyncError } from '../errors.js';
import { sign, verify } from '../keys.js';
import type { W3cCredential } from './types.js';

export const JWT_ALGORITHMS = ['EdDSA'];

export interface VcJwtPayload {
  iss: string;
  sub?: string;
  nbf: number;
  exp?: number;
  jti?: string;
  iat?: number;
  vc: W3cCredential;
  [k: string]: unknown;
}

const seconds = (iso: string): number => Math.floor(Date.parse(iso) / 1000);

function issuerId(vc: W3cCredential): string {
  return typeof vc.issuer === 'string' ? vc.issuer : vc.issuer.id;
}

/**
 * Signs a credential as a VC-JWT. The `vc` claim keeps the whole credential (issuer, dates, id),
 * so readers that only look at `vc` see everything; the registered claims repeat them (§6.3.1).
 */
export async function signVcJwt(vc: W3cCredential, key: { kid: string; privateKey: Uint8Array }): Promise<string> {
  const { proof: _ignored, ...credential } = vc;
  const payload: VcJwtPayload = {
    iss: issuerId(vc),
    ...(vc.credentialSubject.id ? { sub: vc.credentialSubject.id } : {}),
    nbf: seconds(vc.issuanceDate),
    ...(vc.expirationDate ? { exp: seconds(vc.expirationDate) } : {}),
    ...(vc.id ? { jti: vc.id } : {}),
    vc: credential,
  };
  const header = b64uEncode(JSON.stringify({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' }));
  const signingInput = `${header}.${b64uEncode(JSON.stringify(payload))}`;
  return `${signingInput}.${b64uEncode(sign(key.privateKey, Buffer.from(signingInput, 'ascii')))}`;
}

export interface DecodedVcJwt {
  header: { alg: string; kid?: string; typ?: string; [k: string]: unknown };
  payload: VcJwtPayload;
  /** The credential: `vc` reconciled with the registered claims (§6.3.2 decoding). */
  credential: W3cCredential;
}

function malformed(message: string): IdsyncError {
  return new IdsyncError('malformed_credential', message);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Decodes without verifying. Throws IdsyncError 'malformed_credential' when the token is not a
 * JWS compact serialization with a `vc` claim, or when a registered claim contradicts `vc`.
 */
export function decodeVcJwt(jwt: string): DecodedVcJwt {
  const parts = jwt.split('.');
  if (parts.length !== 3) throw malformed('a VC-JWT has three parts');
  let header: unknown, payload: unknown;
  try {
    header = JSON.parse(b64uDecodeText(parts[0]));
    payload = JSON.parse(b64uDecodeText(parts[1]));
  } catch {
    throw malformed('the JWT header or payload is not base64url JSON');
  }
  if (!isObject(header) || typeof header.alg !== 'string') throw malformed('the JWT header has no alg');
  if (!isObject(payload) || !isObject(payload.vc)) throw malformed('the JWT has no vc claim');
  const vc = { ...(payload.vc as unknown as W3cCredential) };
  const subject = isObject(vc.credentialSubject) ? { ...vc.credentialSubject } : undefined;
  // §6.3.2: the registered claims fill in (or must agree with) the credential's properties.
  const agree = (name: string, claim: unknown, prop: unknown, fill: () => void): void => {
    if (claim === undefined) return;
    if (prop === undefined) fill();
    else if (prop !== claim) throw malformed(`JWT claim ${name} contradicts the credential`);
  };
  if (typeof payload.iss === 'string') {
    const current = typeof vc.issuer === 'string' ? vc.issuer : isObject(vc.issuer) ? vc.issuer.id : undefined;
    agree('iss', payload.iss, current, () => (vc.issuer = payload.iss as string));
  }
  if (subject) {
    agree('sub', payload.sub, subject.id, () => (subject.id = payload.sub as string));
    vc.credentialSubject = subject;
  }
  agree('jti', payload.jti, vc.id, () => (vc.id = payload.jti as string));
  if (typeof payload.nbf === 'number') {
    const nbf = isoOfEpochSeconds(payload.nbf)?.replace('.000Z', 'Z');
    if (nbf === undefined) throw malformed('JWT claim nbf is beyond any date');
    agree('nbf', payload.nbf, vc.issuanceDate === undefined ? undefined : seconds(vc.issuanceDate), () => (vc.issuanceDate = nbf));
  }
  if (typeof payload.exp === 'number') {
    const exp = isoOfEpochSeconds(payload.exp)?.replace('.000Z', 'Z');
    if (exp === undefined) throw malformed('JWT claim exp is beyond any date');
    agree('exp', payload.exp, vc.expirationDate === undefined ? undefined : seconds(vc.expirationDate), () => (vc.expirationDate = exp));
  }
  return { header: header as DecodedVcJwt['header'], payload: payload as VcJwtPayload, credential: vc };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

// base64url without padding (RFC 7515 §2): what each part of a compact serialization is.
const B64U_PART = /^[A-Za-z0-9_-]*$/;

/**
 * Verifies the JWS signature with an Ed25519 public key (RFC 7515 §5.2), alg pinned to EdDSA.
 * Refuses a header with `crit` (§4.1.11: an extension the recipient does not understand makes the
 * JWS invalid; this one understands none). Never throws.
 */
export async function verifyVcJwtSignature(jwt: string, publicKey: Uint8Array): Promise<{ ok: true } | { ok: false; detail: string }> {
  const refused = (detail: string) => ({ ok: false as const, detail });
  const parts = jwt.split('.');
  if (parts.length !== 3) return refused('not a JWS compact serialization (three parts)');
  const [h, p, sig] = parts as [string, string, string];
  if (!B64U_PART.test(h) || !B64U_PART.test(p) || !B64U_PART.test(sig)) return refused('a part is not base64url without padding');
  // One encoding of each part (no unused bits set), and a header in well-formed UTF-8 (RFC 7515
  // §5.2 steps 2–4), as jose requires: other spellings of the same bytes would be other tokens.
  const headerBytes = Buffer.from(h, 'base64url');
  if (b64uEncode(headerBytes) !== h || b64uEncode(Buffer.from(p, 'base64url')) !== p) return refused('a part is not in its one base64url encoding');
  let header: unknown;
  try {
    header = JSON.parse(strictUtf8.decode(headerBytes));
  } catch {
    return refused('the protected header is not UTF-8 JSON');
  }
  if (!isObject(header)) return refused('the protected header is not a JSON object');
  if (typeof header.alg !== 'string' || !JWT_ALGORITHMS.includes(header.alg)) return refused(`alg ${String(JSON.stringify(header.alg)).slice(0, 40)} is not allowed (${JWT_ALGORITHMS.join(', ')})`);
  if ('crit' in header) return refused('the header names critical extensions (crit), none of which is understood');
  const signature = Buffer.from(sig, 'base64url');
  // The one encoding of those bytes: other texts for the same signature would make a second token.
  if (signature.length !== 64 || b64uEncode(signature) !== sig) return refused('an EdDSA signature is 64 bytes, base64url encoded');
  if (!verify(publicKey, Buffer.from(`${h}.${p}`, 'ascii'), signature)) return refused('signature verification failed');
  return { ok: true };
}
