// Byte and text encodings shared by every layer: base64url (RFC 4648 §5, no padding),
// UTF-8, JSON Canonicalization Scheme (RFC 8785), base58btc multibase and SHA-256 multihash.
import { createHash, randomBytes } from 'node:crypto';
import canonicalizeImport from 'canonicalize';
import { IdsyncError } from './errors.js';

const canonicalize = canonicalizeImport as unknown as (value: unknown) => string | undefined;

export const utf8 = {
  encode: (s: string): Uint8Array => new TextEncoder().encode(s),
  decode: (b: Uint8Array): string => new TextDecoder().decode(b),
};

export function b64uEncode(data: Uint8Array | string): string {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return bytes.toString('base64url');
}

const B64U = /^[A-Za-z0-9_-]*={0,2}$/;

export function b64uDecode(s: string): Uint8Array {
  // Accept standard base64 too (some agents pad or use +/): be liberal in what we accept.
  const normal = s.replace(/\+/g, '-').replace(/\//g, '_');
  if (!B64U.test(normal)) throw new IdsyncError('invalid_encoding', 'not base64url');
  return new Uint8Array(Buffer.from(normal.replace(/=+$/, ''), 'base64url'));
}

export function b64uDecodeText(s: string): string {
  return utf8.decode(b64uDecode(s));
}

/** RFC 8785 JSON Canonicalization Scheme. */
export function jcs(value: unknown): string {
  const out = canonicalize(value);
  if (out === undefined) throw new IdsyncError('invalid_json', 'value cannot be canonicalized');
  return out;
}

export function sha256(data: Uint8Array | string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest());
}

/** SHA-256 multihash: 0x12 (sha2-256), 0x20 (32 bytes), digest. */
export function sha256Multihash(data: Uint8Array | string): Uint8Array {
  const digest = sha256(data);
  const out = new Uint8Array(34);
  out[0] = 0x12;
  out[1] = 0x20;
  out.set(digest, 2);
  return out;
}

export function randomId(bytes = 16): string {
  return b64uEncode(randomBytes(bytes));
}

// base58btc (Bitcoin alphabet), used by multibase 'z'.
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const ALPHABET_MAP = new Map([...ALPHABET].map((c, i) => [c, i]));

export function base58btcEncode(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const digits: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i];
    for (let j = 0; j < digits.length; j++) {
      carry += digits[j] << 8;
      digits[j] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = (carry / 58) | 0;
    }
  }
  return '1'.repeat(zeros) + digits.reverse().map((d) => ALPHABET[d]).join('');
}

export function base58btcDecode(s: string): Uint8Array {
  let zeros = 0;
  while (zeros < s.length && s[zeros] === '1') zeros++;
  const bytes: number[] = [];
  for (let i = zeros; i < s.length; i++) {
    const value = ALPHABET_MAP.get(s[i]);
    if (value === undefined) throw new IdsyncError('invalid_encoding', 'not base58btc');
    let carry = value;
    for (let j = 0; j < bytes.length; j++) {
      carry += bytes[j] * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  const out = new Uint8Array(zeros + bytes.length);
  out.set(bytes.reverse(), zeros);
  return out;
}

/** Multibase with the base58btc prefix 'z'. */
export function multibaseEncode(bytes: Uint8Array): string {
  return 'z' + base58btcEncode(bytes);
}

export function multibaseDecode(s: string): Uint8Array {
  if (!s.startsWith('z')) throw new IdsyncError('invalid_encoding', 'only base58btc multibase (z…) is supported');
  return base58btcDecode(s.slice(1));
}
