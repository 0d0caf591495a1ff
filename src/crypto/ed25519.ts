// Ed25519 signatures (RFC 8032 §5.1) over raw keys: the 32-byte private key (the seed of
// §5.1.5) and the 32-byte public key, in libsodium where it loads, else node:crypto.
// libsodium's verification refuses a small-order public key or R and a non-canonical public key
// encoding (RFC 8032 §5.1.7 leaves both to the verifier; OpenSSL accepts them, so with the
// identity as key and as R a zero signature verifies for every message): the node:crypto path
// refuses them too, so that the providers agree and such a key binds nothing under either.
import { sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { ED25519_TORSION_SUBGROUP } from '@noble/curves/ed25519.js';
import { privateKeyObject, publicKeyObject, publicKeyOfPrivate } from './okp-node.js';
import { sodium } from './provider.js';

// libsodium signs with the 64-byte secret key seed || public key (expanding the seed costs a
// scalar multiplication): kept per private key array; the seed half is compared on each use so
// that an array changed in place is not trusted.
const secretKeys = new WeakMap<Uint8Array, Buffer>();

function secretKeyOf(s: NonNullable<typeof sodium>, privateKey: Uint8Array): Buffer {
  let sk = secretKeys.get(privateKey);
  if (!sk || !sk.subarray(0, 32).equals(privateKey)) {
    sk = Buffer.alloc(64);
    s.crypto_sign_seed_keypair(Buffer.alloc(32), sk, privateKey);
    secretKeys.set(privateKey, sk);
  }
  return sk;
}

function checkPrivate(privateKey: Uint8Array): void {
  // The message never names key bytes.
  if (privateKey.length !== 32) throw new RangeError('an Ed25519 private key is 32 bytes');
}

/** RFC 8032 §5.1.5: the public key of a 32-byte private key. */
export function ed25519PublicKey(privateKey: Uint8Array): Buffer {
  checkPrivate(privateKey);
  if (!sodium) return publicKeyOfPrivate('Ed25519', privateKey);
  const publicKey = Buffer.alloc(32);
  const sk = Buffer.alloc(64);
  sodium.crypto_sign_seed_keypair(publicKey, sk, privateKey);
  // Kept for ed25519Sign with this same array (as secretKeyOf keeps it): a key read from a store
  // has its public half derived to check it (keys.ts keyPairFromJwk), then signs at once.
  secretKeys.set(privateKey, sk);
  return publicKey;
}

/** RFC 8032 §5.1.6: the 64-byte signature of `message`. */
export function ed25519Sign(privateKey: Uint8Array, message: Uint8Array): Buffer {
  checkPrivate(privateKey);
  if (!sodium) return nodeSign(null, message, privateKeyObject('Ed25519', privateKey));
  const signature = Buffer.alloc(64);
  sodium.crypto_sign_detached(signature, message, secretKeyOf(sodium, privateKey));
  return signature;
}

// The encodings of the eight points of order dividing 8, sign bit cleared: y is all that tells
// them apart (each y with either sign is small-order).
const SMALL_ORDER_Y = new Set(ED25519_TORSION_SUBGROUP.map((hex) => {
  const b = Buffer.from(hex, 'hex');
  b[31]! &= 0x7f;
  return b.toString('hex');
}));

/** A point encoding of small order (its y, sign bit aside, is a torsion point's). */
function smallOrder(encoded: Uint8Array): boolean {
  const y = Buffer.from(encoded.subarray(0, 32));
  y[31]! &= 0x7f;
  return SMALL_ORDER_Y.has(y.toString('hex'));
}

/** y >= p = 2^255 - 19 (little-endian, sign bit aside): a non-canonical encoding (RFC 8032 §5.1.3). */
function nonCanonical(encoded: Uint8Array): boolean {
  if ((encoded[31]! & 0x7f) !== 0x7f || encoded[0]! < 0xed) return false;
  for (let i = 1; i < 31; i++) if (encoded[i] !== 0xff) return false;
  return true;
}

function nodeVerifyStrict(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (smallOrder(publicKey) || nonCanonical(publicKey) || smallOrder(signature)) return false;
  return nodeVerify(null, message, publicKeyObject('Ed25519', publicKey), signature);
}

/** RFC 8032 §5.1.7; false for any malformed key or signature, a small-order key or R, or a non-canonical key. */
export function ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  try {
    return sodium ? sodium.crypto_sign_verify_detached(signature, message, publicKey) : nodeVerifyStrict(publicKey, message, signature);
  } catch {
    return false;
  }
}
