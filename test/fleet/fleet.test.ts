// idsync fleet as a library: small fleets against the embedded twin (seconds), the summary
// document's exact shape, the open model, custom scenarios, exact histogram merging, reports.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IdsyncError } from '../../src/errors.js';
import { connectFlow, decodeHistogram, latencyHistogram, runFleet, writeReport, type Scenario } from '../../src/fleet/index.js';
import { LONG_RUN_FLOWS, LONG_RUN_YOUNG_GENERATION_MB, serviceStoreFor, WORKER_YOUNG_GENERATION_MB, youngGenerationFor } from '../../src/fleet/fleet.js';

const SUMMARY_KEYS = ['scenario', 'wallets', 'workers', 'completed', 'failed', 'durationMs', 'flowsPerSecond', 'steps', 'errors', 'memoryPerWalletKB', 'peakMemoryMB'];

describe('runFleet', () => {
  it('runs the sync scenario for a closed fleet and gives the summary document, steps in order', async () => {
    const r = await runFleet({ scenario: { builtin: 'sync' }, model: { kind: 'closed', wallets: 4, concurrency: 2 }, workers: 1 });
    expect(Object.keys(r.summary)).toEqual(SUMMARY_KEYS);
    expect(r.summary).toMatchObject({ scenario: 'sync', wallets: 4, workers: 1, completed: 4, failed: 0, errors: {} });
    expect(r.threaded).toBe(false); // workers: 1 is this thread, beside the embedded service
    expect(Object.keys(r.summary.steps)).toEqual(['connect', 'authenticate', 'issue', 'total']);
    for (const f of Object.values(r.summary.steps)) {
      expect(Object.keys(f)).toEqual(['p50Ms', 'p90Ms', 'p99Ms', 'maxMs']);
      expect(f.p50Ms).toBeGreaterThan(0);
      expect(f.maxMs).toBeGreaterThanOrEqual(f.p99Ms);
    }
    expect(r.histograms.total!.count).toBe(4);
    expect(r.summary.memoryPerWalletKB).toBeGreaterThan(0);
    expect(r.timeline.completed.reduce((a, b) => a + b, 0)).toBe(4);
    // Second by second: every flow started and completed, none left in flight, latency where flows ended.
    expect(r.seconds.reduce((n, f) => n + f.started, 0)).toBe(4);
    expect(r.seconds.reduce((n, f) => n + f.completed, 0)).toBe(4);
    expect(r.seconds[r.seconds.length - 1]!.inFlight).toBe(0);
    for (const f of r.seconds) expect(f.p99Ms === null).toBe(f.completed === 0);
    // Peak memory of the one thread and the process.
    expect(Object.keys(r.summary.peakMemoryMB.heap)).toEqual(['service+wallets']);
    expect(r.summary.peakMemoryMB.rss).toBeGreaterThan(r.summary.peakMemoryMB.heap['service+wallets']!);
    expect(r.memory.heap[0]!.points.length).toBeGreaterThan(0);
  }, 60_000);

  it('runs issuance by e-mail (the URL from the outbox) and by DIDComm (accepted as it arrives)', async () => {
    for (const channel of ['EMAIL', 'DIDCOMM'] as const) {
      const r = await runFleet({ scenario: { builtin: 'issuance', channel }, model: { kind: 'closed', wallets: 2, concurrency: 2 }, workers: 1 });
      expect(r.summary, channel).toMatchObject({ scenario: 'issuance', completed: 2, failed: 0 });
      expect(Object.keys(r.summary.steps)).toEqual(['invite', 'issue', 'total']);
    }
  }, 60_000);

  it('runs an open model: arrivals at a rate for a duration, each a new wallet', async () => {
    const r = await runFleet({ scenario: { builtin: 'connect' }, model: { kind: 'open', ratePerSecond: 6, durationMs: 1000, rampMs: 500 }, workers: 1, idleSample: 2 });
    // Arrivals by 1 s: a ramp of 0.5 s to 6/s (1.5) then 0.5 s at 6/s (3): 4 (floor of 4.5).
    expect(r.summary).toMatchObject({ completed: 4, failed: 0 });
  }, 60_000);

  it('runs a scenario of its own, and counts its failures by code', async () => {
    let n = 0;
    const scenario: Scenario = {
      name: 'custom',
      steps: ['connect', 'ping'],
      async run(ctx) {
        await connectFlow(ctx);
        await ctx.step('ping', () => ctx.wallet.ping(ctx.serviceDid, { timeoutMs: ctx.timeoutMs }));
        if (n++ === 0) throw new IdsyncError('invalid_state', 'the first flow fails');
      },
    };
    const r = await runFleet({ scenario, model: { kind: 'closed', wallets: 3, concurrency: 1 }, workers: 1 });
    expect(r.summary).toMatchObject({ scenario: 'custom', completed: 2, failed: 1, errors: { invalid_state: 1 } });
    expect(r.summary.steps.ping).toBeDefined();
  }, 60_000);

  it("keeps the twin's state on disk for runs too big for memory (or when asked), in a folder removed at the end", async () => {
    const closed = (wallets: number) => ({ kind: 'closed' as const, wallets, concurrency: 1 });
    expect(serviceStoreFor({ model: closed(20_000) })).toBe('memory');
    expect(serviceStoreFor({ model: closed(20_001) })).toBe('disk');
    expect(serviceStoreFor({ model: { kind: 'open', ratePerSecond: 100, durationMs: 300_000 } })).toBe('disk');
    expect(serviceStoreFor({ model: closed(100_000), serviceStore: 'memory' })).toBe('memory');
    const dirs = async () => (await readdir(tmpdir())).filter((d) => d.startsWith('idsync-fleet-service-'));
    const before = await dirs();
    const r = await runFleet({ scenario: { builtin: 'sync' }, model: closed(2), workers: 1, serviceStore: 'disk' });
    expect(r.summary).toMatchObject({ completed: 2, failed: 0 });
    expect(r.target).toMatchObject({ embedded: true, store: 'disk' });
    expect(await dirs()).toEqual(before);
  }, 60_000);

  it('gives long runs on an in-memory twin a larger young generation in each worker, unless one is asked for', () => {
    const closed = (wallets: number) => ({ kind: 'closed' as const, wallets, concurrency: 1 });
    expect(youngGenerationFor({ model: closed(LONG_RUN_FLOWS - 1) })).toBe(WORKER_YOUNG_GENERATION_MB);
    expect(youngGenerationFor({ model: closed(LONG_RUN_FLOWS) })).toBe(LONG_RUN_YOUNG_GENERATION_MB);
    expect(LONG_RUN_YOUNG_GENERATION_MB).toBeGreaterThan(WORKER_YOUNG_GENERATION_MB);
    // Open model: its arrivals, rate × duration (100/s for 60 s is 6,000 flows).
    expect(youngGenerationFor({ model: { kind: 'open', ratePerSecond: 100, durationMs: 60_000 } })).toBe(LONG_RUN_YOUNG_GENERATION_MB);
    expect(youngGenerationFor({ model: { kind: 'open', ratePerSecond: 10, durationMs: 60_000 } })).toBe(WORKER_YOUNG_GENERATION_MB);
    expect(youngGenerationFor({ model: closed(100_000), youngGenerationMb: 96 })).toBe(96);
    // A run whose twin keeps its state on disk keeps the smaller one (it was not faster there).
    expect(serviceStoreFor({ model: closed(100_000) })).toBe('disk');
    expect(youngGenerationFor({ model: closed(100_000) })).toBe(WORKER_YOUNG_GENERATION_MB);
    expect(youngGenerationFor({ model: closed(10_000), serviceStore: 'disk' })).toBe(WORKER_YOUNG_GENERATION_MB);
    expect(youngGenerationFor({ model: closed(30_000), serviceStore: 'memory' })).toBe(LONG_RUN_YOUNG_GENERATION_MB);
  });

  it('refuses a scenario object for worker threads, and bad models', async () => {
    const scenario: Scenario = { name: 'x', steps: [], run: async () => {} };
    await expect(runFleet({ scenario, model: { kind: 'closed', wallets: 1, concurrency: 1 }, workers: 2 })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(runFleet({ scenario: { builtin: 'sync' }, model: { kind: 'closed', wallets: 0, concurrency: 1 }, workers: 1 })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(runFleet({ scenario: { builtin: 'sync' }, model: { kind: 'open', ratePerSecond: 0, durationMs: 10 }, workers: 1 })).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});

describe('latency histograms', () => {
  it('merge exactly: two encoded halves added give the percentiles of the whole', () => {
    const whole = latencyHistogram();
    const a = latencyHistogram();
    const b = latencyHistogram();
    for (let i = 1; i <= 2000; i++) {
      const v = (i * 7919) % 3001 + 0.5;
      whole.record(v);
      (i % 2 ? a : b).record(v);
    }
    const merged = decodeHistogram(a.encode());
    merged.add(b.encode());
    expect(merged.summary()).toEqual(whole.summary());
    for (const p of [50, 90, 99, 99.9]) expect(merged.percentile(p)).toBe(whole.percentile(p));
    // An average of the halves' p99 is not a percentile of anything; the merge is.
    expect(merged.count).toBe(2000);
    expect(whole.bins(10).reduce((n, bin) => n + bin.count, 0)).toBe(2000);
  });
});

describe('fleet report', () => {
  it('writes report.json and an offline report.html: the histogram beside latency over time, throughput, flows in flight, errors and memory as SVG', async () => {
    const r = await runFleet({ scenario: { builtin: 'connect' }, model: { kind: 'closed', wallets: 2, concurrency: 2 }, workers: 1 });
    const dir = await mkdtemp(join(tmpdir(), 'idsync-fleet-report-'));
    try {
      const files = await writeReport(dir, r);
      const doc = JSON.parse(await readFile(files.json, 'utf8'));
      expect(doc.summary).toEqual(r.summary);
      expect(doc.histogram.reduce((n: number, b: { count: number }) => n + b.count, 0)).toBe(2);
      expect(doc.seconds.reduce((n: number, f: { completed: number }) => n + f.completed, 0)).toBe(2);
      expect(doc.seconds.some((f: { p99Ms: number | null }) => f.p99Ms !== null)).toBe(true);
      expect(doc.memory.heap[0].points.length).toBeGreaterThan(0);
      const html = await readFile(files.html, 'utf8');
      expect(html.match(/<svg /g)).toHaveLength(6);
      for (const title of ['Latency of whole flows', 'Latency over time', 'Throughput over time', 'Flows in flight', 'Errors over time', 'Memory over time']) expect(html).toContain(title);
      // p50, p90 and p99 are lines (at least a point each: a short run may have one second of completions).
      expect(html).toMatch(/<(polyline|circle)[^>]+#d83b3b/);
      expect(html).toContain('no flow failed');
      expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('fleetTable says where the wallets ran', () => {
  it('worker threads beside the embedded service, or one thread for both', async () => {
    const { fleetTable } = await import('../../src/fleet/report.js');
    const r = await runFleet({ scenario: { builtin: 'connect' }, model: { kind: 'closed', wallets: 1, concurrency: 1 }, workers: 1 });
    expect(fleetTable(r).split('\n')[0]).toContain('wallets and service in one thread, embedded twin');
    expect(fleetTable({ ...r, threaded: true }).split('\n')[0]).toContain('1 worker thread (the service in one more), embedded twin');
  });
});
