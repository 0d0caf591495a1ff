// One message, as text, checked against the whole rule catalogue: every rule that can be judged,
// each on its own, so that a message with several faults gets every one of them. The outer envelope
// always; the plaintext headers, sender rules and the body rules of every protocol idsync knows
// once the message is open (a plaintext, recognised by its members even without `type`; a signed
// message, whose payload is readable without any key; an encrypted one given the recipient's keys).
// When the strict unpack refuses, the known deviant forms are tried (didcomm/envelope/diagnose.ts)
// and what was found is said in `diagnosis`, each finding with its rule; the message opened that
// way is judged too. The same checks the router runs on every message it receives, so `message
// check` and the conformance harness judge exactly as idsync's own agents do.
import { ruleOf } from '../conformance/catalogue.js';
import { checkEnvelope, envelopeShape, payloadOf } from '../conformance/envelope.js';
import { createRuleRegistry, type RuleRegistry } from '../conformance/registry.js';
import { fail, failuresUnder, pass, type ConformanceResult, type Profile } from '../conformance/types.js';
import { decodeHeader } from '../conformance/envelope-shape.js';
import { headerDeviations, openLeniently, type Deviation } from '../didcomm/envelope/diagnose.js';
import { unpack } from '../didcomm/envelope/index.js';
import type { EnvelopeContext, PlainMessage, UnpackMetadata } from '../didcomm/types.js';
import { isIdsyncError, toIdsyncError } from '../errors.js';
import { JSON_TOO_DEEP, parseJsonBounded } from '../json-depth.js';
import { addIdsyncRules } from '../protocols/idsync-rules.js';

/** Something found in the message and the rule it breaks (or, for an allowed form, concerns). */
export type Finding = Deviation;

export interface MessageCheck {
  /** No rule broken that fails under the profile (default liberal: no MUST broken). */
  ok: boolean;
  results: ConformanceResult[];
  /** How far the check went: the outer envelope only, or the opened message too. */
  opened: boolean;
  message?: PlainMessage;
  metadata?: UnpackMetadata;
  /** Why an envelope was not opened (no keys given, a DID that does not resolve…), or not by the strict unpack. */
  notOpened?: string;
  /** What was found, in words, each finding with its rule: the deviant forms tried and the forms met. */
  diagnosis: Finding[];
}

export interface CheckOptions {
  registry?: RuleRegistry;
  /** false: no recipient keys were given, so an encrypted message is judged by its envelope alone. */
  canDecrypt?: boolean;
  /** 'strict' counts a broken SHOULD and advice not followed against `ok` too. */
  profile?: Profile;
}

/** A registry with DIDComm's own body rules and those of every idsync protocol. */
export function fullRegistry(): RuleRegistry {
  return addIdsyncRules(createRuleRegistry());
}

/** The text inside a JSON string that itself holds a DIDComm message (a JWE, a JWS or a plaintext), if it does. */
function twiceEncoded(value: string): { text: string; shape: ReturnType<typeof envelopeShape> } | undefined {
  let v: unknown;
  try {
    v = parseJsonBounded(value);
  } catch {
    return undefined;
  }
  const shape = typeof v === 'object' && v !== null ? envelopeShape(v) : 'unknown';
  return shape === 'unknown' ? undefined : { text: value, shape };
}

/** The rule a refusal of unpack names (details.rule), if it names one the catalogue has. */
function refusedRule(err: unknown): string | undefined {
  const rule = isIdsyncError(err) ? (err.details as { rule?: unknown } | undefined)?.rule : undefined;
  return typeof rule === 'string' && ruleOf(rule) ? rule : undefined;
}

// Forms the unpack reads and notes, said in words when met.
const NOTED: Record<string, string> = {
  'envelope.jws-kid-protected': 'kid only in the protected header',
  'envelope.jws-flattened': 'a flattened JWS',
  'envelope.jwe-flattened': 'a flattened JWE',
  'envelope.authcrypt-skid-from-apu': 'no skid: the sender key id is read from apu',
  'envelope.jwe-curve': 'key agreement on P-384 or P-521',
  'plaintext.body-present': 'no body',
};

/** The findings: the deviations met on the way, then the noted forms among the results, one per rule. */
function diagnosisOf(deviations: Deviation[], results: ConformanceResult[]): Finding[] {
  const out = [...deviations];
  for (const r of results) if (NOTED[r.rule] && r.detail !== undefined) out.push({ rule: r.rule, finding: NOTED[r.rule]! });
  return out.filter((f, i) => out.findIndex((x) => x.rule === f.rule) === i);
}

function layerOf(rule: string): ConformanceResult['layer'] {
  const layer = ruleOf(rule)?.layer;
  return layer === 'plaintext' || layer === 'oob' ? layer : layer === 'envelope' ? 'envelope' : 'protocol';
}

/**
 * Checks `text`. `ctx` opens encrypted messages (with the recipient's secrets) and verifies
 * signed ones; without secrets an encrypted message is judged by its envelope alone.
 * Never throws for what the message holds; a missing key is `notOpened`, not a broken rule.
 */
