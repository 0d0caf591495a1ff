// A256KW (RFC 7518 §4.4): AES Key Wrap of RFC 3394 with its default IV, in OpenSSL through
// node:crypto ('id-aes256-wrap'). Unwrapping checks the integrity value, so a wrong key or a
// changed encrypted_key fails here.
import { createCipheriv, createDecipheriv } from 'node:crypto';

const IV = Buffer.from('A6A6A6A6A6A6A6A6', 'hex');

export function wrapKey(kek: Buffer, cek: Buffer): Buffer {
  const c = createCipheriv('id-aes256-wrap', kek, IV);
  return Buffer.concat([c.update(cek), c.final()]);
}

/** The unwrapped key, or undefined when the integrity check fails. */
export function unwrapKey(kek: Buffer, wrapped: Buffer): Buffer | undefined {
  if (wrapped.length < 24 || wrapped.length % 8 !== 0) return undefined;
  try {
    const d = createDecipheriv('id-aes256-wrap', kek, IV);
    return Buffer.concat([d.update(wrapped), d.final()]);
  } catch {
    return undefined;
  }
}
