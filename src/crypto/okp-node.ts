// The node:crypto side of raw X25519 and Ed25519 keys: KeyObjects made from the raw bytes, kept
// while the bytes recur. They are made through JWK import: OpenSSL 3's DER/PKCS#8 decoders cost
// ~0.5 ms a key, the JWK path ~15-60 µs. A private OKP JWK must carry `x`, but OpenSSL builds the
// key from `d` alone and derives the public half itself: a placeholder `x` is given, and the
// derived public key is what publicKeyOfPrivate() reads back.
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { setBounded } from '../bounded.js';

export type OkpCurve = 'Ed25519' | 'X25519';

const PLACEHOLDER_X = 'A'.repeat(43);

function importPrivate(curve: OkpCurve, privateKey: Uint8Array): KeyObject {
  return createPrivateKey({ key: { kty: 'OKP', crv: curve, d: Buffer.from(privateKey).toString('base64url'), x: PLACEHOLDER_X }, format: 'jwk' });
}

/** RFC 8032 §5.1.5 / RFC 7748 §6.1: the public key of a 32-byte private key, as OpenSSL derives it. */
export function publicKeyOfPrivate(curve: OkpCurve, privateKey: Uint8Array): Buffer {
  const jwk = createPublicKey(importPrivate(curve, privateKey)).export({ format: 'jwk' }) as { x: string };
  return Buffer.from(jwk.x, 'base64url');
}

// Private keys recur (the service's assertion key signs every credential): the KeyObject is kept
// per key array, with a copy of its bytes so that an array changed in place is not trusted.
const privateKeys = new WeakMap<Uint8Array, { bytes: Buffer; key: KeyObject }>();

/** The KeyObject of a 32-byte private key; throws when OpenSSL refuses it. */
export function privateKeyObject(curve: OkpCurve, privateKey: Uint8Array): KeyObject {
  let entry = privateKeys.get(privateKey);
  if (!entry || !entry.bytes.equals(privateKey) || entry.key.asymmetricKeyType !== curve.toLowerCase()) {
    entry = { bytes: Buffer.from(privateKey), key: importPrivate(curve, privateKey) };
    privateKeys.set(privateKey, entry);
  }
  return entry.key;
}

// Public keys are public: a bounded map by their bytes.
const publicKeys = new Map<string, KeyObject>();
const PUBLIC_KEYS_MAX = 1024;

/** The KeyObject of a 32-byte public key; throws when OpenSSL refuses it. */
export function publicKeyObject(curve: OkpCurve, publicKey: Uint8Array): KeyObject {
  const id = `${curve}:${Buffer.from(publicKey).toString('hex')}`;
  let key = publicKeys.get(id);
  if (!key) {
    key = createPublicKey({ key: { kty: 'OKP', crv: curve, x: Buffer.from(publicKey).toString('base64url') }, format: 'jwk' });
    setBounded(publicKeys, id, key, PUBLIC_KEYS_MAX);
  }
  return key;
}