export async function checkMessageText(text: string, ctx: EnvelopeContext, options: CheckOptions = {}): Promise<MessageCheck> {
  const registry = options.registry ?? fullRegistry();
  const judged = (all: ConformanceResult[], rest: Omit<MessageCheck, 'ok' | 'results' | 'diagnosis'>, deviations: Deviation[] = []): MessageCheck => {
    // A rule found broken twice (by the envelope rules and by the unpack that read it anyway) is
    // said once, and so is a rule passed for each of several recipients or signatures.
    const results = all.filter((r, i) => all.findIndex((x) => x.rule === r.rule && x.ok === r.ok && (!r.ok || x.detail === r.detail)) === i);
    return { ok: failuresUnder(results, options.profile).length === 0, results, ...rest, diagnosis: diagnosisOf(deviations, results) };
  };
  let value: unknown;
  try {
    value = parseJsonBounded(text);
  } catch (err) {
    // JSON nested past what idsync reads is said as such, not as no JSON at all.
    const why = isIdsyncError(err) && err.code === JSON_TOO_DEEP ? `the message is not read: ${err.message}` : 'the message is not JSON';
    return judged([fail('envelope', 'envelope.json', why)], { opened: false });
  }
  const inner = typeof value === 'string' ? twiceEncoded(value) : undefined;
  if (inner) {
    // A JSON string holding the message (Veramo 7 answers a return route so): no envelope of the
    // media type table, but what it holds is judged too, so its own faults are not hidden behind it.
    const held = await checkMessageText(inner.text, ctx, options);
    const finding = `a JSON string holding a ${inner.shape === 'encrypted' ? 'JWE' : inner.shape === 'signed' ? 'JWS' : 'plaintext message'}: the message is JSON-encoded twice`;
    const { ok: _ok, results: _results, diagnosis, ...rest } = held;
    return judged([fail('envelope', 'envelope.shape', finding), ...held.results.filter((r) => r.rule !== 'envelope.shape' || r.ok)], rest, [{ rule: 'envelope.shape', finding }, ...diagnosis]);
  }
  const envelope = checkEnvelope(text);
  const shape = envelopeShape(value);
  if (shape === 'plaintext') return judged([...envelope, ...registry.check(value)], { opened: true, message: value as PlainMessage });
  if (shape === 'unknown') return judged(envelope, { opened: false, notOpened: 'not a DIDComm message: neither a JWE, a JWS nor a plaintext message' });
  const seen = shape === 'encrypted' ? headerDeviations({ header: decodeHeader((value as Record<string, unknown>).protected) ?? {} }) : [];
  if (shape === 'encrypted' && options.canDecrypt === false) {
    return judged(envelope, { opened: false, notOpened: 'no keys given (--secrets): the envelope alone was checked' }, seen);
  }
  try {
    // The sender rule is judged here as a result (envelope.from-matches-*), not as a refusal.
    const { message, metadata } = await unpack(text, ctx, { checkSender: false });
    return judged([...envelope, ...heldByUnpack(metadata, ctx), ...registry.check(message, { metadata, packed: text })], { opened: true, message, metadata }, seen);
  } catch (err) {
    const error = toIdsyncError(err);
    const rule = refusedRule(err);
    const refusal = rule ? [fail(layerOf(rule), rule, error.message)] : [];
    const strict = rule ? error.message : `${error.code}: ${error.message}`;
    if (shape === 'signed') {
      // A JWS whose signature was not verified: its payload is readable all the same.
      const payload = payloadOf(value as Record<string, unknown>);
      if (payload) return judged([...envelope, ...refusal, ...registry.check(payload)], { opened: true, message: payload as PlainMessage, notOpened: `the signature was not verified (${strict})` }, seen);
      return judged([...envelope, ...refusal], { opened: false, notOpened: strict }, seen);
    }
    // What the strict unpack refused, opened the ways agents are known to deviate.
    const lenient = await openLeniently(text, ctx).catch(() => undefined);
    if (lenient?.message) {
      const found = lenient.deviations.filter((d) => ruleOf(d.rule)).map((d) => fail(layerOf(d.rule), d.rule, d.finding));
      // The refusal is kept unless a deviation found explains it under another rule.
      const kept = found.length ? [] : refusal;
      const results = [...envelope, ...kept, ...found, ...registry.check(lenient.message, { metadata: lenient.metadata, packed: text })];
      return judged(results, { opened: true, message: lenient.message as PlainMessage, metadata: lenient.metadata, notOpened: `the strict unpack refused it (${strict}); opened leniently` }, lenient.deviations);
    }
    return judged([...envelope, ...refusal], { opened: false, notOpened: lenient?.failure ? `${strict}; ${lenient.failure}` : strict }, [...seen, ...(lenient?.deviations ?? [])]);
  }
}

/**
 * The rules a strict unpack enforces while it opens, so that a clean open means they held (a report
 * would otherwise call them never judged): an authcrypt key is derived as ECDH-1PU draft 04 does,
 * the tag in the KDF (envelope.authcrypt-kdf), from a sender key found in the keyAgreement of the
 * sender's DID (envelope.jwe-sender-key, v2.1 §Message Headers); an anoncrypt's apv, when present,
 * is compared with the digest of the recipient kids (envelope.anoncrypt-apv-mismatch, v2.1
 * §ECDH-ES key wrapping), a mismatch read anyway being noted as broken.
 */
function heldByUnpack(metadata: UnpackMetadata, ctx: EnvelopeContext): ConformanceResult[] {
  // Only the native engine records what it read anyway (metadata.notes): with the WASM one an
  // absent note says nothing.
  if ((ctx.engine ?? 'native') !== 'native') return metadata.encryptedFromKid ? [pass('envelope', 'envelope.authcrypt-kdf')] : [];
  const noted = new Set((metadata.notes ?? []).map((n) => n.rule));
  const held: string[] = [];
  if (metadata.encryptedFromKid) held.push('envelope.authcrypt-kdf', 'envelope.jwe-sender-key');
  if (metadata.encrypted && !metadata.encryptedFromKid && !noted.has('envelope.anoncrypt-no-apv') && !noted.has('envelope.anoncrypt-apv-mismatch')) held.push('envelope.anoncrypt-apv-mismatch');
  return held.map((rule) => pass('envelope', rule));
}
