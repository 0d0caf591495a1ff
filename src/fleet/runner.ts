// One thread's share of a fleet run: its wallets run the scenario under the load model, every
// step's latency goes into an HDR histogram, errors are counted by code, and flows by the second
// they started and ended, with the latency of those that completed (timeline.ts: throughput,
// latency and flows in flight over time). The same code runs in the coordinating thread
// (--workers 1) and in each worker thread (worker.ts).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { toIdsyncError } from '../errors.js';
import type { ServiceClient } from '../testing/rest-client.js';
import { resendTally } from '../router/steps/names.js';
import { latencyHistogram, type LatencyHistogram } from './histogram.js';
import type { FlowContext, Scenario } from './types.js';
import type { WalletPool } from './wallet-pool.js';
import { heapInUse, measureThread, type MemorySample, type ThreadStats } from './thread-stats.js';
import { flowTimeline, type SecondsData } from './timeline.js';

/**
 * Idle wallets made at once. Making one is local work for a direct wallet, but a wallet behind a
 * mediator also asks it for mediation and registers its keys: two round trips to another thread
 * or process, which one at a time leave both sides waiting on each other.
 */
export const PREPARE_LANES = 16;

/** What one thread runs. Indices are global: thread `shard` of `shards` runs i ≡ shard (mod shards). */
export interface ShardPlan {
  shard: number;
  shards: number;
  model:
    | { kind: 'closed'; wallets: number; concurrency: number }
    | { kind: 'open'; ratePerSecond: number; durationMs: number; rampMs: number };
  /** Epoch ms (Date.now) all threads count from: the timeline's zero. */
  startAt: number;
  /** Distinguishes this run's user ids from earlier runs' on the same service. */
  runId: string;
  timeoutMs: number;
  /** Wallets made before the flows and measured idle (the closed model makes all of its own). */
  idleSample: number;
}

export interface ShardProgress {
  completed: number;
  failed: number;
  /** The total histogram so far, encoded (the coordinator merges them for p99 so far). */
  total: string;
}

export interface ShardResult {
  completed: number;
  failed: number;
  /** Flows in flight when the run was stopped (its signal aborted): cut short, neither completed nor failed. */
  stopped: number;
  /** Encoded HDR histograms by step, `total` included. */
  histograms: Record<string, string>;
  errors: Record<string, number>;
  /** One message per error code (the first seen), for the report. */
  errorSamples: Record<string, string>;
  /** The plan's startAt: second 0 of `seconds`. */
  startAt: number;
  /** Flows started, completed and failed per second since startAt, and the latency of those completed. */
  seconds: SecondsData;
  /** Idle wallets measured: how many, and the heap (+ external) they added; how many of them were paged to disk. */
  idle: { wallets: number; bytes: number; onDisk: number };
  /** Protocol messages sent again in this thread during the run, by step (router/steps). */
  resends: Record<string, number>;
  /** When this thread's first flow started and its last one ended (epoch ms). */
  firstStartAt: number;
  lastEndAt: number;
  /** How busy this thread was (thread-stats.ts). */
  thread: ThreadStats;
  /** This thread's heap each second (and the process's RSS when `measureRss`). */
  memory: MemorySample[];
}

/**
 * Lets this process collect garbage on demand (for the idle-memory figure). Called once in the
 * coordinating thread before any worker starts: V8's flags are process-wide, and changing them
 * while other threads run is unsafe, so workers only use what their isolate was created with.
 */
export function exposeGc(): void {
  if (typeof (globalThis as { gc?: unknown }).gc === 'function') return;
  try {
    setFlagsFromString('--expose-gc');
  } catch {
    // no figure then
  }
}

let gcFn: (() => void) | undefined | null;
/** A full GC when the runtime allows it, else nothing. */
function collect(): void {
  if (gcFn === undefined) {
    const own = (globalThis as { gc?: unknown }).gc;
    try {
      gcFn = typeof own === 'function' ? (own as () => void) : (runInNewContext('gc') as () => void);
    } catch {
      gcFn = null;
    }
  }
  gcFn?.();
  gcFn?.();
}

