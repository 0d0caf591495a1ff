// The run second by second (src/fleet/timeline.ts): flows started and ended per second, in
// flight, and each second's latency percentiles from buckets that add exactly across threads.
import { describe, expect, it } from 'vitest';
import { flowTimeline, mergeSeconds, secondFigures } from '../../src/fleet/timeline.js';
import { fleetMemory, threadLabels } from '../../src/fleet/run-memory.js';

describe('flow timeline', () => {
  it('counts flows by the second they started and ended, and keeps how many are in flight', () => {
    const t = flowTimeline(10_000);
    t.started(10_100);
    t.started(10_900);
    t.started(11_500);
    t.ended(11_200, 1100, true);
    t.ended(12_400, 1500, false);
    const f = secondFigures(t.data());
    expect(f.map((x) => [x.started, x.completed, x.failed, x.inFlight])).toEqual([
      [2, 0, 0, 2],
      [1, 1, 0, 2],
      [0, 0, 1, 1],
    ]);
    // Failed flows are errors, not latency.
    expect(f[1]!.p50Ms).toBeCloseTo(1100, -1);
    expect(f[2]!.p99Ms).toBeNull();
  });

  it('takes a flow cut short by the run\'s stop back out of the second it started in: it is not left in flight', () => {
    const t = flowTimeline(0);
    t.started(100);
    t.started(200);
    t.ended(900, 800, true);
    t.dropped(200);
    expect(secondFigures(t.data()).map((x) => [x.started, x.completed, x.failed, x.inFlight])).toEqual([[1, 1, 0, 0]]);
  });

  it('gives percentiles within 1 %, and merging threads equals one timeline of all their flows', () => {
    const whole = flowTimeline(0);
    const a = flowTimeline(0);
    const b = flowTimeline(0);
    const values: number[] = [];
    for (let i = 1; i <= 1000; i++) {
      const ms = 5 + ((i * 7919) % 2000);
      values.push(ms);
      for (const t of [whole, i % 2 ? a : b]) {
        t.started(0);
        t.ended(500, ms, true);
      }
    }
    const merged = secondFigures(mergeSeconds([a.data(), b.data()]));
    expect(merged).toEqual(secondFigures(whole.data()));
    values.sort((x, y) => x - y);
    for (const [p, got] of [[50, merged[0]!.p50Ms], [90, merged[0]!.p90Ms], [99, merged[0]!.p99Ms]] as const) {
      const exact = values[Math.ceil((p / 100) * values.length) - 1]!;
      expect(got!).toBeGreaterThanOrEqual(exact);
      expect(got!).toBeLessThanOrEqual(exact * 1.01);
    }
    expect(merged[0]!.inFlight).toBe(0);
  });
});

describe('fleet memory', () => {
  it('numbers threads that share a role, and puts samples on the flows\' time axis', () => {
    expect(threadLabels([{ role: 'coordinator' }, { role: 'service' }, { role: 'wallets' }, { role: 'wallets' }])).toEqual(['coordinator', 'service', 'wallets 1', 'wallets 2']);
    const stats = (role: string, peakHeapBytes: number, peakRssBytes?: number) => ({ role, elu: 0, cpuMs: 0, gcMs: 0, gcCount: 0, wallMs: 0, peakHeapBytes, ...(peakRssBytes ? { peakRssBytes } : {}) });
    const m = fleetMemory(
      [
        { stats: stats('coordinator', 10, 500), memory: [{ at: 9000, heapBytes: 9, rssBytes: 400 }, { at: 12_000, heapBytes: 10, rssBytes: 500 }] },
        { stats: stats('wallets', 70), memory: [{ at: 11_500, heapBytes: 70 }] },
      ],
      10_000,
    );
    expect(m).toEqual({
      peakRssBytes: 500,
      peakHeapBytes: { coordinator: 10, wallets: 70 },
      heap: [
        { label: 'coordinator', points: [[-1, 9], [2, 10]] },
        { label: 'wallets', points: [[1.5, 70]] },
      ],
      rss: [[-1, 400], [2, 500]],
    });
  });
});
