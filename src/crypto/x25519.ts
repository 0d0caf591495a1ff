// X25519 key agreement (RFC 7748 §5, §6.1) over raw 32-byte keys, in libsodium where it loads,
// else node:crypto. A refused agreement is `undefined`: libsodium returns -1 for a low-order
// public key or an all-zero result, OpenSSL throws for the latter, and the all-zero value is
// checked here too (§6.1: "check for the all-zero value ... and abort if so").
import { diffieHellman, generateKeyPairSync } from 'node:crypto';
import { privateKeyObject, publicKeyObject, publicKeyOfPrivate } from './okp-node.js';
import { sodium } from './provider.js';

/** RFC 7748 §6.1: the public key of a 32-byte private key. */
export function x25519PublicKey(privateKey: Uint8Array): Buffer {
  if (privateKey.length !== 32) throw new RangeError('an X25519 private key is 32 bytes');
  if (!sodium) return publicKeyOfPrivate('X25519', privateKey);
  const publicKey = Buffer.alloc(32);
  sodium.crypto_scalarmult_base(publicKey, privateKey);
  return publicKey;
}

/** A fresh key pair from the CSPRNG. */
export function x25519KeyPair(): { privateKey: Buffer; publicKey: Buffer } {
  if (!sodium) {
    // Both halves in generateKeyPairSync's own encodings: no KeyObject to export (see
    // test/didcomm/keygen-export.test.ts for why that matters on Node 20).
    // (node:crypto takes format 'jwk' here since Node 15.9; the typings lack it.)
    const generate = generateKeyPairSync as unknown as (type: 'x25519', options: object) => { privateKey: { d: string }; publicKey: { x: string } };
    const jwk = { format: 'jwk' };
    const { privateKey, publicKey } = generate('x25519', { publicKeyEncoding: jwk, privateKeyEncoding: jwk });
    return { privateKey: Buffer.from(privateKey.d, 'base64url'), publicKey: Buffer.from(publicKey.x, 'base64url') };
  }
  // Buffers of their own, not slices of the shared allocUnsafe pool: a pooled slice drags the
  // whole pool along wherever the buffer is cloned (postMessage copies the underlying slab).
  const privateKey = Buffer.alloc(32);
  sodium.randombytes_buf(privateKey);
  const publicKey = Buffer.alloc(32);
  sodium.crypto_scalarmult_base(publicKey, privateKey);
  return { privateKey, publicKey };
}

/** The shared secret of a private and a public key, or undefined when the agreement is refused. */
export function x25519(privateKey: Uint8Array, publicKey: Uint8Array): Buffer | undefined {
  if (privateKey.length !== 32 || publicKey.length !== 32) return undefined;
  let z: Buffer;
  try {
    if (sodium) {
      z = Buffer.alloc(32);
      sodium.crypto_scalarmult(z, privateKey, publicKey);
    } else {
      z = diffieHellman({ privateKey: privateKeyObject('X25519', privateKey), publicKey: publicKeyObject('X25519', publicKey) });
    }
  } catch {
    return undefined;
  }
  return isAllZero(z) ? undefined : z;
}

// An indexed loop: `for…of` on a Buffer goes through its iterator, which costs more than the 32
// loads themselves until the function is optimized, and one flow runs it 18 times.
function isAllZero(z: Buffer): boolean {
  let acc = 0;
  for (let i = 0; i < z.length; i++) acc |= z[i];
  return acc === 0;
}
