// Conformance results: one small record per rule, so a flow can show exactly which
// requirement of which spec a message met or broke.
import type { PlainMessage, UnpackMetadata } from '../didcomm/types.js';

export type ConformanceLayer = 'envelope' | 'plaintext' | 'protocol' | 'oob';

/**
 * `error`: a MUST of the spec is broken (the router refuses the message in strict mode);
 * `warning`: a SHOULD, or something that is legal but suspicious.
 */
export type Severity = 'error' | 'warning';

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

export function pass(layer: ConformanceLayer, rule: string, severity: Severity = 'error'): ConformanceResult {
  return { rule, ok: true, severity, layer };
}

export function fail(layer: ConformanceLayer, rule: string, detail: string, severity: Severity = 'error'): ConformanceResult {
  return { rule, ok: false, detail, severity, layer };
}

/**
 * A note: a passed result with a detail. It records a form the spec allows that was accepted,
 * though it is not the usual one (e.g. "flattened JWS accepted").
 */
export function note(layer: ConformanceLayer, rule: string, detail: string): ConformanceResult {
  return { rule, ok: true, detail, severity: 'warning', layer };
}

/** One result: pass when `ok`, else fail with `detail`. */
export function check(layer: ConformanceLayer, rule: string, ok: boolean, detail: string, severity: Severity = 'error'): ConformanceResult {
  return ok ? pass(layer, rule, severity) : fail(layer, rule, detail, severity);
}

/** The failed results that are errors (MUST violations). */
export function errorsOf(results: ConformanceResult[]): ConformanceResult[] {
  return results.filter((r) => !r.ok && r.severity === 'error');
}
