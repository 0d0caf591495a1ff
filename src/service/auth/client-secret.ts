// Client secrets are stored as scrypt hashes (RFC 7914) with a random salt and compared in
// constant time; the secret itself is never stored or logged.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { b64uDecode, b64uEncode } from '../../encoding.js';

const N = 16384;
const R = 8;
const P = 1;
const KEY_LEN = 32;

function scrypt(secret: string, salt: Uint8Array, keyLen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(secret, salt, keyLen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$<salt>$<hash>` (base64url). */
export async function hashClientSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(secret, salt, KEY_LEN, { N, r: R, p: P });
  return ['scrypt', N, R, P, b64uEncode(salt), b64uEncode(hash)].join('$');
}

// Used when the client id is unknown, so that the answer takes as long as for a known one.
const DUMMY = `scrypt$${N}$${R}$${P}$${b64uEncode(new Uint8Array(16))}$${b64uEncode(new Uint8Array(KEY_LEN))}`;

/** True when `secret` matches `stored`; a missing or malformed `stored` gives false (after the same work). */
export async function verifyClientSecret(secret: string, stored: string | undefined): Promise<boolean> {
  const parts = (stored ?? DUMMY).split('$');
  const valid = stored !== undefined && parts.length === 6 && parts[0] === 'scrypt';
  const [, n, r, p, salt, hash] = valid ? parts : DUMMY.split('$');
  let expected: Uint8Array;
  let actual: Buffer;
  try {
    expected = b64uDecode(hash);
    actual = await scrypt(secret, b64uDecode(salt), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  } catch {
    return false;
  }
  return valid && actual.length === expected.length && timingSafeEqual(actual, expected);
}
