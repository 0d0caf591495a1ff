// What the report shows of a message on the wire: the start of its text, the protected headers
// of its outer layer decoded, and a line saying how it opened (or why it did not). Kept short: a
// report holds every message of a run.
import { decodeHeader } from '../conformance/envelope-shape.js';
import type { MessageCheck } from './check.js';

/** How much of an HTTP answer's body and of a packed message a report keeps. */
export const KEPT_CHARS = 2048;

export function kept(text: string, max = KEPT_CHARS): { text: string; truncated?: boolean } {
  return text.length > max ? { text: text.slice(0, max), truncated: true } : { text };
}

/**
 * The protected header of a JWE, or of each signature of a JWS (general or flattened), decoded;
 * with a JWE's per-recipient key ids, which say whom it is for. Undefined for anything else.
 */
export function protectedHeadersOf(packed: string): Array<Record<string, unknown>> | undefined {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(packed) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object') return undefined;
  if ('ciphertext' in value) {
    const header = decodeHeader(value.protected) ?? {};
    const kids = Array.isArray(value.recipients) ? value.recipients.map((r) => (r as { header?: { kid?: unknown } })?.header?.kid).filter((k) => typeof k === 'string') : [];
    return [{ ...header, ...(kids.length ? { 'recipients[].header.kid': kids } : {}) }];
  }
  if ('payload' in value) {
    const sigs = Array.isArray(value.signatures) ? (value.signatures as Array<Record<string, unknown>>) : [value];
    return sigs.map((s) => ({ ...(decodeHeader(s.protected) ?? {}), ...(s.header && typeof s.header === 'object' ? { 'header (unprotected)': s.header } : {}) }));
  }
  return undefined;
}

/**
 * One line on how a received message opened: mode, sender and recipient keys, algorithms; or why
 * not, with what the diagnosis found (e.g. that it opens only with the draft-03 ECDH-1PU KDF).
 */
export function openedSummary(check: MessageCheck): string {
  const found = check.diagnosis.map((d) => `${d.finding} [${d.rule}]`);
  const base = openedBase(check);
  return found.length ? `${base}; found: ${found.join('; ')}` : base;
}

function openedBase(check: MessageCheck): string {
  const md = check.metadata;
  if (md) {
    const bits = [
      md.mode,
      md.encryptedFromKid ? `sender key ${md.encryptedFromKid}` : undefined,
      md.signFrom ? `signed by ${md.signFrom}${md.signAlg ? ` (${md.signAlg})` : ''}` : undefined,
      md.encAlgAuth ? `authcrypt enc ${md.encAlgAuth}` : undefined,
      md.encAlgAnon ? `anoncrypt enc ${md.encAlgAnon}` : undefined,
      md.encryptedToKids?.length ? `to ${md.encryptedToKids.join(', ')}` : undefined,
      ...(md.notes ?? []).map((n) => `${n.rule}: ${n.detail}`),
    ];
    return bits.filter(Boolean).join('; ');
  }
  if (check.opened) return 'plaintext';
  return `not opened: ${check.notOpened ?? 'unknown reason'}`;
}
