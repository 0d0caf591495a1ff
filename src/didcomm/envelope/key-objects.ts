// JWKs ↔ the keys the native engine computes with: the curves of DIDComm v2 key agreement
// (§Curves and Content Encryption Algorithms: X25519, P-256, P-384, P-521) and of its signatures
// (§Message Signing: Ed25519, P-256, secp256k1). X25519 and Ed25519 keys are raw bytes when
// libsodium is the provider (src/crypto/: it agrees and signs in about half OpenSSL 3.0's time),
// node:crypto KeyObjects otherwise; NIST and secp256k1 keys are always KeyObjects, ECDH and
// ECDSA in OpenSSL. Importing an EC JWK there checks that the point is on the curve, which the
// spec requires of every received NIST key ("invalid curve" attacks).
import { createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { cryptoProvider } from '../../crypto/provider.js';
import { x25519, x25519KeyPair } from '../../crypto/x25519.js';
import { malformed } from './refusal.js';

export type AgreementCurve = 'X25519' | 'P-256' | 'P-384' | 'P-521';
export type SigningCurve = 'Ed25519' | 'P-256' | 'secp256k1';
export type Curve = AgreementCurve | SigningCurve;

/** DIDComm v2 §Key Wrapping Algorithms: the epk curves of ECDH-ES+A256KW and ECDH-1PU+A256KW. */
export const AGREEMENT_CURVES: readonly AgreementCurve[] = ['X25519', 'P-256', 'P-384', 'P-521'];

const KTY: Record<Curve, 'OKP' | 'EC'> = {
  X25519: 'OKP',
  Ed25519: 'OKP',
  'P-256': 'EC',
  'P-384': 'EC',
  'P-521': 'EC',
  secp256k1: 'EC',
};

/** The curve of a JWK we can use (kty and crv agree), else undefined. */
export function curveOf(jwk: unknown): Curve | undefined {
  if (typeof jwk !== 'object' || jwk === null) return undefined;
  const { kty, crv } = jwk as { kty?: unknown; crv?: unknown };
  if (typeof crv !== 'string' || !(crv in KTY)) return undefined;
  return KTY[crv as Curve] === kty ? (crv as Curve) : undefined;
}

export function isAgreementCurve(c: Curve | undefined): c is AgreementCurve {
  return c !== undefined && (AGREEMENT_CURVES as readonly string[]).includes(c);
}

/** An X25519 or Ed25519 key as its 32 raw bytes: the public key, or the private key (RFC 7748 scalar, RFC 8032 seed). */
export interface RawKey {
  readonly crv: 'X25519' | 'Ed25519';
  readonly raw: Buffer;
  readonly isPrivate: boolean;
}

/** A key as the engine holds it. */
export type EngineKey = KeyObject | RawKey;

export function isRawKey(k: EngineKey): k is RawKey {
  return (k as Partial<RawKey>).raw !== undefined;
}

/**
 * Ed25519 keys are always raw bytes: src/crypto/ed25519.ts is the one place that verifies them,
 * with the checks both providers must make (OpenSSL alone accepts small-order keys). X25519 keys
 * are raw only where libsodium computes with them; node:crypto agrees on KeyObjects (its all-zero
 * check below refuses the low-order points).
 */
const RAW_X25519 = cryptoProvider === 'libsodium';

/** The raw key of an X25519/Ed25519 JWK member (what node:crypto's JWK import accepts: base64url of 32 bytes), else undefined. */
function rawMember(jwk: Record<string, unknown>, member: 'x' | 'd'): Buffer | undefined {
  const v = jwk[member];
  if (typeof v !== 'string') return undefined;
  const raw = Buffer.from(v, 'base64url');
  return raw.length === 32 ? raw : undefined;
}

function rawCurve(jwk: Record<string, unknown>): RawKey['crv'] | undefined {
  if (jwk.kty !== 'OKP') return undefined;
  return jwk.crv === 'Ed25519' || (RAW_X25519 && jwk.crv === 'X25519') ? jwk.crv : undefined;
}

function publicMembers(jwk: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
  if (jwk.kty === 'EC') out.y = jwk.y;
  return out;
}

// Keys of DID documents recur in every message: the normalised documents (adapters.ts) are
// memoised, so their JWK objects are stable and key the cache; private JWKs likewise come back as
// the same object from the secrets sources. Nothing secret is ever a map key. An entry also
// records the members it was made from and serves only while the JWK still has them: a JWK
// object changed in place (a secret rotated by assignment) makes a new key, never the old one.
interface Kept {
  kty: unknown;
  crv: unknown;
  x: unknown;
  y: unknown;
  d: unknown;
  key: EngineKey;
}
const publicByJwk = new WeakMap<object, Kept>();
const privateByJwk = new WeakMap<object, Kept>();

function keptFor(cache: WeakMap<object, Kept>, jwk: Record<string, unknown>): EngineKey | undefined {
  const k = cache.get(jwk);
  return k && k.x === jwk.x && k.y === jwk.y && k.d === jwk.d && k.crv === jwk.crv && k.kty === jwk.kty ? k.key : undefined;
}

function keep(cache: WeakMap<object, Kept>, jwk: Record<string, unknown>, key: EngineKey): void {
  cache.set(jwk, { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, d: jwk.d, key });
}

/** The public key of a JWK (kept per JWK object unless `keep` is false); an unusable one (bad encoding, point off the curve) is 'didcomm_malformed'. */
export function publicKeyOf(jwk: Record<string, unknown>, what: string, rule: string, kept = true): EngineKey {
  let key = kept ? keptFor(publicByJwk, jwk) : undefined;
  if (key) return key;
  const crv = rawCurve(jwk);
  if (crv) {
    const raw = rawMember(jwk, 'x');
    if (!raw) throw malformed(rule, `${what} is not a usable ${crv} public key`);
    key = { crv, raw, isPrivate: false };
  } else {
    try {
      key = createPublicKey({ key: publicMembers(jwk) as never, format: 'jwk' });
    } catch {
      throw malformed(rule, `${what} is not a usable ${String(jwk.crv)} public key`);
    }
  }
  if (kept) keep(publicByJwk, jwk, key);
  return key;
}

/** The private key of a secret's JWK. The message never names key material. */
export function privateKeyOf(jwk: Record<string, unknown>, kid: string): EngineKey {
  let key = keptFor(privateByJwk, jwk);
  if (key) return key;
  const crv = rawCurve(jwk);
  if (crv) {
    // node:crypto's import wants x to be a string, and builds the key from d alone; so does this.
    const raw = rawMember(jwk, 'd');
    if (!raw || typeof jwk.x !== 'string') throw malformed('envelope.secret', `the secret of ${kid} is not a usable ${crv} private key`);
    key = { crv, raw, isPrivate: true };
  } else {
    try {
      const members: Record<string, unknown> = { ...publicMembers(jwk), d: jwk.d };
      key = createPrivateKey({ key: members as never, format: 'jwk' });
    } catch {
      throw malformed('envelope.secret', `the secret of ${kid} is not a usable ${String(jwk.crv)} private key`);
    }
  }
  keep(privateByJwk, jwk, key);
  return key;
}

/** A fresh ephemeral key pair on `curve` and its public JWK in the member order peers see today. */
export function ephemeralKey(curve: AgreementCurve): { privateKey: EngineKey; jwk: Record<string, string> } {
  if (RAW_X25519 && curve === 'X25519') {
    const pair = x25519KeyPair();
    return { privateKey: { crv: curve, raw: pair.privateKey, isPrivate: true }, jwk: { crv: curve, kty: 'OKP', x: pair.publicKey.toString('base64url') } };
  }
  // The public key straight as a JWK (node:crypto takes format 'jwk' here since Node 15.9; the
  // typings lack it): no KeyObject for it, which the message never uses.
  const generate = generateKeyPairSync as unknown as (type: 'x25519' | 'ec', options: object) => { privateKey: KeyObject; publicKey: Record<string, string> };
  const publicKeyEncoding = { format: 'jwk' };
  const { privateKey, publicKey: exported } = curve === 'X25519' ? generate('x25519', { publicKeyEncoding }) : generate('ec', { namedCurve: curve, publicKeyEncoding });
  const jwk: Record<string, string> = { crv: curve, kty: KTY[curve], x: exported.x! };
  if (exported.y !== undefined) jwk.y = exported.y;
  return { privateKey, jwk };
}

// Static-static agreement (ECDH-1PU's Zs, sender key × recipient key) gives the same value for
// every message between the same two keys: it is kept per key pair, like the private keys
// themselves, and saves one scalar multiplication per recipient on each side of an authcrypt.
const staticSecrets = new WeakMap<EngineKey, WeakMap<EngineKey, Buffer>>();

/** sharedSecret for two long-lived keys, computed once per pair of key objects. */
export function staticSharedSecret(privateKey: EngineKey, publicKey: EngineKey, rule: string): Buffer {
  let byPeer = staticSecrets.get(privateKey);
  if (!byPeer) staticSecrets.set(privateKey, (byPeer = new WeakMap()));
  let z = byPeer.get(publicKey);
  if (!z) byPeer.set(publicKey, (z = sharedSecret(privateKey, publicKey, rule)));
  return z;
}

/** ECDH shared secret Z (RFC 7748 §6.1 / SEC 1 §3.3.1); an all-zero X25519 result is refused. */
export function sharedSecret(privateKey: EngineKey, publicKey: EngineKey, rule: string): Buffer {
  if (isRawKey(privateKey) || isRawKey(publicKey)) return rawSharedSecret(privateKey, publicKey, rule);
  let z: Buffer;
  try {
    z = diffieHellman({ privateKey, publicKey });
  } catch {
    throw malformed(rule, 'key agreement failed (keys on different curves, or a low-order point)');
  }
  // RFC 7748 §6.1: a peer may check for the all-zero value, and abort if so.
  if (z.every((b) => b === 0)) throw malformed(rule, 'key agreement gave the all-zero value (RFC 7748 §6.1)');
  return z;
}

/** sharedSecret() in libsodium: both keys raw X25519, ours private, theirs public. */
function rawSharedSecret(privateKey: EngineKey, publicKey: EngineKey, rule: string): Buffer {
  const fits = isRawKey(privateKey) && isRawKey(publicKey) && privateKey.crv === 'X25519' && publicKey.crv === 'X25519' && privateKey.isPrivate && !publicKey.isPrivate;
  if (!fits) throw malformed(rule, 'key agreement failed (keys on different curves, or a low-order point)');
  // libsodium returns -1 for a low-order public key and for the all-zero value (RFC 7748 §6.1).
  const z = x25519(privateKey.raw, publicKey.raw);
  if (!z) throw malformed(rule, 'key agreement failed: a low-order point, or the all-zero value (RFC 7748 §6.1)');
  return z;
}

/** Zeroes a private key used once (the ephemeral key of a JWE) where its bytes are ours to reach: raw keys, not KeyObjects. */
export function discardKey(key: EngineKey): void {
  if (isRawKey(key) && key.isPrivate) key.raw.fill(0);
}
