// Byte and text encodings shared by every layer: base64url (RFC 4648 §5, no padding),
// UTF-8, JSON Canonicalization Scheme (RFC 8785), base58btc multibase and SHA-256 multihash.
import { createHash, randomBytes } from 'node:crypto';
import { IdsyncError } from './errors.js';

// One of each, shared: without `stream`, every encode() and decode() call stands alone, and making
// a TextDecoder costs more than decoding a short header.
const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

export const utf8 = {
  encode: (s: string): Uint8Array => textEncoder.encode(s),
  decode: (b: Uint8Array): string => textDecoder.decode(b),
};

export function b64uEncode(data: Uint8Array | string): string {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return bytes.toString('base64url');
}

const B64U = /^[A-Za-z0-9_-]*={0,2}$/;

/** The bytes of base64url `s` in a Buffer (often a view of Node's shared pool: copy before handing it out). */
function b64uBuffer(s: string): Buffer {
  // Node decodes leniently (it skips characters outside the alphabet), so its answer is taken as
  // it is only when the bytes encode back to `s`: then `s` is unpadded base64url, the form we
  // and DIDComm write, and the path below would decode it to the same bytes. That costs less
  // than testing a few KB of protected header or did:ion suffix data against a pattern first.
  const fast = Buffer.from(s, 'base64url');
  if (fast.toString('base64url') === s) return fast;
  // Accept standard base64 too (some agents pad or use +/): be liberal in what we accept.
  const normal = s.replace(/\+/g, '-').replace(/\//g, '_');
  if (!B64U.test(normal)) throw new IdsyncError('invalid_encoding', 'not base64url');
  return Buffer.from(normal.replace(/=+$/, ''), 'base64url');
}

export function b64uDecode(s: string): Uint8Array {
  return new Uint8Array(b64uBuffer(s));
}

export function b64uDecodeText(s: string): string {
  return textDecoder.decode(b64uBuffer(s));
}

/**
 * RFC 8785 JSON Canonicalization Scheme: members sorted by UTF-16 code units, ECMAScript number
 * and string serialization (§3.2.2). The output of the `canonicalize` package, byte for byte
 * (test/encoding.test.ts checks it on generated values), made with one array of parts per call
 * and native well-formedness checks instead of concatenated strings and a loop over every
 * character: it hashes every did:ion long form (a few KB) each time one is resolved. Throws
 * invalid_json for NaN, Infinity, a lone surrogate or a cycle.
 */
export function jcs(value: unknown): string {
  const out: string[] = [];
  try {
    if (!jcsInto(value, out, new Set())) throw new Error('not a JSON value');
  } catch (err) {
    throw new IdsyncError('invalid_json', `value cannot be canonicalized: ${(err as Error).message}`, { cause: err });
  }
  return out.join('');
}

/** No lone surrogate (ES2024 String.prototype.isWellFormed, in Node 20; the TypeScript lib here predates it). */
const wellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed();

function inCodeUnitOrder(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return false;
  return true;
}

/** Appends the JCS text of `value`; false (nothing appended) for what JSON has no text for (undefined, a function). */
function jcsInto(value: unknown, out: string[], seen: Set<object>): boolean {
  switch (typeof value) {
    case 'string':
      if (!wellFormed(value)) throw new Error('Lone surrogate is not allowed');
      out.push(JSON.stringify(value));
      return true;
    case 'number':
      if (!Number.isFinite(value)) throw new Error(Number.isNaN(value) ? 'NaN is not allowed' : 'Infinity is not allowed');
      out.push(JSON.stringify(value));
      return true;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return true;
    case 'object':
      break;
    case 'bigint':
      // As JSON.stringify: a BigInt has no JSON form.
      throw new TypeError('Do not know how to serialize a BigInt');
    default:
      return false; // undefined, function, symbol
  }
  if (value === null) {
    out.push('null');
    return true;
  }
  if (seen.has(value)) throw new Error('Circular reference detected');
  seen.add(value);
  try {
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return jcsInto((value as { toJSON(): unknown }).toJSON(), out, seen);
    if (Array.isArray(value)) {
      out.push('[');
      for (let i = 0; i < value.length; i++) {
        if (i > 0) out.push(',');
        const item: unknown = value[i];
        if (item === undefined || typeof item === 'symbol' || !jcsInto(item, out, seen)) out.push('null');
      }
      out.push(']');
      return true;
    }
    out.push('{');
    let first = true;
    const keys = Object.keys(value);
    // Most values canonicalised come in order already: sort() would copy their keys all the same.
    if (!inCodeUnitOrder(keys)) keys.sort();
    for (const key of keys) {
      const member: unknown = (value as Record<string, unknown>)[key];
      if (member === undefined || typeof member === 'symbol' || typeof member === 'function') continue;
      if (!wellFormed(key)) throw new Error('Lone surrogate is not allowed');
      out.push(first ? '' : ',', JSON.stringify(key), ':');
      first = false;
      jcsInto(member, out, seen);
    }
    out.push('}');
    return true;
  } finally {
    seen.delete(value);
  }
}

/**
 * The first `chars` characters of JSON.stringify(value), without stringifying all of it when
 * its first members already fill them: a message's head in the message log is its first 200
 * characters, and a forwarded message carries kilobytes of attachment after its headers. The
 * members are written as JSON.stringify writes them (own keys in order, members whose value
 * JSON leaves out skipped); anything but a plain object is stringified whole.
 */
export function jsonPrefix(value: unknown, chars: number): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return (JSON.stringify(value) ?? '').slice(0, chars);
  }
  let out = '{';
  let first = true;
  for (const key of Object.keys(value)) {
    const member = JSON.stringify((value as Record<string, unknown>)[key]);
    if (member === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${member}`;
    first = false;
    if (out.length >= chars) return out.slice(0, chars);
  }
  return `${out}}`.slice(0, chars);
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
// Base conversion runs on limbs far wider than one digit, so that each pass of the carry does the
// work of several: a limb holds five base58 digits (58^5 < 2^30) and the input goes in two bytes at a
// time, or the other way round a limb holds two bytes and the input goes in five digits at a time.
// Every intermediate (limb × 2^16 + carry, limb × 58^5 + carry) stays below 2^53, exact in a double;
// a quotient's rounding cannot reach the next integer since the remainder's share is at least 1/58^5
// below it and the quotient under 2^17. An Ed25519 signature (64 bytes) costs ~300 limb steps instead
// of ~2,800 digit steps, and eddsa-rdfc-2022 writes one per credential.
const DIGITS_PER_LIMB = 5;
const LIMB58 = 58 ** DIGITS_PER_LIMB;
const POW58 = [1, 58, 58 ** 2, 58 ** 3, 58 ** 4, LIMB58];

export function base58btcEncode(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // ceil(n × log(256)/log(58^5)) limbs hold n bytes.
  const limbs = new Float64Array(Math.ceil(((bytes.length - zeros) * 8) / 29) + 1);
  let used = 0;
  for (let i = zeros; i < bytes.length; ) {
    // An odd count leaves one byte for the first step; every other step takes two.
    const take = (bytes.length - i) % 2 === 1 ? 1 : 2;
    let carry = take === 1 ? bytes[i] : (bytes[i] << 8) | bytes[i + 1];
    const scale = take === 1 ? 256 : 65536;
    i += take;
    for (let j = 0; j < used; j++) {
      const x = limbs[j] * scale + carry;
      carry = Math.floor(x / LIMB58);
      limbs[j] = x - carry * LIMB58;
    }
    while (carry > 0) {
      const q = Math.floor(carry / LIMB58);
      limbs[used++] = carry - q * LIMB58;
      carry = q;
    }
  }
  let out = '1'.repeat(zeros);
  for (let j = used - 1; j >= 0; j--) {
    let limb = limbs[j];
    let chunk = '';
    for (let k = 0; k < DIGITS_PER_LIMB; k++) {
      const q = Math.floor(limb / 58);
      chunk = ALPHABET[limb - q * 58] + chunk;
      limb = q;
    }
    // The most significant limb is written without its leading zero digits.
    out += j === used - 1 ? chunk.replace(/^1+/, '') : chunk;
  }
  return out;
}

export function base58btcDecode(s: string): Uint8Array {
  let zeros = 0;
  while (zeros < s.length && s[zeros] === '1') zeros++;
  // A limb holds two bytes; ceil(n × log(58)/log(2^16)) limbs hold n digits.
  const limbs = new Float64Array(Math.ceil(((s.length - zeros) * 5.858) / 16) + 1);
  let used = 0;
  for (let i = zeros; i < s.length; ) {
    const take = Math.min(DIGITS_PER_LIMB, s.length - i);
    let carry = 0;
    for (let k = 0; k < take; k++) {
      const value = ALPHABET_MAP.get(s[i + k]);
      if (value === undefined) throw new IdsyncError('invalid_encoding', 'not base58btc');
      carry = carry * 58 + value;
    }
    const scale = POW58[take];
    i += take;
    for (let j = 0; j < used; j++) {
      const x = limbs[j] * scale + carry;
      carry = Math.floor(x / 65536);
      limbs[j] = x - carry * 65536;
    }
    while (carry > 0) {
      const q = Math.floor(carry / 65536);
      limbs[used++] = carry - q * 65536;
      carry = q;
    }
  }
  let length = used * 2;
  // The most significant limb may hold one byte, not two.
  if (used > 0 && limbs[used - 1] < 256) length--;
  const out = new Uint8Array(zeros + length);
  for (let j = 0, at = out.length - 1; j < used; j++) {
    out[at--] = limbs[j] & 0xff;
    if (at >= zeros) out[at--] = limbs[j] >>> 8;
  }
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
