// `--baseline report.json`: a run compared with an earlier one, as regression suites do — which
// case and rule pairs fail now and did not then (newly failing), which failed then and no longer
// do in a case that ran to a verdict (newly passing), and which cases changed status. Reads the
// report.json of --report and the --json document alike (both list cases with id, status and
// failedRules).
import { IdsyncError } from '../errors.js';
import type { CaseStatus, ConformanceReport } from './types.js';

export interface BaselineCase {
  id: string;
  status: CaseStatus | string;
  failedRules: string[];
}

export interface RulePair {
  case: string;
  rule: string;
}

export interface BaselineDiff {
  newlyFailing: RulePair[];
  newlyPassing: RulePair[];
  statusChanges: Array<{ case: string; from: string; to: string }>;
}

export function parseBaseline(text: string, source = 'the baseline'): BaselineCase[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new IdsyncError('invalid_argument', `${source} is not JSON: ${(err as Error).message}`);
  }
  const cases = (value as { cases?: unknown })?.cases;
  if (!Array.isArray(cases)) throw new IdsyncError('invalid_argument', `${source} is not a conformance report (report.json or --json output): it has no cases`);
  return cases.map((c, i) => {
    const x = c as Record<string, unknown>;
    if (typeof x?.id !== 'string' || typeof x.status !== 'string') throw new IdsyncError('invalid_argument', `${source}: case ${i} has no id and status`);
    return { id: x.id, status: x.status, failedRules: Array.isArray(x.failedRules) ? x.failedRules.filter((r): r is string => typeof r === 'string') : [] };
  });
}

const VERDICTS = new Set(['passed', 'failed', 'expected']);
const pairsOf = (cases: BaselineCase[]) => new Set(cases.flatMap((c) => (c.status === 'failed' || c.status === 'expected' ? c.failedRules.map((r) => `${c.id} ${r}`) : [])));
const pair = (key: string): RulePair => {
  const [id, rule] = key.split(' ');
  return { case: id!, rule: rule! };
};

export function diffBaseline(before: BaselineCase[], now: Pick<ConformanceReport, 'cases'>): BaselineDiff {
  const current: BaselineCase[] = now.cases.map((c) => ({ id: c.id, status: c.status, failedRules: c.failedRules }));
  const was = pairsOf(before);
  const is = pairsOf(current);
  const ranNow = new Map(current.map((c) => [c.id, c]));
  const beforeById = new Map(before.map((c) => [c.id, c]));
  return {
    newlyFailing: [...is].filter((k) => !was.has(k)).map(pair),
    newlyPassing: [...was].filter((k) => !is.has(k) && VERDICTS.has(String(ranNow.get(pair(k).case)?.status))).map(pair),
    statusChanges: current.flatMap((c) => {
      const b = beforeById.get(c.id);
      return b && b.status !== c.status ? [{ case: c.id, from: b.status, to: c.status }] : [];
    }),
  };
}
