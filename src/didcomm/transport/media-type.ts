// What every transport shares: the media type of a packed message (DIDComm v2 §3.2 "IANA
// media types"), judged from its JSON shape since transports never unpack, and URL schemes.
import { httpStatusOf, IdsyncError, isIdsyncError, type ErrorCode } from '../../errors.js';
import { assertJsonDepth } from '../../json-depth.js';
import { MEDIA_TYPES } from '../types.js';

export type DidcommMediaType = (typeof MEDIA_TYPES)[keyof typeof MEDIA_TYPES];

const ALL = new Set<string>(Object.values(MEDIA_TYPES));

/**
 * The media type of a packed message: a JWE (`ciphertext`) is encrypted, a JWS (`signatures`)
 * is signed, any other JSON object is plaintext. Throws `json_too_deep` for JSON nested deeper
 * than MAX_JSON_DEPTH (every inbound transport calls this first) and `transport_invalid_message`
 * for anything else that is not a JSON object.
 */
export function detectMediaType(packed: string): DidcommMediaType {
  return parsePacked(packed).type;
}

/** detectMediaType's answer with the object it parsed (checkInboundMessage looks at its members). */
function parsePacked(packed: string): { type: DidcommMediaType; json: Record<string, unknown> } {
  assertJsonDepth(packed);
  let json: unknown;
  try {
    json = JSON.parse(packed);
  } catch {
    throw new IdsyncError('transport_invalid_message', 'a packed DIDComm message must be JSON');
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    throw new IdsyncError('transport_invalid_message', 'a packed DIDComm message must be a JSON object');
  }
  const type = 'ciphertext' in json ? MEDIA_TYPES.encrypted : 'signatures' in json || 'signature' in json ? MEDIA_TYPES.signed : MEDIA_TYPES.plaintext;
  return { type, json: json as Record<string, unknown> };
}

/**
 * What a receiving endpoint checks before taking a message: a JSON object shaped as one of the
 * DIDComm v2 serialisations (§Message Formats) - a JWE (string `protected` and `ciphertext`), a JWS
 * (string `payload`, and `signatures` or `signature`), or a plaintext message (string `id` and
 * `type`). Anything else is no DIDComm message at all and throws `transport_invalid_message`
 * (HTTP answers 400, a WebSocket closes with 1007). Members are only looked at, never decoded:
 * whether a well-shaped message opens is the router's business (202 and a log record).
 */
export function checkInboundMessage(packed: string): DidcommMediaType {
  return parseInboundMessage(packed).type;
}

/**
 * checkInboundMessage's answer with the JSON object it parsed, so that the receiver can open the
 * message without parsing the same text again (InboundHandler's `info.parsed`).
 */
export function parseInboundMessage(packed: string): { type: DidcommMediaType; json: Record<string, unknown> } {
  const parsed = parsePacked(packed);
  const { type, json: m } = parsed;
  const str = (k: string) => typeof m[k] === 'string';
  const ok =
    type === MEDIA_TYPES.encrypted
      ? str('protected') && str('ciphertext')
      : type === MEDIA_TYPES.signed
        ? str('payload') && (Array.isArray(m.signatures) || str('signature'))
        : str('id') && str('type');
  if (!ok) {
    throw new IdsyncError('transport_invalid_message', 'the body is no DIDComm message: not a JWE (protected, ciphertext), a JWS (payload, signatures) or a plaintext message (id, type)');
  }
  return parsed;
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
const BAD_INPUT: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['json_too_deep', 'didcomm_malformed', 'didcomm_unsupported', 'didcomm_invalid_argument', 'did_not_resolved', 'secret_not_found', 'transport_invalid_message']);

/** The Retry-After (seconds) a receiver answers with when a handler gives none. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;
/** Longer Retry-After values (ours or a peer's) are cut to this: a day. */
export const MAX_RETRY_AFTER_SECONDS = 86_400;
/** The problem code of a receiver's 503: the message was not processed, send it again later. */
export const RETRY_LATER_CODE: ErrorCode = 'temporarily_unavailable';

/**
 * What an inbound handler may resolve with. `retryable: true` says the message was not processed
 * for a reason that may pass (a store error, a timeout, a DID that did not resolve) and that the
 * same message sent again can succeed: a receiving transport then answers so that the sender
 * retries (HTTP 503 with Retry-After). The router's RouterResult has this shape, so a handler may
 * resolve with `router.receive(...)` as it is; transports look at nothing else in it and never
 * import the router. A handler may also throw an IdsyncError with `details.retryable: true`.
 */
export type { InboundOutcome } from '../types.js';
import type { InboundOutcome, InboundRefusal } from '../types.js';

