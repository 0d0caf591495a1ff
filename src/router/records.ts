// What the message log keeps of a received message. Anyone can send us anything, so the log
// keeps a plaintext only when the envelope authenticates its sender (authcrypt or signed) and
// it is not larger than `logMessageMaxBytes`. Anything else is kept as a digest (size, a short
// hash, the first 200 characters: store/messages.ts messageDigest) with its headers capped, and
// a message that could not be unpacked as a digest of what arrived. Conformance details can
// quote what was sent, so they are capped too.
import { ruleOf } from '../conformance/catalogue.js';
import { fail, refusalsOf, type ConformanceResult } from '../conformance/types.js';
import { jsonPrefix } from '../encoding.js';
import { DIGEST_HEAD_CHARS, messageDigest } from '../store/messages.js';
import type { LogInput } from './outbound.js';
import { senderOf } from './addressing.js';
import type { ReceiveInfo } from './types.js';
import type { EnvelopeMode, PlainMessage, UnpackMetadata } from '../didcomm/types.js';

export const DEFAULT_LOG_MESSAGE_MAX_BYTES = 256 * 1024;
/** Long enough for an ion long-form DID; ids and types are far shorter. */
const HEADER_CHARS = 4096;
const MAX_TO = 10;
const DETAIL_CHARS = 500;

const cap = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n)}…` : s);
const header = (v: unknown): string | undefined => (typeof v === 'string' ? cap(v, HEADER_CHARS) : undefined);

/** Conformance results as logged: details capped; the very list when none is too long (most are passes without one). */
export function loggedConformance(results: ConformanceResult[]): ConformanceResult[] {
  const long = (r: ConformanceResult) => r.detail !== undefined && r.detail.length > DETAIL_CHARS;
  if (!results.some(long)) return results;
  return results.map((r) => (long(r) ? { ...r, detail: cap(r.detail!, DETAIL_CHARS) } : r));
}

/** The record of what could not be unpacked: nobody is known to have sent it. With the refusal's code and rule. */
export function undecryptableRecord(packed: string, id: string, mode: EnvelopeMode, results: ConformanceResult[], info: ReceiveInfo, refusal?: { code: string; rule?: string }): LogInput {
  const digest = messageDigest(packed);
  return {
    id, direction: 'in', type: '', mode, size: digest.size, result: 'undecryptable', conformance: loggedConformance(results),
    transport: info.transport, message: {} as PlainMessage, digest,
    ...(refusal ? { errorCode: refusal.code, ...(refusal.rule ? { rule: refusal.rule } : {}) } : {}),
  };
}

/**
 * The rule an unpack refusal names (`details.rule`: the envelope layer refuses what DIDComm v2 and
 * its RFCs forbid, e.g. envelope.jws-header-disjoint), as a failed result with the refusal's detail;
 * undefined when it names no rule of the catalogue.
 */
export function refusedByRule(error: { message: string; details?: unknown }): ConformanceResult | undefined {
  const rule = (error.details as { rule?: unknown } | undefined)?.rule;
  const entry = typeof rule === 'string' ? ruleOf(rule) : undefined;
  if (!entry) return undefined;
  return fail(entry.layer === 'plaintext' ? 'plaintext' : 'envelope', entry.id, error.message);
}

/** The rule that refused a message: the first of its results idsync refuses for (a broken MUST, or a `refuses` row). */
export function refusingRule(results: ConformanceResult[]): string | undefined {
  return refusalsOf(results)[0]?.rule;
}

/** The record of an unpacked message, written on arrival (result 'received'). */
export function receivedRecord(
  packed: string,
  unpacked: { message: PlainMessage; metadata: UnpackMetadata },
  results: ConformanceResult[],
  info: ReceiveInfo,
  o: { invalidId: () => string; maxBytes?: number },
): LogInput {
  const { message, metadata } = unpacked;
  const size = Buffer.byteLength(packed);
  const id = typeof message.id === 'string' ? message.id : o.invalidId();
  const full = senderOf(metadata) !== undefined && size <= (o.maxBytes ?? DEFAULT_LOG_MESSAGE_MAX_BYTES);
  if (full) {
    return {
      id, direction: 'in', type: String(message.type ?? ''), thid: message.thid, pthid: message.pthid, from: message.from, to: message.to,
      mode: metadata.mode, size, result: 'received', conformance: loggedConformance(results), transport: info.transport, message,
    };
  }
  const to = Array.isArray(message.to) ? message.to.slice(0, MAX_TO).map((t) => header(t) ?? String(t).slice(0, HEADER_CHARS)) : undefined;
  const headers = {
    id: header(id)!, type: header(message.type) ?? cap(String(message.type ?? ''), HEADER_CHARS),
    thid: header(message.thid), pthid: header(message.pthid), from: header(message.from), to,
  };
  const kept = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined));
  return {
    ...headers, direction: 'in', mode: metadata.mode, size, result: 'received', conformance: loggedConformance(results),
    transport: info.transport, message: { ...kept, body: {} } as PlainMessage, digest: messageDigest(packed, jsonPrefix(message, DIGEST_HEAD_CHARS)),
  };
}
