// Key-encryption keys for ECDH-ES+A256KW (RFC 7518 §4.6.2) and ECDH-1PU+A256KW
// (draft-madden-jose-ecdh-1pu-04 §2.3): the Concat KDF of NIST SP 800-56A §5.8.1 with SHA-256 over
// the shared secret Z and OtherInfo = AlgorithmID || PartyUInfo || PartyVInfo || SuppPubInfo, each
// datum a 32-bit big-endian length and its bytes. ECDH-1PU in key-wrapping mode appends the
// content's authentication tag to SuppPubInfo, length-prefixed (1PU-04 §2.3), so the wrapped key
// binds the ciphertext and the sender cannot be swapped.
import { createHash } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { sharedSecret } from '../key-objects.js';

export type KeyWrapAlg = 'ECDH-ES+A256KW' | 'ECDH-1PU+A256KW';

/** A256KW wraps with a 256-bit key, whatever the curve. */
const KEK_BITS = 256;

function u32(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(n);
  return b;
}

function prefixed(data: Uint8Array): Buffer[] {
  return [u32(data.length), Buffer.from(data.buffer, data.byteOffset, data.byteLength)];
}

/** Concat KDF (SP 800-56A §5.8.1), SHA-256, `bits` of output. */
export function concatKdf(z: Buffer, alg: string, apu: Uint8Array, apv: Uint8Array, bits: number, ccTag?: Uint8Array): Buffer {
  const otherInfo = Buffer.concat([
    ...prefixed(Buffer.from(alg, 'ascii')),
    ...prefixed(apu),
    ...prefixed(apv),
    u32(bits),
    ...(ccTag ? prefixed(ccTag) : []),
  ]);
  const rounds = Math.ceil(bits / 256);
  const out: Buffer[] = [];
  for (let i = 1; i <= rounds; i++) out.push(createHash('sha256').update(u32(i)).update(z).update(otherInfo).digest());
  return Buffer.concat(out).subarray(0, bits / 8);
}

export interface KekInput {
  alg: KeyWrapAlg;
  /** Ours: the ephemeral private key when encrypting, the recipient's when decrypting. */
  own: KeyObject;
  /** Theirs: the recipient's public key when encrypting, the epk when decrypting. */
  peer: KeyObject;
  /** ECDH-1PU only: Zs = ECDH(sender private, recipient public) when encrypting, ECDH(recipient private, sender public) when decrypting. */
  staticPair?: { own: KeyObject; peer: KeyObject };
  apu: Uint8Array;
  apv: Uint8Array;
  /** ECDH-1PU only: the JWE authentication tag. */
  tag?: Uint8Array;
}

/** The key-encryption key of one recipient: Z = Ze (ECDH-ES) or Ze || Zs (ECDH-1PU §2.2). */
export function deriveKek(i: KekInput): Buffer {
  const ze = sharedSecret(i.own, i.peer, 'envelope.jwe-epk');
  const z = i.staticPair ? Buffer.concat([ze, sharedSecret(i.staticPair.own, i.staticPair.peer, 'envelope.jwe-sender-key')]) : ze;
  return concatKdf(z, i.alg, i.apu, i.apv, KEK_BITS, i.alg === 'ECDH-1PU+A256KW' ? i.tag : undefined);
}
