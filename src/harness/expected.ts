// Expected failures (`--expect FILE`), as conformance suites keep them for an implementation that
// is known to deviate: a list of case and rule pairs. A case that fails only on listed pairs shows
// as `expected` and does not fail the run; a listed pair the case no longer breaks is reported, so
// that the list shrinks as the agent improves. The file is JSON: an array of
// {"case", "rule", "reason"?}, or an object with such an array under "expected".
import { IdsyncError } from '../errors.js';
import type { CaseResult, UnseenExpectation } from './types.js';

export interface ExpectedFailure {
  case: string;
  rule: string;
  reason?: string;
}

/** Parses an expected-failures document; throws `invalid_argument` naming what is wrong. */
export function parseExpected(text: string, source = 'the expected failures'): ExpectedFailure[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new IdsyncError('invalid_argument', `${source} is not JSON: ${(err as Error).message}`);
  }
  const list = Array.isArray(value) ? value : (value as { expected?: unknown })?.expected;
  if (!Array.isArray(list)) throw new IdsyncError('invalid_argument', `${source} must be a JSON array of {"case", "rule", "reason"?} (or {"expected": [...]})`);
  return list.map((item, i) => {
    const e = item as Record<string, unknown>;
    if (typeof e?.case !== 'string' || typeof e.rule !== 'string') throw new IdsyncError('invalid_argument', `${source}: entry ${i} needs "case" and "rule" strings`);
    return { case: e.case, rule: e.rule, ...(typeof e.reason === 'string' ? { reason: e.reason } : {}) };
  });
}

const key = (caseId: string, rule: string) => `${caseId}\u0000${rule}`;

/** Marks the listed failures of `result`; a failed case whose failures are all listed becomes `expected`. */
export function applyExpected(result: CaseResult, expected: ExpectedFailure[], failing: (b: CaseResult['broken'][number]) => boolean): CaseResult {
  const listed = new Set(expected.filter((e) => e.case === result.id).map((e) => key(e.case, e.rule)));
  if (listed.size === 0 || result.status !== 'failed') return result;
  const broken = result.broken.map((b) => (listed.has(key(result.id, b.rule)) ? { ...b, expected: true } : b));
  const allListed = broken.filter(failing).every((b) => b.expected);
  return { ...result, broken, ...(allListed ? { status: 'expected' as const } : {}) };
}

/** Listed pairs whose case ran to a verdict without breaking the rule: the agent now passes them. */
export function unseenExpected(cases: CaseResult[], expected: ExpectedFailure[]): UnseenExpectation[] {
  const judged = new Map(cases.filter((c) => c.status === 'passed' || c.status === 'failed' || c.status === 'expected').map((c) => [c.id, c]));
  return expected
    .filter((e) => {
      const c = judged.get(e.case);
      return c !== undefined && !c.broken.some((b) => b.rule === e.rule);
    })
    .map((e) => ({ case: e.case, rule: e.rule, ...(e.reason ? { reason: e.reason } : {}) }));
}
