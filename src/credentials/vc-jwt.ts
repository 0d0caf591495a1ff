// VC-JWT: the JWT encoding of VC Data Model v1.1 §6.3.1 (iss, sub, nbf, exp, jti and the
// credential in `vc`), signed EdDSA/Ed25519 with jose. Algorithms are pinned: a token with any
// other `alg` ('none', HS256, …) is refused before a key is even looked at.
import { CompactSign, compactVerify, importJWK } from 'jose';
import { b64uDecodeText, b64uEncode } from '../encoding.js';
import { IdsyncError } from '../errors.js';
import { generateKeyPair } from '../keys.js';
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
  const pair = generateKeyPair('Ed25519', key.privateKey);
  const jwk = { kty: 'OKP', crv: 'Ed25519', x: b64uEncode(pair.publicKey), d: b64uEncode(pair.privateKey) };
  const signingKey = await importJWK(jwk, 'EdDSA');
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' })
    .sign(signingKey);
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
    const nbf = new Date(payload.nbf * 1000).toISOString().replace('.000Z', 'Z');
    agree('nbf', payload.nbf, vc.issuanceDate === undefined ? undefined : seconds(vc.issuanceDate), () => (vc.issuanceDate = nbf));
  }
  if (typeof payload.exp === 'number') {
    const exp = new Date(payload.exp * 1000).toISOString().replace('.000Z', 'Z');
    agree('exp', payload.exp, vc.expirationDate === undefined ? undefined : seconds(vc.expirationDate), () => (vc.expirationDate = exp));
  }
  return { header: header as DecodedVcJwt['header'], payload: payload as VcJwtPayload, credential: vc };
}

/** Verifies the JWS signature with an Ed25519 public key; alg pinned to EdDSA. Never throws. */
export async function verifyVcJwtSignature(jwt: string, publicKey: Uint8Array): Promise<{ ok: true } | { ok: false; detail: string }> {
  try {
    const key = await importJWK({ kty: 'OKP', crv: 'Ed25519', x: b64uEncode(publicKey) }, 'EdDSA');
    await compactVerify(jwt, key, { algorithms: JWT_ALGORITHMS });
    return { ok: true };
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'ERR_JWS_INVALID';
    return { ok: false, detail: `${code}: ${err instanceof Error ? err.message : String(err)}`.slice(0, 200) };
  }
}