/** A thread's stats and its memory samples, apart. */
export function threadFigures(m: ThreadStats & { memory: MemorySample[] }): { thread: ThreadStats; memory: MemorySample[] } {
  const { memory, ...thread } = m;
  return { thread, memory };
}

/** Resends counted in this thread since `before` (resendTally is cumulative). */
export function resendsSince(before: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, n] of resendTally) if (n - (before.get(k) ?? 0) > 0) out[k] = n - (before.get(k) ?? 0);
  return out;
}

/** Runs `fn` over `items` in order, at most `lanes` at once, taking no new item once `signal` is aborted. */
async function inLanes<T>(items: readonly T[], lanes: number, signal: AbortSignal, fn: (item: T) => Promise<unknown>): Promise<void> {
  const next = items[Symbol.iterator]();
  await Promise.all(
    Array.from({ length: Math.min(lanes, items.length) }, async () => {
      for (let it = next.next(); !it.done && !signal.aborted; it = next.next()) await fn(it.value);
    }),
  );
}

function heapBytes(): number {
  collect();
  return heapInUse();
}

export async function runShard(
  plan: ShardPlan,
  deps: { scenario: Scenario; pool: WalletPool; client: ServiceClient; serviceDid: string; onProgress?: (p: ShardProgress) => void; signal?: AbortSignal; role?: string; measureRss?: boolean },
): Promise<ShardResult> {
  const { scenario, pool, client, serviceDid } = deps;
  const measured = measureThread(deps.role ?? 'wallets', { rss: deps.measureRss === true });
  const signal = deps.signal ?? new AbortController().signal;
  const hist = new Map<string, LatencyHistogram>([...scenario.steps, 'total'].map((s) => [s, latencyHistogram()]));
  const errors: Record<string, number> = {};
  const errorSamples: Record<string, string> = {};
  const timeline = flowTimeline(plan.startAt);
  let completed = 0;
  let failed = 0;
  let stopped = 0;
  let firstStartAt = Infinity;
  let lastEndAt = 0;

  const resendsBefore = new Map(resendTally);
  const mine: number[] = [];
  if (plan.model.kind === 'closed') for (let i = plan.shard; i < plan.model.wallets; i += plan.shards) mine.push(i);

  // Idle wallets: made before any flow (kept as pages, wallet-pages.ts), measured, then made
  // live again by their flows.
  const sample = plan.model.kind === 'closed' ? mine : Array.from({ length: plan.idleSample }, (_, k) => plan.shard + k * plan.shards);
  const before = heapBytes();
  await inLanes(sample, PREPARE_LANES, signal, (i) => pool.prepare(i));
  const grown = sample.length ? heapBytes() - before : 0;
  // Garbage of earlier work collected meanwhile can make the difference negative: no figure then.
  const onDisk = pool.idle.onDisk;
  const idle = grown > 0 ? { wallets: sample.length, bytes: grown, onDisk } : { wallets: 0, bytes: 0, onDisk };

  const flow = async (index: number): Promise<void> => {
    const startedAt = Date.now();
    firstStartAt = Math.min(firstStartAt, startedAt);
    timeline.started(startedAt);
    const t0 = performance.now();
    try {
      const wallet = await pool.wallet(index);
      const ctx: FlowContext = {
        index,
        userId: `fleet-${plan.runId}-${index}`,
        wallet,
        client,
        serviceDid,
        timeoutMs: plan.timeoutMs,
        signal,
        async step(name, fn) {
          const s = performance.now();
          const value = await fn();
          (hist.get(name) ?? hist.set(name, latencyHistogram()).get(name)!).record(performance.now() - s);
          return value;
        },
      };
      await scenario.run(ctx);
      const ms = performance.now() - t0;
      hist.get('total')!.record(ms);
      completed += 1;
      timeline.ended(Date.now(), ms, true);
    } catch (err) {
      // Cut short by the run's stop (Ctrl-C): not a failure of the service or the flow.
      if (signal.aborted) {
        stopped += 1;
        timeline.dropped(startedAt);
        return;
      }
      const e = toIdsyncError(err);
      const reason = (e.details as { reason?: unknown } | undefined)?.reason;
      const code = typeof reason === 'string' && e.code === 'fleet_flow_failed' ? `${e.code}:${reason}` : e.code;
      errors[code] = (errors[code] ?? 0) + 1;
      errorSamples[code] ??= e.message.slice(0, 300);
      failed += 1;
      timeline.ended(Date.now(), performance.now() - t0, false);
    } finally {
      lastEndAt = Math.max(lastEndAt, Date.now());
      // A finished holder's wallet is let go: a fleet's memory is its idle and running wallets.
      await pool.release(index);
    }
  };

  let ticker: NodeJS.Timeout | undefined;
  if (deps.onProgress) {
    const report = () => deps.onProgress!({ completed, failed, total: hist.get('total')!.encode() });
    ticker = setInterval(report, 500);
    ticker.unref();
  }
  try {
    if (plan.model.kind === 'closed') {
      await inLanes(mine, Math.max(1, Math.ceil(plan.model.concurrency / plan.shards)), signal, flow);
    } else {
      await openArrivals(plan, plan.model, flow, signal);
    }
  } finally {
    if (ticker) clearInterval(ticker);
  }
  deps.onProgress?.({ completed, failed, total: hist.get('total')!.encode() });
  return {
    completed,
    failed,
    stopped,
    histograms: Object.fromEntries([...hist].map(([k, h]) => [k, h.encode()])),
    errors,
    errorSamples,
    startAt: plan.startAt,
    seconds: timeline.data(),
    idle,
    resends: resendsSince(resendsBefore),
    firstStartAt: Number.isFinite(firstStartAt) ? firstStartAt : plan.startAt,
    lastEndAt: lastEndAt || Date.now(),
    ...threadFigures(measured()),
  };
}

