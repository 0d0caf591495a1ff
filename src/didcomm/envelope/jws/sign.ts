// JWS signing as DIDComm v2 senders do it today (§Message Signing): the General JSON
// serialization with one signature, the protected header {typ, alg} and the kid in the
// unprotected header, members in the order didcomm-node writes them; and the compact form
// for the from_prior JWT (§DID Rotation), header {typ: JWT, alg, kid}.
import type { KeyObject } from 'node:crypto';
import { MEDIA_TYPES } from '../../types.js';
import { signBytes, type SignAlg } from './algorithms.js';

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64url');

export function signJws(payload: string, signer: { kid: string; alg: SignAlg; key: KeyObject }): string {
  const protectedB64 = b64(JSON.stringify({ typ: MEDIA_TYPES.signed, alg: signer.alg }));
  const payloadB64 = b64(payload);
  const signature = signBytes(signer.alg, signer.key, Buffer.from(`${protectedB64}.${payloadB64}`, 'ascii')).toString('base64url');
  return JSON.stringify({ signatures: [{ header: { kid: signer.kid }, protected: protectedB64, signature }], payload: payloadB64 });
}

export function signCompact(payload: string, signer: { kid: string; alg: SignAlg; key: KeyObject }, typ: string): string {
  const headerB64 = b64(JSON.stringify({ typ, alg: signer.alg, kid: signer.kid }));
  const payloadB64 = b64(payload);
  const signature = signBytes(signer.alg, signer.key, Buffer.from(`${headerB64}.${payloadB64}`, 'ascii')).toString('base64url');
  return `${headerB64}.${payloadB64}.${signature}`;
}
