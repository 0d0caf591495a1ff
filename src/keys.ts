// Key pairs for DIDs and DIDComm: Ed25519 (authentication, assertion; RFC 8032) and
// X25519 (key agreement; RFC 7748), in JWK (RFC 8037) and Multikey (W3C CID §2.2.2) forms.
import * as ed from '@noble/ed25519';
import { x25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { randomBytes } from 'node:crypto';
import { b64uDecode, b64uEncode, multibaseDecode, multibaseEncode } from './encoding.js';
import { IdsyncError } from './errors.js';

// @noble/ed25519 v3 signs synchronously only once SHA-512 is configured.
ed.hashes.sha512 = sha512;

export type KeyType = 'Ed25519' | 'X25519';

export interface KeyPair {
  type: KeyType;
  publicKey: Uint8Array;
  privateKey: Uint8Array;
}

export interface PublicJwk {
  kty: 'OKP';
  crv: KeyType;
  x: string;
  kid?: string;
}

export interface PrivateJwk extends PublicJwk {
  d: string;
}

export function generateKeyPair(type: KeyType, seed?: Uint8Array): KeyPair {
  const privateKey = seed ? new Uint8Array(seed) : new Uint8Array(randomBytes(32));
  if (privateKey.length !== 32) throw new IdsyncError('invalid_key', 'a seed is 32 bytes');
  const publicKey = type === 'Ed25519' ? ed.getPublicKey(privateKey) : x25519.getPublicKey(privateKey);
  return { type, publicKey, privateKey };
}

export function publicJwk(kp: Pick<KeyPair, 'type' | 'publicKey'>, kid?: string): PublicJwk {
  const jwk: PublicJwk = { kty: 'OKP', crv: kp.type, x: b64uEncode(kp.publicKey) };
  if (kid) jwk.kid = kid;
  return jwk;
}

export function privateJwk(kp: KeyPair, kid?: string): PrivateJwk {
  return { ...publicJwk(kp, kid), d: b64uEncode(kp.privateKey) };
}

function checkOkp(jwk: { kty?: unknown; crv?: unknown; x?: unknown }): KeyType {
  if (jwk.kty !== 'OKP' || (jwk.crv !== 'Ed25519' && jwk.crv !== 'X25519') || typeof jwk.x !== 'string') {
    throw new IdsyncError('unsupported_key', `unsupported JWK (kty ${String(jwk.kty)}, crv ${String(jwk.crv)})`);
  }
  return jwk.crv;
}

export function publicKeyFromJwk(jwk: { kty?: unknown; crv?: unknown; x?: unknown }): { type: KeyType; publicKey: Uint8Array } {
  const type = checkOkp(jwk);
  const publicKey = b64uDecode(jwk.x as string);
  if (publicKey.length !== 32) throw new IdsyncError('invalid_key', 'an OKP public key is 32 bytes');
  return { type, publicKey };
}

export function keyPairFromJwk(jwk: { kty?: unknown; crv?: unknown; x?: unknown; d?: unknown }): KeyPair {
  const { type, publicKey } = publicKeyFromJwk(jwk);
  if (typeof jwk.d !== 'string') throw new IdsyncError('invalid_key', 'the JWK has no private part');
  const privateKey = b64uDecode(jwk.d);
  const derived = generateKeyPair(type, privateKey).publicKey;
  // A private key that does not match its public half is refused (message names no key bytes).
  if (Buffer.compare(Buffer.from(derived), Buffer.from(publicKey)) !== 0) {
    throw new IdsyncError('invalid_key', 'the private key does not match the public key');
  }
  return { type, publicKey, privateKey };
}

// Multicodec varint prefixes: ed25519-pub 0xed (0xed 0x01), x25519-pub 0xec (0xec 0x01).
const MULTICODEC: Record<KeyType, [number, number]> = { Ed25519: [0xed, 0x01], X25519: [0xec, 0x01] };

export function toMultikey(kp: Pick<KeyPair, 'type' | 'publicKey'>): string {
  const [a, b] = MULTICODEC[kp.type];
  const bytes = new Uint8Array(34);
  bytes[0] = a;
  bytes[1] = b;
  bytes.set(kp.publicKey, 2);
  return multibaseEncode(bytes);
}

export function fromMultikey(multikey: string): { type: KeyType; publicKey: Uint8Array } {
  const bytes = multibaseDecode(multikey);
  if (bytes.length === 34 && bytes[1] === 0x01) {
    if (bytes[0] === 0xed) return { type: 'Ed25519', publicKey: bytes.slice(2) };
    if (bytes[0] === 0xec) return { type: 'X25519', publicKey: bytes.slice(2) };
  }
  throw new IdsyncError('unsupported_key', 'unsupported multikey (only Ed25519 and X25519)');
}

export function sign(privateKey: Uint8Array, message: Uint8Array): Uint8Array {
  return ed.sign(message, privateKey);
}

export function verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    return ed.verify(signature, message, publicKey);
  } catch {
    return false;
  }
}