/**
 * The flows an open model starts in all: arrivals at `ratePerSecond`, rising linearly from 0
 * over the ramp, for `durationMs` (the integral of the rate, whole arrivals only).
 */
export function openArrivalCount(m: { ratePerSecond: number; durationMs: number; rampMs?: number }): number {
  const ramp = Math.min(m.rampMs ?? 0, m.durationMs);
  // A hair over, so that float error (0.3/s for 10 s) does not lose the last whole arrival.
  return Math.floor((m.ratePerSecond * (m.durationMs - ramp / 2)) / 1000 + 1e-9);
}

/**
 * The open model: arrivals at `ratePerSecond` (all threads together), rising linearly from 0
 * over `rampMs`, for `durationMs`; each arrival starts a flow at once, however many are still
 * running (that is what makes the model open). This thread takes every `shards`-th arrival.
 * Resolves when every flow it started has ended.
 */
async function openArrivals(plan: ShardPlan, m: { ratePerSecond: number; durationMs: number; rampMs: number }, flow: (i: number) => Promise<void>, signal: AbortSignal): Promise<void> {
  const rate = m.ratePerSecond / 1000; // per ms
  const ramp = Math.min(m.rampMs, m.durationMs);
  const timeOf = (k: number) => {
    const rampArrivals = (rate * ramp) / 2;
    return k <= rampArrivals && ramp > 0 ? Math.sqrt((2 * ramp * k) / rate) : ramp + (k - rampArrivals) / rate;
  };
  const total = openArrivalCount(m);
  const running = new Set<Promise<void>>();
  // Arrivals count from now (after the idle wallets were made), not from the run's start.
  const t0 = performance.now();
  for (let k = plan.shard; k < total && !signal.aborted; k += plan.shards) {
    const due = t0 + timeOf(k + 1);
    const wait = due - performance.now();
    if (wait > 1) await new Promise<void>((resolve) => setTimeout(resolve, wait));
    const p = flow(k).finally(() => running.delete(p));
    running.add(p);
  }
  await Promise.all(running);
}
