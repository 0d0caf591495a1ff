// The crash matrix, small (src/testing/crash-matrix.ts; `npm run bench:crash` runs all of it): for
// each of the four flows and each side, the party killed as it stores its first step and as a
// later message goes out, restarted on its store with nobody acting, and the flow completes with
// the default retries: one valid credential held, the provider's view the same. Would fail
// without durable steps, one write per step (a state recorded without its message), replay
// answers, resume, and without every pending step being due at once after a start (the default
// back-off waits tens of seconds).
import { describe, expect, it } from 'vitest';
import { CRASH_FLOWS, CRASH_STEPS, runCrashMatrix, type CrashCase } from '../../src/testing/crash-matrix.js';

/** Per flow and side: the first step and one message after it has gone out. */
function sample(): CrashCase[] {
  const out: CrashCase[] = [];
  for (const flow of CRASH_FLOWS) {
    for (const side of ['service', 'wallet'] as const) {
      const steps = CRASH_STEPS[flow][side];
      const later = steps.filter((s) => s.startsWith('sent:'));
      for (const step of new Set([steps[0]!, later[Math.floor(later.length / 2)]!])) out.push({ flow, side, step });
    }
  }
  return out;
}

describe('crash matrix (sample)', () => {
  it('every flow completes after the service or the wallet is killed at a step and restarted, within 5 s', async () => {
    const cases = sample();
    const results = await runCrashMatrix(cases, { concurrency: 4, timeoutMs: 8_000 });
    expect(results.filter((r) => r.outcome !== 'completed')).toEqual([]);
    expect(results.filter((r) => (r.recoveryMs ?? 0) > 5_000)).toEqual([]);
    expect(results.length).toBe(cases.length);
  }, 120_000);
});
