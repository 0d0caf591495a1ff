// JWS signing as DIDComm v2 senders do it today (§Message Signing): the General JSON
// serialization with one signature, the protected header {typ, alg} and the kid in the
// unprotected header, members in the order didcomm-node writes them; and the compact form
// for the from_prior JWT (§DID Rotation), header {typ: JWT, alg, kid}.
import { MEDIA_TYPES } from '../../types.js';
import type { EngineKey } from '../key-objects.js';
import { boundedMemo } from '../memo.js';
import { signBytes, type SignAlg } from './algorithms.js';

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64url');

/** The JWS signing input (RFC 7515 §5.1): ASCII(header) '.' ASCII(payload), both base64url. */
export function signingInput(headerB64: string, payloadB64: string): Buffer {
  const out = Buffer.allocUnsafe(headerB64.length + 1 + payloadB64.length);
  out.write(headerB64, 0, 'latin1');
  out[headerB64.length] = 0x2e;
  out.write(payloadB64, headerB64.length + 1, 'latin1');
  return out;
}

// The protected header of a DIDComm JWS depends on the algorithm alone.
const PROTECTED: Record<SignAlg, string> = {
  EdDSA: b64(JSON.stringify({ typ: MEDIA_TYPES.signed, alg: 'EdDSA' })),
  ES256: b64(JSON.stringify({ typ: MEDIA_TYPES.signed, alg: 'ES256' })),
  ES256K: b64(JSON.stringify({ typ: MEDIA_TYPES.signed, alg: 'ES256K' })),
};

// The JSON of a signer's kid, kept per kid (bounded): a sender signs with the same key message
// after message, and a long-form did:ion kid is ~1 KB that JSON.stringify scans and copies each time.
const kidJson = boundedMemo(256, (kid: string) => JSON.stringify(kid));

export function signJws(payload: string, signer: { kid: string; alg: SignAlg; key: EngineKey }): string {
  const protectedB64 = PROTECTED[signer.alg];
  const payloadB64 = b64(payload);
  const signature = signBytes(signer.alg, signer.key, signingInput(protectedB64, payloadB64)).toString('base64url');
  // JSON.stringify of {signatures: [{header: {kid}, protected, signature}], payload}, written out:
  // only the kid may need escaping, and the payload is the longest string of the message.
  return `{"signatures":[{"header":{"kid":${kidJson(signer.kid)}},"protected":"${protectedB64}","signature":"${signature}"}],"payload":"${payloadB64}"}`;
}

export function signCompact(payload: string, signer: { kid: string; alg: SignAlg; key: EngineKey }, typ: string): string {
  const headerB64 = b64(JSON.stringify({ typ, alg: signer.alg, kid: signer.kid }));
  const payloadB64 = b64(payload);
  const signature = signBytes(signer.alg, signer.key, signingInput(headerB64, payloadB64)).toString('base64url');
  return `${headerB64}.${payloadB64}.${signature}`;
}
