// Refusals of the native engine: the usual envelope codes (didcomm_malformed for what breaks a
// MUST, didcomm_unsupported for algorithms and curves outside the spec's tables, …) with the
// rule they break named in the message and in details.rule. Rule names are the conformance
// rule names (src/conformance/envelope.ts) where one exists, so a refusal and a logged
// conformance failure say the same thing.
import { IdsyncError, type ErrorCode } from '../../errors.js';
import { MAX_JSON_DEPTH } from '../../json-depth.js';

export function refusal(code: ErrorCode, rule: string, message: string, details: Record<string, unknown> = {}): IdsyncError {
  return new IdsyncError(code, `${message} [${rule}]`, { details: { rule, ...details } });
}

export const malformed = (rule: string, message: string, details?: Record<string, unknown>): IdsyncError =>
  refusal('didcomm_malformed', rule, message, details);

export const unsupported = (rule: string, message: string, details?: Record<string, unknown>): IdsyncError =>
  refusal('didcomm_unsupported', rule, message, details);

export const invalidArgument = (message: string): IdsyncError => new IdsyncError('didcomm_invalid_argument', message);

export const notResolved = (message: string, details?: Record<string, unknown>): IdsyncError =>
  new IdsyncError('did_not_resolved', message, details ? { details } : {});

export const secretNotFound = (message: string): IdsyncError => new IdsyncError('secret_not_found', message);

/** base64url member of a JOSE structure (RFC 7515 §2: base64url without padding), decoded. */
export function b64Member(value: unknown, what: string, rule: string): Buffer {
  if (typeof value !== 'string') throw malformed(rule, `${what} is not base64url`);
  // The usual case, unpadded base64url (what every JOSE library writes), proven by the length of
  // what it decodes to: node's decoder skips a character outside the alphabet and stops at '=',
  // so one such character anywhere gives fewer bytes than the text's length promises (a length
  // of 4k+1 is never base64). Nothing is encoded again to compare: a JWE's protected header and
  // ciphertext are KBs, and the copy cost time and garbage on every message. A '+' or '/' decodes
  // here as the checks below would decode it (both alphabets, the same bytes).
  const bytes = Buffer.from(value, 'base64url');
  const n = value.length;
  if ((n & 3) !== 1 && bytes.length === (n >> 2) * 3 + ((n & 3) === 0 ? 0 : (n & 3) - 1)) return bytes;
  // Padding and the standard alphabet are tolerated (some agents emit them); anything else is not base64.
  if (!/^[A-Za-z0-9_\-+/]*={0,2}$/.test(value)) {
    throw malformed(rule, `${what} is not base64url`);
  }
  return Buffer.from(value.replace(/=+$/, ''), value.includes('+') || value.includes('/') ? 'base64' : 'base64url');
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Whether a parsed JSON value nests objects and arrays more than `max` levels deep (the depth
 * json-depth.ts counts on the text). Iterative, so no depth can overflow the stack; it visits
 * only objects and arrays, where the text scan reads every character (most of a JWE is base64).
 */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: object[] = [value as object];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const v = stack.pop()!;
    const depth = depths.pop()!;
    if (depth > max) return true;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) {
      if (c !== null && typeof c === 'object') {
        stack.push(c as object);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** JSON object from text, or a didcomm_malformed naming `rule` (also for nesting past MAX_JSON_DEPTH, json-depth.ts). */
export function parseJsonObject(text: string, what: string, rule: string): Record<string, unknown> {
  // JSON.parse itself copes with any depth (it does not recurse); what must not see a deep value
  // is everything after it, so the bound is checked on the parsed value before anything else.
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw malformed(rule, `${what} is not JSON`);
  }
  if (!isObject(value)) throw malformed(rule, `${what} is not a JSON object`);
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) throw malformed(rule, `${what} nests more than ${MAX_JSON_DEPTH} levels deep`);
  return value;
}
