// What every transport shares: the media type of a packed message (DIDComm v2 §3.2 "IANA
// media types"), judged from its JSON shape since transports never unpack, and URL schemes.
import { IdsyncError, isIdsyncError } from '../../errors.js';
import { MEDIA_TYPES } from '../types.js';

export type DidcommMediaType = (typeof MEDIA_TYPES)[keyof typeof MEDIA_TYPES];

const ALL = new Set<string>(Object.values(MEDIA_TYPES));

/**
 * The media type of a packed message: a JWE (`ciphertext`) is encrypted, a JWS (`signatures`)
 * is signed, any other JSON object is plaintext. Throws `transport_invalid_message` for
 * anything that is not a JSON object.
 */
export function detectMediaType(packed: string): DidcommMediaType {
  let json: unknown;
  try {
    json = JSON.parse(packed);
  } catch {
    throw new IdsyncError('transport_invalid_message', 'a packed DIDComm message must be JSON');
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    throw new IdsyncError('transport_invalid_message', 'a packed DIDComm message must be a JSON object');
  }
  if ('ciphertext' in json) return MEDIA_TYPES.encrypted;
  if ('signatures' in json || 'signature' in json) return MEDIA_TYPES.signed;
  return MEDIA_TYPES.plaintext;
}

/** The bare, lower-case media type of a Content-Type header (parameters dropped). */
export function bareMediaType(contentType: string | undefined | null): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** True for the three DIDComm v2 media types (the `application/` prefix may be omitted, RFC 0044). */
export function isDidcommMediaType(contentType: string | undefined | null): boolean {
  const t = bareMediaType(contentType);
  return ALL.has(t) || ALL.has(`application/${t}`);
}

/** The scheme of an endpoint URL without the colon ('http', 'ws', 'memory'). */
export function schemeOf(endpoint: string): string {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(endpoint);
  if (!m) throw new IdsyncError('unsupported_scheme', `not an endpoint URL: ${endpoint.slice(0, 200)}`);
  return m[1].toLowerCase();
}

/** Byte length of a string in UTF-8 (what size limits count). */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 1024 * 1024;

// Codes that mean the message, not the receiver, is at fault.
const BAD_INPUT = new Set(['didcomm_malformed', 'didcomm_unsupported', 'didcomm_invalid_argument', 'did_not_resolved', 'secret_not_found', 'transport_invalid_message']);

/**
 * The HTTP status an inbound handler's error maps to: a 4xx an IdsyncError names in
 * `details.status`, 400 for a bad message, 500 (code `internal_error`) for anything else.
 */
export function statusForHandlerError(err: unknown): { status: number; code: string; message: string } {
  if (!isIdsyncError(err)) return { status: 500, code: 'internal_error', message: 'the message could not be processed' };
  const status = err.details?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) return { status, code: err.code, message: err.message };
  if (BAD_INPUT.has(err.code)) return { status: 400, code: err.code, message: err.message };
  return { status: 500, code: 'internal_error', message: 'the message could not be processed' };
}
