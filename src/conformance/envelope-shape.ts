// What kind of DIDComm message a JSON value is, by its members (DIDComm v2.1 §Message Formats):
// a JWE (any JWE member), a JWS (a payload or signatures), or a plaintext message (any plaintext
// header and no JOSE member), so that a message with faults is still judged as what it tries to be:
// a plaintext without `type` is a plaintext with a missing type, not "not a DIDComm message".
import type { EnvelopeMode } from '../didcomm/types.js';
import { b64uDecodeText } from '../encoding.js';

export type EnvelopeShape = 'encrypted' | 'signed' | 'plaintext' | 'unknown';

export const AUTHCRYPT_ALG = 'ECDH-1PU+A256KW';
export const ANONCRYPT_ALG = 'ECDH-ES+A256KW';

// RFC 7516 §7.2.1 and §7.2.2 (General and Flattened JWE JSON serialization).
const JWE_MEMBERS = ['ciphertext', 'iv', 'tag', 'recipients', 'encrypted_key', 'unprotected', 'aad'];
// RFC 7515 §7.2.1 and §7.2.2.
const JWS_MEMBERS = ['payload', 'signatures', 'signature'];
// DIDComm v2.1 §Message Headers, §Attachments.
const PLAINTEXT_MEMBERS = ['id', 'type', 'typ', 'body', 'from', 'to', 'thid', 'pthid', 'created_time', 'expires_time', 'attachments', 'from_prior'];

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What kind of JSON structure a packed message is, by its members. */
export function envelopeShape(value: unknown): EnvelopeShape {
  if (!isObject(value)) return 'unknown';
  if (JWE_MEMBERS.some((k) => k in value)) return 'encrypted';
  if (JWS_MEMBERS.some((k) => k in value)) return 'signed';
  if (PLAINTEXT_MEMBERS.some((k) => k in value)) return 'plaintext';
  return 'unknown';
}

/** A protected header: base64url of a JSON object, else null. */
export function decodeHeader(protectedB64: unknown): Record<string, unknown> | null {
  if (typeof protectedB64 !== 'string') return null;
  try {
    const h = JSON.parse(b64uDecodeText(protectedB64));
    return isObject(h) ? h : null;
  } catch {
    return null;
  }
}

/** base64url as RFC 7515 §2 defines it: the URL-safe alphabet, no padding. */
export function isBase64url(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  // A ciphertext is kilobytes: decoding and encoding again (native code) costs less than the
  // pattern, and gives `value` back only when it is canonical base64url, which the pattern
  // accepts (a length of 4n + 1 never encodes bytes). Anything else is judged by the pattern.
  if (value.length > 512 && Buffer.from(value, 'base64url').toString('base64url') === value) return true;
  return /^[A-Za-z0-9_-]*$/.test(value) && value.length % 4 !== 1;
}

/** The envelope mode as far as the outer layer shows it (for logging what could not be opened). */
export function outerMode(packed: string): EnvelopeMode {
  let value: unknown;
  try {
    value = JSON.parse(packed);
  } catch {
    return 'plaintext';
  }
  const shape = envelopeShape(value);
  if (shape === 'signed') return 'signed';
  if (shape !== 'encrypted') return 'plaintext';
  return decodeHeader((value as Record<string, unknown>).protected)?.alg === AUTHCRYPT_ALG ? 'authcrypt' : 'anoncrypt';
}
