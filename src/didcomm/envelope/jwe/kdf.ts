// Key-encryption keys for ECDH-ES+A256KW (RFC 7518 §4.6.2) and ECDH-1PU+A256KW
// (draft-madden-jose-ecdh-1pu-04 §2.3): the Concat KDF of NIST SP 800-56A §5.8.1 with SHA-256 over
// the shared secret Z and OtherInfo = AlgorithmID || PartyUInfo || PartyVInfo || SuppPubInfo, each
// datum a 32-bit big-endian length and its bytes. ECDH-1PU in key-wrapping mode appends the
// content's authentication tag to SuppPubInfo, length-prefixed (1PU-04 §2.3), so the wrapped key
// binds the ciphertext and the sender cannot be swapped.
import { hash } from 'node:crypto';
import { sharedSecret, staticSharedSecret, type EngineKey } from '../key-objects.js';

export type KeyWrapAlg = 'ECDH-ES+A256KW' | 'ECDH-1PU+A256KW';

/** A256KW wraps with a 256-bit key, whatever the curve. */
const KEK_BITS = 256;

/**
 * AlgorithmID || PartyUInfo || PartyVInfo, each length-prefixed: the part of OtherInfo that is
 * the same for every recipient of a message (and, for a sender, of every message to the same
 * recipients), so it is built once.
 */
export function partyInfo(alg: string, apu: Uint8Array, apv: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(12 + alg.length + apu.length + apv.length);
  let at = out.writeUInt32BE(alg.length, 0);
  at += out.write(alg, at, 'latin1');
  at = out.writeUInt32BE(apu.length, at);
  out.set(apu, at);
  at = out.writeUInt32BE(apv.length, at + apu.length);
  out.set(apv, at);
  return out;
}

/** Concat KDF (SP 800-56A §5.8.1), SHA-256, `bits` of output; `info` from partyInfo(). */
export function concatKdf(z: Uint8Array, info: Uint8Array, bits: number, ccTag?: Uint8Array): Buffer {
  // counter || Z || OtherInfo in one buffer, hashed in one call: SuppPubInfo is keydatalen,
  // then (ECDH-1PU key wrapping) the length-prefixed tag.
  const input = Buffer.allocUnsafe(4 + z.length + info.length + 4 + (ccTag ? 4 + ccTag.length : 0));
  input.set(z, 4);
  input.set(info, 4 + z.length);
  let at = input.writeUInt32BE(bits, 4 + z.length + info.length);
  if (ccTag) {
    at = input.writeUInt32BE(ccTag.length, at);
    input.set(ccTag, at);
  }
  const rounds = Math.ceil(bits / 256);
  const out: Buffer[] = [];
  for (let i = 1; i <= rounds; i++) {
    input.writeUInt32BE(i, 0);
    out.push(hash('sha256', input, 'buffer'));
  }
  // The input holds a copy of Z (and of the static Zs for ECDH-1PU), in a slice of the shared
  // allocUnsafe pool: cleared like the caller's own copies.
  input.fill(0, 4, 4 + z.length);
  return rounds === 1 ? out[0]!.subarray(0, bits / 8) : Buffer.concat(out).subarray(0, bits / 8);
}

export interface KekInput {
  alg: KeyWrapAlg;
  /** Ours: the ephemeral private key when encrypting, the recipient's when decrypting. */
  own: EngineKey;
  /** Theirs: the recipient's public key when encrypting, the epk when decrypting. */
  peer: EngineKey;
  /** ECDH-1PU only: Zs = ECDH(sender private, recipient public) when encrypting, ECDH(recipient private, sender public) when decrypting. */
  staticPair?: { own: EngineKey; peer: EngineKey };
  /** partyInfo(alg, apu, apv). */
  info: Uint8Array;
  /** ECDH-1PU only: the JWE authentication tag. */
  tag?: Uint8Array;
}

/** The key-encryption key of one recipient: Z = Ze (ECDH-ES) or Ze || Zs (ECDH-1PU §2.2). */
export function deriveKek(i: KekInput): Buffer {
  const ze = sharedSecret(i.own, i.peer, 'envelope.jwe-epk-public');
  let z: Buffer = ze;
  try {
    if (i.staticPair) z = Buffer.concat([ze, staticSharedSecret(i.staticPair.own, i.staticPair.peer, 'envelope.jwe-sender-key')]);
    return concatKdf(z, i.info, KEK_BITS, i.alg === 'ECDH-1PU+A256KW' ? i.tag : undefined);
  } finally {
    // Ze (and Ze || Zs) serve this one key: zeroed, not left to the collector, also when the
    // static agreement is refused. Zs is kept (staticSharedSecret).
    ze.fill(0);
    z.fill(0);
  }
}
