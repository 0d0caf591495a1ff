// A run second by second: flows started, completed and failed, and the latency of the flows
// that completed in each second, kept as a sparse histogram of 1 %-wide logarithmic buckets per
// second. Buckets add exactly across threads (as the HDR histograms of histogram.ts do for the
// whole run), so a second's p99 is over every flow of every thread that ended in it, to within
// 1 %, in a few hundred numbers per second however many flows a run has.

/** Per second since the run's zero (ShardPlan.startAt), as threads send it. */
export interface SecondsData {
  started: number[];
  completed: number[];
  failed: number[];
  /** Per second: [bucket, count, bucket, count, ...] of completed flows' latency. */
  latency: number[][];
}

/** One second of a run, for the report. */
export interface SecondFigures {
  second: number;
  started: number;
  completed: number;
  failed: number;
  /** Flows started and not yet ended at the end of this second. */
  inFlight: number;
  /** Latency of the flows completed in this second (null: none completed). */
  p50Ms: number | null;
  p90Ms: number | null;
  p99Ms: number | null;
}

const GROWTH = Math.log(1.01);
/** The bucket of a latency: the smallest k with 1.01^k ≥ ms. */
const bucketOf = (ms: number) => Math.ceil(Math.log(Math.max(ms, 0.001)) / GROWTH);
const valueOf = (k: number) => Math.round(Math.exp(k * GROWTH) * 1000) / 1000;

export interface FlowTimeline {
  started(at: number): void;
  /** A flow ended at `at` (epoch ms), after `ms`; only completed flows' latency is kept. */
  ended(at: number, ms: number, ok: boolean): void;
  /** A flow started at `at` was cut short by the run's stop: it neither completed nor failed, and no longer counts as started. */
  dropped(at: number): void;
  data(): SecondsData;
}

/** Counts by the second of `at` (epoch ms) since `zero`. */
export function flowTimeline(zero: number): FlowTimeline {
  const started: number[] = [];
  const completed: number[] = [];
  const failed: number[] = [];
  const latency: Map<number, number>[] = [];
  const second = (at: number) => Math.max(0, Math.floor((at - zero) / 1000));
  const bump = (series: number[], s: number) => {
    while (series.length <= s) series.push(0);
    series[s]! += 1;
  };
  return {
    started: (at) => bump(started, second(at)),
    dropped(at) {
      const s = second(at);
      if ((started[s] ?? 0) > 0) started[s]! -= 1;
    },
    ended(at, ms, ok) {
      const s = second(at);
      bump(ok ? completed : failed, s);
      if (!ok) return;
      const buckets = (latency[s] ??= new Map());
      const k = bucketOf(ms);
      buckets.set(k, (buckets.get(k) ?? 0) + 1);
    },
    data() {
      const n = Math.max(started.length, completed.length, failed.length);
      const pad = (a: number[]) => Array.from({ length: n }, (_, i) => a[i] ?? 0);
      return {
        started: pad(started),
        completed: pad(completed),
        failed: pad(failed),
        latency: Array.from({ length: n }, (_, i) => (latency[i] ? [...latency[i]].flat() : [])),
      };
    },
  };
}

/** The threads' seconds added together (same zero). */
export function mergeSeconds(list: SecondsData[]): SecondsData {
  const n = Math.max(0, ...list.map((d) => d.started.length));
  const sum = (pick: (d: SecondsData) => number[]) => Array.from({ length: n }, (_, i) => list.reduce((t, d) => t + (pick(d)[i] ?? 0), 0));
  const latency = Array.from({ length: n }, (_, i) => {
    const m = new Map<number, number>();
    for (const d of list) {
      const flat = d.latency[i] ?? [];
      for (let j = 0; j < flat.length; j += 2) m.set(flat[j]!, (m.get(flat[j]!) ?? 0) + flat[j + 1]!);
    }
    return [...m].flat();
  });
  return { started: sum((d) => d.started), completed: sum((d) => d.completed), failed: sum((d) => d.failed), latency };
}

/** The value at percentile `p` of flat [bucket, count, ...] (the bucket's upper bound, ms). */
function percentileOf(flat: number[], p: number): number | null {
  const pairs: [number, number][] = [];
  let total = 0;
  for (let j = 0; j < flat.length; j += 2) {
    pairs.push([flat[j]!, flat[j + 1]!]);
    total += flat[j + 1]!;
  }
  if (total === 0) return null;
  pairs.sort((a, b) => a[0] - b[0]);
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (const [k, c] of pairs) {
    seen += c;
    if (seen >= rank) return valueOf(k);
  }
  return valueOf(pairs[pairs.length - 1]![0]);
}

/** Each second's figures; in flight counts every flow started before, so it is computed from second 0. */
export function secondFigures(d: SecondsData): SecondFigures[] {
  let inFlight = 0;
  return d.started.map((started, second) => {
    const completed = d.completed[second] ?? 0;
    const failed = d.failed[second] ?? 0;
    inFlight += started - completed - failed;
    const flat = d.latency[second] ?? [];
    return { second, started, completed, failed, inFlight, p50Ms: percentileOf(flat, 50), p90Ms: percentileOf(flat, 90), p99Ms: percentileOf(flat, 99) };
  });
}
