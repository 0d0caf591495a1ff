// Content encryption of a JWE (DIDComm v2 §Curves and Content Encryption Algorithms):
// A256CBC-HS512 (RFC 7518 §5.2.5) and A256GCM (RFC 7518 §5.3) in OpenSSL through node:crypto;
// XC20P (draft-amringer-jose-chacha-02: XChaCha20-Poly1305), which node:crypto lacks, through
// src/crypto/ (libsodium, else HChaCha20 from @noble/ciphers and ChaCha20-Poly1305 in OpenSSL).
// The AAD is ASCII(BASE64URL(protected header)) (RFC 7516 §5.1 step 14).
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { xchachaDecrypt, xchachaEncrypt } from '../../../crypto/xchacha20-poly1305.js';
import type { AnoncryptEnc } from '../../types.js';

export type ContentEnc = AnoncryptEnc;

export interface ContentCipher {
  keyBytes: number;
  ivBytes: number;
  tagBytes: number;
  encrypt(key: Buffer, iv: Buffer, plaintext: Buffer, aad: Buffer): { ciphertext: Buffer; tag: Buffer };
  /** The plaintext, or undefined when the tag does not verify. */
  decrypt(key: Buffer, iv: Buffer, ciphertext: Buffer, tag: Buffer, aad: Buffer): Buffer | undefined;
}

/** update() then final(), in one buffer; for the stream AEADs final() is empty, and no copy is made. */
function run(c: { update(b: Buffer): Buffer; final(): Buffer }, input: Buffer): Buffer {
  const head = c.update(input);
  const tail = c.final();
  return tail.length === 0 ? head : Buffer.concat([head, tail]);
}

// RFC 7518 §5.2.2.1: MAC over AAD || IV || ciphertext || AL, AL the AAD length in bits as 64-bit big-endian.
function cbcHmacTag(macKey: Buffer, aad: Buffer, iv: Buffer, ciphertext: Buffer): Buffer {
  const al = Buffer.alloc(8);
  al.writeBigUInt64BE(BigInt(aad.length) * 8n);
  return createHmac('sha512', macKey).update(aad).update(iv).update(ciphertext).update(al).digest().subarray(0, 32);
}

const A256CBC_HS512: ContentCipher = {
  keyBytes: 64,
  ivBytes: 16,
  tagBytes: 32,
  encrypt(key, iv, plaintext, aad) {
    // §5.2.5: MAC_KEY is the first 32 bytes of the key, ENC_KEY the last 32.
    const c = createCipheriv('aes-256-cbc', key.subarray(32), iv);
    const ciphertext = run(c, plaintext);
    return { ciphertext, tag: cbcHmacTag(key.subarray(0, 32), aad, iv, ciphertext) };
  },
  decrypt(key, iv, ciphertext, tag, aad) {
    if (tag.length !== 32) return undefined;
    // §5.2.2.2: the tag is checked before decryption, in constant time.
    if (!timingSafeEqual(cbcHmacTag(key.subarray(0, 32), aad, iv, ciphertext), tag)) return undefined;
    try {
      const d = createDecipheriv('aes-256-cbc', key.subarray(32), iv);
      return run(d, ciphertext);
    } catch {
      return undefined;
    }
  },
};

const A256GCM: ContentCipher = {
  keyBytes: 32,
  ivBytes: 12,
  tagBytes: 16,
  encrypt(key, iv, plaintext, aad) {
    const c = createCipheriv('aes-256-gcm', key, iv);
    c.setAAD(aad);
    const ciphertext = run(c, plaintext);
    return { ciphertext, tag: c.getAuthTag() };
  },
  decrypt(key, iv, ciphertext, tag, aad) {
    if (tag.length !== 16) return undefined;
    try {
      const d = createDecipheriv('aes-256-gcm', key, iv);
      d.setAAD(aad, { plaintextLength: ciphertext.length });
      d.setAuthTag(tag);
      return run(d, ciphertext);
    } catch {
      return undefined;
    }
  },
};

const XC20P: ContentCipher = {
  keyBytes: 32,
  ivBytes: 24,
  tagBytes: 16,
  encrypt: xchachaEncrypt,
  decrypt: xchachaDecrypt,
};

export const CONTENT_CIPHERS: Record<ContentEnc, ContentCipher> = { 'A256CBC-HS512': A256CBC_HS512, A256GCM, XC20P };

export function isContentEnc(v: unknown): v is ContentEnc {
  return typeof v === 'string' && Object.hasOwn(CONTENT_CIPHERS, v);
}

// CSPRNG bytes drawn from a pool (as node:crypto's randomUUID does): one call into OpenSSL per
// 4 KiB instead of one per message. Each byte is handed out once.
let pool = Buffer.alloc(0);
let used = 0;
function random(n: number): Buffer {
  if (used + n > pool.length) {
    pool = randomBytes(4096);
    used = 0;
  }
  const out = pool.subarray(used, used + n);
  used += n;
  return out;
}

/** A fresh content-encryption key and IV (DIDComm v2: "implementations MUST choose nonces securely"). */
export function freshKeyAndIv(c: ContentCipher): { cek: Buffer; iv: Buffer } {
  const bytes = random(c.keyBytes + c.ivBytes);
  return { cek: bytes.subarray(0, c.keyBytes), iv: bytes.subarray(c.keyBytes) };
}