function clampSeconds(n: unknown): number {
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) return DEFAULT_RETRY_AFTER_SECONDS;
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.ceil(n));
}

/**
 * The retry hint of what a handler resolved with or threw: `{retryAfterSeconds}` when it says the
 * message may be sent again, undefined otherwise (handled, or refused for good). Anything that is
 * not an object with `retryable === true` (or an IdsyncError with `details.retryable === true`)
 * is no hint.
 */
export function retryHint(outcome: unknown): { retryAfterSeconds: number } | undefined {
  if (isIdsyncError(outcome)) {
    return outcome.details?.retryable === true ? { retryAfterSeconds: clampSeconds(outcome.details.retryAfterSeconds) } : undefined;
  }
  if (!outcome || typeof outcome !== 'object') return undefined;
  const o = outcome as InboundOutcome;
  return o.retryable === true ? { retryAfterSeconds: clampSeconds(o.retryAfterSeconds) } : undefined;
}

/**
 * Whether the handler's process died while handling the message (a party crashed in-process by
 * the testbed: its errors carry `details.processGone`). A killed process answers nothing: its
 * transport resets the connection instead of answering, so the sender sees what it would see
 * with a real kill -9 (a reset, retried soon) and not a 503 with a Retry-After of seconds.
 */
export function processGone(outcome: unknown): boolean {
  const error = isIdsyncError(outcome) ? outcome : (outcome as { error?: unknown } | undefined)?.error;
  return isIdsyncError(error) && error.details?.processGone === true;
}

/** The refusal of what a handler resolved with: refused for good and no problem report told the sender. */
export function refusalOf(outcome: unknown): InboundRefusal | undefined {
  if (!outcome || typeof outcome !== 'object' || isIdsyncError(outcome)) return undefined;
  const r = (outcome as InboundOutcome).refusal;
  return r && typeof r.code === 'string' ? r : undefined;
}

/**
 * Seconds from an RFC 9110 §10.2.3 Retry-After value (`delay-seconds` or an HTTP-date, taken
 * relative to `now`), at most MAX_RETRY_AFTER_SECONDS; undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  const v = (value ?? '').trim();
  if (v === '') return undefined;
  if (/^\d+$/.test(v)) return Math.min(MAX_RETRY_AFTER_SECONDS, Number(v));
  // HTTP-date (IMF-fixdate, or the obsolete RFC 850 and asctime forms) names a weekday and month;
  // Date.parse alone would also take '-5' or '2026' as dates.
  const at = /[A-Za-z]{3}/.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(at)) return undefined;
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, Math.ceil((at - now) / 1000)));
}

/**
 * What a sending transport throws when the receiver answered 503 or 429 (RFC 9110 §15.6.4,
 * RFC 6585 §4): the message was not taken, send it again later. `details.retryAfterSeconds` is
 * the receiver's Retry-After when it gave a readable one.
 */
export function retryLaterError(endpoint: string, status: number, retryAfterSeconds: number | undefined, problemCode?: string, cause?: unknown): IdsyncError {
  return new IdsyncError('transport_retry_later', `${endpoint} answered ${status}: retry later`, {
    details: { endpoint, status, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}), ...(problemCode ? { problemCode } : {}) },
    ...(cause ? { cause } : {}),
  });
}

/** The receiver's Retry-After carried by a retryLaterError, in ms; undefined for any other error. */
export function retryAfterMsOf(e: { code: string; details?: unknown }): number | undefined {
  const s = (e.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return e.code === 'transport_retry_later' && typeof s === 'number' ? s * 1000 : undefined;
}

/**
 * The HTTP status an inbound handler's error maps to: 503 (code `temporarily_unavailable`, with
 * `retryAfterSeconds`) for an IdsyncError with `details.retryable`, a 4xx an IdsyncError names in
 * `details.status`, 400 for a bad message, 500 (code `internal_error`) for anything else.
 */
export function statusForHandlerError(err: unknown): { status: number; code: ErrorCode; message: string; retryAfterSeconds?: number } {
  const internal = { status: httpStatusOf('internal_error'), code: 'internal_error', message: 'the message could not be processed' } as const;
  if (!isIdsyncError(err)) return internal;
  const retry = retryHint(err);
  if (retry) return { status: httpStatusOf(RETRY_LATER_CODE), code: RETRY_LATER_CODE, message: 'the message could not be processed now; send it again later', retryAfterSeconds: retry.retryAfterSeconds };
  const status = err.details?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) return { status, code: err.code, message: err.message };
  if (BAD_INPUT.has(err.code)) return { status: httpStatusOf(err.code), code: err.code, message: err.message };
  return internal;
}
