// Conformance results: one small record per rule, so a flow can show exactly which
// requirement of which spec a message met or broke. A result's severity is its catalogue row's
// (catalogue.ts), which follows from the RFC 2119 keyword the row quotes; code never writes one.
import type { PlainMessage, UnpackMetadata } from '../didcomm/types.js';
import { setBounded } from '../bounded.js';
import { ruleOf, severityOf, type RuleSeverity } from './catalogue.js';

export type ConformanceLayer = 'envelope' | 'plaintext' | 'protocol' | 'oob';

/**
 * `error`: a MUST of the spec is broken (the router refuses the message in strict mode);
 * `warning`: a SHOULD; `advice`: no keyword (idsync's profile, good practice, interop advice).
 */
export type Severity = RuleSeverity;

/**
 * How results are judged. `liberal` (the default): only a broken MUST fails. `strict`: a broken
 * SHOULD or a piece of advice fails too.
 */
export type Profile = 'liberal' | 'strict';

export interface ConformanceResult {
  /** Stable rule name, `<layer>.<what>`, e.g. `plaintext.body`. */
  rule: string;
  ok: boolean;
  detail?: string;
  severity: Severity;
  layer: ConformanceLayer;
}

/** What a message rule may look at besides the message. */
export interface RuleContext {
  metadata?: UnpackMetadata;
  /** The packed form as received, when there was one. */
  packed?: string;
}

/** A message rule returns one result per requirement it checks. */
export type MessageRule = (message: PlainMessage, context: RuleContext) => ConformanceResult[];

/**
 * A passed result is the same for every message: one frozen object per rule, made once. Every
 * message in and out is checked against dozens of rules, most of which pass, and each pass was
 * a new object and a catalogue lookup. Rule ids come from code (the catalogue and the rules a
 * user registers), so the map stays small; it is bounded all the same.
 */
const PASSED = new Map<string, ConformanceResult>();
const PASSED_MAX = 4096;

export function pass(layer: ConformanceLayer, rule: string): ConformanceResult {
  const known = PASSED.get(rule);
  if (known !== undefined && known.layer === layer) return known;
  const made: ConformanceResult = Object.freeze({ rule, ok: true, severity: severityOf(rule), layer });
  // A rule id used under two layers keeps its first one here and makes the other each time.
  if (known === undefined) setBounded(PASSED, rule, made, PASSED_MAX);
  return made;
}

export function fail(layer: ConformanceLayer, rule: string, detail: string): ConformanceResult {
  return { rule, ok: false, detail, severity: severityOf(rule), layer };
}

/**
 * A note: a passed result with a detail. It records a form the spec allows that was accepted,
 * though it is not the usual one (e.g. "flattened JWS accepted").
 */
export function note(layer: ConformanceLayer, rule: string, detail: string): ConformanceResult {
  return { rule, ok: true, detail, severity: severityOf(rule), layer };
}

/** One result: pass when `ok`, else fail with `detail`. */
export function check(layer: ConformanceLayer, rule: string, ok: boolean, detail: string): ConformanceResult {
  return ok ? pass(layer, rule) : fail(layer, rule, detail);
}

/** The failed results that are errors (MUST violations). */
export function errorsOf(results: ConformanceResult[]): ConformanceResult[] {
  return results.filter((r) => !r.ok && r.severity === 'error');
}

/** The failed results that count under `profile`: errors, and under `strict` warnings and advice too. */
export function failuresUnder(results: ConformanceResult[], profile: Profile = 'liberal'): ConformanceResult[] {
  return profile === 'strict' ? results.filter((r) => !r.ok) : errorsOf(results);
}

/**
 * The failed results idsync's own agents refuse a message for: a broken MUST (unless its row says
 * idsync takes such a message all the same: `tolerated`), or a rule whose catalogue row says
 * idsync cannot act without it (`refuses`, a local policy).
 */
export function refusalsOf(results: ConformanceResult[]): ConformanceResult[] {
  return results.filter((r) => !r.ok && (r.severity === 'error' ? ruleOf(r.rule)?.tolerated !== true : ruleOf(r.rule)?.refuses === true));
}
