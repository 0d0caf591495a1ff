// Key-encryption keys for ECDH-ES+A256KW (RFC 7518 §4.6.2) and ECDH-1PU+A256KW
// (draft-madden-jose-ecdh-1pu-04 §2.3): the Concat KDF of NIST SP 800-56A §5.8.1 with SHA-256 over
// the shared secret Z and OtherInfo = AlgorithmID || PartyUInfo || PartyVInfo || SuppPubInfo, each
// datum a 32-bit big-endian length and its bytes. ECDH-1PU in key-wrapping mode appends the
// content's authentication tag to SuppPubInfo, length-prefixed (1PU-04 §2.3), so the wrapped key
// binds the ciphertext and the sender cannot be swapped.
import { createHash } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { sharedSecret, staticSharedSecret } from '../key-objects.js';

export type KeyWrapAlg = 'ECDH-ES+A256KW' | 'ECDH-1PU+A256KW';

/** A256KW wraps with a 256-bit key, whatever the curve. */
const KEK_BITS = 256;

/** Concat KDF (SP 800-56A §5.8.1), SHA-256, `bits` of output. */
export function concatKdf(z: Buffer, alg: string, apu: Uint8Array, apv: Uint8Array, bits: number, ccTag?: Uint8Array): Buffer {
  // OtherInfo in one buffer: four length-prefixed data and the 32-bit key length.
  const parts: Uint8Array[] = [Buffer.from(alg, 'ascii'), apu, apv];
  if (ccTag) parts.push(ccTag);
  const info = Buffer.allocUnsafe(parts.reduce((n, p) => n + 4 + p.length, 4));
  let at = 0;
  parts.forEach((p, i) => {
    if (i === 3) at = info.writeUInt32BE(bits, at); // SuppPubInfo: keydatalen, then the tag
    at = info.writeUInt32BE(p.length, at);
    info.set(p, at);
    at += p.length;
  });
  if (!ccTag) at = info.writeUInt32BE(bits, at);
  const rounds = Math.ceil(bits / 256);
  const out: Buffer[] = [];
  const counter = Buffer.allocUnsafe(4);
  for (let i = 1; i <= rounds; i++) {
    counter.writeUInt32BE(i);
    out.push(createHash('sha256').update(counter).update(z).update(info).digest());
  }
  return rounds === 1 ? out[0]!.subarray(0, bits / 8) : Buffer.concat(out).subarray(0, bits / 8);
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
  const z = i.staticPair ? Buffer.concat([ze, staticSharedSecret(i.staticPair.own, i.staticPair.peer, 'envelope.jwe-sender-key')]) : ze;
  return concatKdf(z, i.alg, i.apu, i.apv, KEK_BITS, i.alg === 'ECDH-1PU+A256KW' ? i.tag : undefined);
}
