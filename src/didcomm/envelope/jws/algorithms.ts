// JWS algorithms of DIDComm v2 §Message Signing: EdDSA (Ed25519), ES256 (P-256), ES256K
// (secp256k1). ECDSA signs and verifies in OpenSSL through node:crypto; EdDSA (Ed25519 keys are
// always raw, key-objects.ts) goes through src/crypto/, libsodium or node:crypto with the same
// checks. ECDSA signatures are the raw R || S of RFC 7518 §3.4 (IEEE P1363).
import { sign as cryptoSign, verify as cryptoVerify } from 'node:crypto';
import { ed25519Sign, ed25519Verify } from '../../../crypto/ed25519.js';
import { isRawKey, type EngineKey, type SigningCurve } from '../key-objects.js';
import { malformed } from '../refusal.js';

export type SignAlg = 'EdDSA' | 'ES256' | 'ES256K';

export const SIGN_ALGS: readonly SignAlg[] = ['EdDSA', 'ES256', 'ES256K'];

export const CURVE_OF_ALG: Record<SignAlg, SigningCurve> = { EdDSA: 'Ed25519', ES256: 'P-256', ES256K: 'secp256k1' };

export function algOfCurve(curve: string | undefined): SignAlg | undefined {
  return (Object.keys(CURVE_OF_ALG) as SignAlg[]).find((a) => CURVE_OF_ALG[a] === curve);
}

export function isSignAlg(v: unknown): v is SignAlg {
  return typeof v === 'string' && (SIGN_ALGS as readonly string[]).includes(v);
}

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

// secp256k1 verifiers commonly refuse a high S (BIP 62 malleability rule), OpenSSL does not
// normalise it: sign with the low S so that every verifier accepts.
function lowS(sig: Buffer): Buffer {
  const s = BigInt(`0x${sig.subarray(32).toString('hex')}`);
  if (s <= SECP256K1_N / 2n) return sig;
  const out = Buffer.from(sig);
  Buffer.from((SECP256K1_N - s).toString(16).padStart(64, '0'), 'hex').copy(out, 32);
  return out;
}

export function signBytes(alg: SignAlg, key: EngineKey, data: Buffer): Buffer {
  if (isRawKey(key)) {
    // The engine picks the alg from the key's curve, so only a key mislabelled in its JWK lands here.
    if (alg !== 'EdDSA' || key.crv !== 'Ed25519' || !key.isPrivate) throw malformed('envelope.jws-alg', `${alg} cannot sign with a raw ${key.crv} key`);
    return ed25519Sign(key.raw, data);
  }
  if (alg === 'EdDSA') throw malformed('envelope.jws-alg', `EdDSA cannot sign with a ${String(key.asymmetricKeyType)} key`);
  const sig = cryptoSign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
  return alg === 'ES256K' ? lowS(sig) : sig;
}

export function verifyBytes(alg: SignAlg, key: EngineKey, data: Buffer, signature: Buffer): boolean {
  // RFC 7518 §3.4: an ES256/ES256K signature is exactly 64 bytes; RFC 8037 §3.1: Ed25519 is 64.
  if (signature.length !== 64) return false;
  if (isRawKey(key)) return alg === 'EdDSA' && key.crv === 'Ed25519' && !key.isPrivate && ed25519Verify(key.raw, data, signature);
  try {
    return alg !== 'EdDSA' && cryptoVerify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature);
  } catch {
    return false;
  }
}
