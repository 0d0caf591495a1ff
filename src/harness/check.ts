// One message, as text, checked against the whole rule catalogue: the outer envelope always; the
// plaintext headers, sender rules and the body rules of every protocol idsync knows once the
// message is open (a plaintext, a signed message whose signer resolves, or an encrypted one
// given the recipient's keys). The same checks the router runs on every message it receives
// (conformance/registry.ts, protocols/idsync-rules.ts), so `message check` and the conformance
// harness judge exactly as idsync's own agents do.
import { ruleOf } from '../conformance/catalogue.js';
import { checkEnvelope, envelopeShape } from '../conformance/envelope.js';
import { createRuleRegistry, type RuleRegistry } from '../conformance/registry.js';
import { errorsOf, fail, type ConformanceResult } from '../conformance/types.js';
import { unpack } from '../didcomm/envelope/index.js';
import type { EnvelopeContext, PlainMessage, UnpackMetadata } from '../didcomm/types.js';
import { isIdsyncError, toIdsyncError } from '../errors.js';
import { parseJsonBounded } from '../json-depth.js';
import { addIdsyncRules } from '../protocols/idsync-rules.js';

export interface MessageCheck {
  /** No MUST broken. */
  ok: boolean;
  results: ConformanceResult[];
  /** How far the check went: the outer envelope only, or the opened message too. */
  opened: boolean;
  message?: PlainMessage;
  metadata?: UnpackMetadata;
  /** Why an envelope was not opened (no keys given, a DID that does not resolve…). */
  notOpened?: string;
}

/** A registry with DIDComm's own body rules and those of every idsync protocol. */
export function fullRegistry(): RuleRegistry {
  return addIdsyncRules(createRuleRegistry());
}

/** The rule a refusal of unpack names (details.rule), if it names one the catalogue has. */
function refusedRule(err: unknown): string | undefined {
  const rule = isIdsyncError(err) ? (err.details as { rule?: unknown } | undefined)?.rule : undefined;
  return typeof rule === 'string' && ruleOf(rule) ? rule : undefined;
}

/**
 * Checks `text`. `ctx` opens encrypted messages (with the recipient's secrets) and verifies
 * signed ones; without secrets an encrypted message is judged by its envelope alone.
 * Never throws for what the message holds; a missing key is `notOpened`, not a broken rule.
 */
export async function checkMessageText(text: string, ctx: EnvelopeContext, options: { registry?: RuleRegistry; canDecrypt?: boolean } = {}): Promise<MessageCheck> {
  const registry = options.registry ?? fullRegistry();
  let value: unknown;
  try {
    value = parseJsonBounded(text);
  } catch {
    const results = [fail('envelope', 'envelope.json', 'the message is not JSON')];
    return { ok: false, results, opened: false };
  }
  const envelope = checkEnvelope(text);
  const shape = envelopeShape(value);
  if (shape === 'plaintext') {
    const results = [...envelope, ...registry.check(value)];
    return { ok: errorsOf(results).length === 0, results, opened: true, message: value as PlainMessage };
  }
  if (shape === 'unknown') return { ok: errorsOf(envelope).length === 0, results: envelope, opened: false, notOpened: 'not a DIDComm message' };
  if (shape === 'encrypted' && options.canDecrypt === false) {
    return { ok: errorsOf(envelope).length === 0, results: envelope, opened: false, notOpened: 'no keys given (--secrets): the envelope alone was checked' };
  }
  try {
    // The sender rule is judged here as a result (envelope.from-matches-*), not as a refusal.
    const { message, metadata } = await unpack(text, ctx, { checkSender: false });
    const results = [...envelope, ...registry.check(message, { metadata, packed: text })];
    return { ok: errorsOf(results).length === 0, results, opened: true, message, metadata };
  } catch (err) {
    const rule = refusedRule(err);
    const error = toIdsyncError(err);
    if (rule) {
      const results = [...envelope, fail(ruleOf(rule)!.layer === 'plaintext' ? 'plaintext' : 'envelope', rule, error.message)];
      return { ok: false, results, opened: false, notOpened: error.message };
    }
    return { ok: errorsOf(envelope).length === 0, results: envelope, opened: false, notOpened: `${error.code}: ${error.message}` };
  }
}
