// What the verdict tests read from one `conformance run` against a foreign agent: each case as one
// line (its status, the MUSTs that failed it, the SHOULDs and advice it lists), the findings on
// the agent's messages that no case counted (there must be none), and the CLI as users run it, in
// this process, for its exit status.
import { run } from '../../src/cli/program.js';
import type { ConformanceReport } from '../../src/harness/types.js';

/** `failed: rule, rule` · `passed (advice: rule)` · `blocked` — one line per case, by id. */
export function verdicts(report: ConformanceReport): Record<string, string> {
  return Object.fromEntries(report.cases.map((c) => {
    const extra = [c.warnings.length ? `warnings: ${c.warnings.join(', ')}` : '', c.advice?.length ? `advice: ${c.advice.join(', ')}` : ''].filter(Boolean);
    return [c.id, `${c.status}${c.failedRules.length ? `: ${c.failedRules.join(', ')}` : ''}${extra.length ? ` (${extra.join('; ')})` : ''}`];
  }));
}

/** Every rule a message from the agent broke that no case's verdict counts ("rule@seq"): none, or a verdict hides it. */
export function uncounted(report: ConformanceReport): string[] {
  const counted = new Set(report.cases.flatMap((c) => c.broken.map((b) => `${b.rule}@${b.seq}`)));
  return report.cases.flatMap((c) => c.messages)
    .filter((m) => m.direction === 'received')
    .flatMap((m) => (m.findings ?? []).map((f) => `${f.rule}@${m.seq}`))
    .filter((k) => !counted.has(k));
}

/** `idsync …` in this process: its exit status and its stdout (one JSON document with --json). */
export async function idsync(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(args, { stdout: (t) => void (out += t), stderr: (t) => void (err += t), readStdin: async () => '' });
  return { code, out, err };
}
