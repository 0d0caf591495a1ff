// What a run's exit status says, as CI reads it: 0 only when at least one case passed and none
// failed; 1 when a case failed (a MUST broke; under --profile strict, any rule); 3 when nothing
// could be judged — the agent was unreachable, nobody accepted the invitation, no case ran, or
// every case was blocked, skipped or inconclusive. The run-level case judges every message the
// agent sent, but a run that passed only it has judged no behaviour: that is 3, not 0.
import { RUN_CASE } from './judge.js';
import type { ConformanceReport } from './types.js';

export const EXIT_PASSED = 0;
export const EXIT_FAILED = 1;
export const EXIT_NOT_JUDGED = 3;

export function runExitCode(report: Pick<ConformanceReport, 'cases'>): 0 | 1 | 3 {
  if (report.cases.some((c) => c.status === 'failed')) return EXIT_FAILED;
  return report.cases.some((c) => c.id !== RUN_CASE.id && c.status === 'passed') ? EXIT_PASSED : EXIT_NOT_JUDGED;
}

/** Why a run judged nothing, in one line. */
export function notJudgedReason(report: Pick<ConformanceReport, 'cases'>): string {
  const own = report.cases.filter((c) => c.id !== RUN_CASE.id);
  if (own.length === 0) return 'no case ran';
  const counts = ['expected', 'blocked', 'skipped', 'inconclusive'].map((s) => [s, own.filter((c) => c.status === s).length] as const).filter(([, n]) => n > 0);
  const first = own.find((c) => c.status !== 'passed' && c.detail)?.detail;
  return `no case passed (${counts.map(([s, n]) => `${n} ${s}`).join(', ')})${first ? `: ${first}` : ''}`;
}
