// Content encryption of the native engine against @noble/ciphers' XChaCha20-Poly1305 (a library
// we did not write): libsodium's, or the HChaCha20 subkey plus OpenSSL's ChaCha20-Poly1305
// (IDSYNC_CRYPTO=node), gives the same bytes, and each side opens what the other sealed.
import { randomBytes } from 'node:crypto';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTENT_CIPHERS, freshKeyAndIv } from '../../src/didcomm/envelope/jwe/content.js';

describe('XC20P (XChaCha20-Poly1305)', () => {
  const x = CONTENT_CIPHERS.XC20P;

  it('seals exactly as @noble/ciphers does, and opens what it seals', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.uint8Array({ maxLength: 200 }), (plain, aadBytes) => {
        const key = randomBytes(32);
        const iv = randomBytes(24);
        const aad = Buffer.from(aadBytes);
        const ours = x.encrypt(key, iv, Buffer.from(plain), aad);
        const theirs = xchacha20poly1305(key, iv, aad).encrypt(plain);
        expect(Buffer.concat([ours.ciphertext, ours.tag])).toEqual(Buffer.from(theirs));
        expect(x.decrypt(key, iv, ours.ciphertext, ours.tag, aad)).toEqual(Buffer.from(plain));
        expect(Buffer.from(xchacha20poly1305(key, iv, aad).decrypt(Buffer.concat([ours.ciphertext, ours.tag])))).toEqual(Buffer.from(plain));
      }),
      { numRuns: 100 },
    );
  });

  it('refuses a changed tag, ciphertext or AAD', () => {
    const key = randomBytes(32);
    const iv = randomBytes(24);
    const { ciphertext, tag } = x.encrypt(key, iv, Buffer.from('hello'), Buffer.from('aad'));
    const flip = (b: Buffer) => Buffer.from(b.map((v, i) => (i === 0 ? v ^ 1 : v)));
    expect(x.decrypt(key, iv, ciphertext, flip(tag), Buffer.from('aad'))).toBeUndefined();
    expect(x.decrypt(key, iv, flip(ciphertext), tag, Buffer.from('aad'))).toBeUndefined();
    expect(x.decrypt(key, iv, ciphertext, tag, Buffer.from('aaD'))).toBeUndefined();
  });
});

describe('fresh content keys and IVs', () => {
  it('never hand out the same key or IV twice, across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const { cek, iv } = freshKeyAndIv(CONTENT_CIPHERS['A256CBC-HS512']);
      expect(cek).toHaveLength(64);
      expect(iv).toHaveLength(16);
      for (const b of [cek, iv]) {
        const k = b.toString('hex');
        expect(seen.has(k)).toBe(false);
        seen.add(k);
      }
    }
  });
});
