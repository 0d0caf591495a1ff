// Key pairs for DIDs and DIDComm: Ed25519 (authentication, assertion; RFC 8032) and
// X25519 (key agreement; RFC 7748), in JWK (RFC 8037) and Multikey (W3C CID §2.2.2) forms.
// Key derivation, signing and verifying are src/crypto/'s (libsodium, else node:crypto): they
// are on the hot path of every credential proof, VC-JWT and presentation (a pure-JS Ed25519 was
// ~9% of a flow's CPU).
import { randomBytes } from 'node:crypto';
import { ed25519PublicKey, ed25519Sign, ed25519Verify } from './crypto/ed25519.js';
import { x25519PublicKey } from './crypto/x25519.js';
import { b64uDecode, b64uEncode, multibaseDecode, multibaseEncode } from './encoding.js';
import { IdsyncError } from './errors.js';

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
  const publicKey = new Uint8Array(type === 'Ed25519' ? ed25519PublicKey(privateKey) : x25519PublicKey(privateKey));
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
  // Derived from this very array, so that ed25519Sign finds it expanded (crypto/ed25519.ts).
  const derived = type === 'Ed25519' ? ed25519PublicKey(privateKey) : x25519PublicKey(privateKey);
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

/** Ed25519 signature (RFC 8032 §5.1.6) of `message` with the 32-byte private key (seed). */
export function sign(privateKey: Uint8Array, message: Uint8Array): Uint8Array {
  if (privateKey.length !== 32) throw new IdsyncError('invalid_key', 'an Ed25519 private key is 32 bytes');
  return new Uint8Array(ed25519Sign(privateKey, message));
}

/** Ed25519 verification (RFC 8032 §5.1.7); false for any malformed key or signature. */
export function verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  return ed25519Verify(publicKey, message, signature);
}
