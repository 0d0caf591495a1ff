// The soak (src/testing/soak.ts; `npm run bench:soak` runs 200 flows) in small: sync flows
// through one testbed under 10 % drop, 5 % duplicate, 2 % reorder and 1 % tamper, each flow
// with a deadline, every flow and every fault accounted for.
import { beforeAll, describe, expect, it } from 'vitest';
import { runSoak, soakFaults, type SoakResult } from '../../src/testing/soak.js';

const FLOWS = 12;
let result: SoakResult;
beforeAll(async () => {
  // The deadline is a guard: under load (the whole suite at once) a flow with a few lost messages takes seconds.
  result = await runSoak({ flows: FLOWS, concurrency: 6, flowTimeoutMs: 15_000, faults: soakFaults(1) });
}, 60_000);

describe('soak under the fault mix', () => {
  it('accounts for every flow (completed with a time, or failed with the step it stopped before) and every fault', () => {
    expect(result.completed + result.failed).toBe(FLOWS);
    expect(result.results).toHaveLength(FLOWS);
    for (const r of result.results) {
      if (r.ok) expect(r.ms).toBeGreaterThan(0);
      else expect(['invite', 'data-pipe', 'sync', 'credential', 'linked']).toContain(r.stuckAt);
    }
    expect(Object.values(result.failedAt).reduce((a, b) => a + (b ?? 0), 0)).toBe(result.failed);
    expect(result.faults.drop).toBeGreaterThan(0);
    expect(result.faults.delay + result.faults.disconnect + result.faults.fail503).toBe(0);
    if (result.completed) expect(result.p99Ms!).toBeGreaterThanOrEqual(result.p50Ms!);
  });

  // Senders retry what was lost (router/steps) and answer a replay with what they sent after
  // it, so a dropped, tampered or reordered message delays its flow but does not end it.
  it('completes every flow', () => {
    expect(result.results.filter((r) => !r.ok)).toEqual([]);
    expect(result.failed).toBe(0);
  });
});
