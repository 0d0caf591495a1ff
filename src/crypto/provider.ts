// Which library does the Ed25519, X25519 and XChaCha20-Poly1305 arithmetic: libsodium through
// sodium-native (N-API, prebuilt for the common platforms) where it loads, else node:crypto.
// On Node 20's OpenSSL 3.0, an Ed25519 signature costs ~41 µs against libsodium's ~24, a
// verification ~113 against ~59, an X25519 key pair ~43 against ~18 and an X25519 agreement ~38
// against ~31; node:crypto has no XChaCha20-Poly1305 at all. IDSYNC_CRYPTO=node forces
// node:crypto (tests run both); a platform without a sodium-native build gets it too.
import { createRequire } from 'node:module';

export type CryptoProvider = 'libsodium' | 'node:crypto';

/** The part of sodium-native's API this project calls (its own names; buffers are written in place). */
export interface Sodium {
  crypto_sign_seed_keypair(publicKey: Uint8Array, secretKey: Uint8Array, seed: Uint8Array): void;
  crypto_sign_detached(signature: Uint8Array, message: Uint8Array, secretKey: Uint8Array): void;
  crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
  crypto_scalarmult_base(publicKey: Uint8Array, privateKey: Uint8Array): void;
  /** Throws when libsodium returns -1: a low-order point, or an all-zero result. */
  crypto_scalarmult(shared: Uint8Array, privateKey: Uint8Array, publicKey: Uint8Array): void;
  crypto_aead_xchacha20poly1305_ietf_encrypt_detached(c: Uint8Array, mac: Uint8Array, m: Uint8Array, ad: Uint8Array | null, nsec: null, npub: Uint8Array, k: Uint8Array): number;
  /** Throws when the tag does not verify. */
  crypto_aead_xchacha20poly1305_ietf_decrypt_detached(m: Uint8Array, nsec: null, c: Uint8Array, mac: Uint8Array, ad: Uint8Array | null, npub: Uint8Array, k: Uint8Array): void;
  randombytes_buf(buffer: Uint8Array): void;
  sodium_memzero(buffer: Uint8Array): void;
}

/**
 * sodium-native unless `env.IDSYNC_CRYPTO` is 'node' or it does not load (no build for this
 * platform, a failed install): the provider is then node:crypto, and nothing else changes.
 */
export function loadSodium(env: NodeJS.ProcessEnv = process.env, load: () => unknown = () => createRequire(import.meta.url)('sodium-native')): Sodium | undefined {
  if (env.IDSYNC_CRYPTO === 'node') return undefined;
  try {
    const s = load() as Partial<Sodium> | undefined;
    return typeof s?.crypto_sign_detached === 'function' && typeof s.crypto_scalarmult === 'function' ? (s as Sodium) : undefined;
  } catch {
    return undefined;
  }
}

/** Chosen once per process, at import: keys and caches made by one provider are never handed to the other. */
export const sodium: Sodium | undefined = loadSodium();

export const cryptoProvider: CryptoProvider = sodium ? 'libsodium' : 'node:crypto';
