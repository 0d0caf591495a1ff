// Latency histograms that merge exactly: HdrHistogram (hdr-histogram-js, the JavaScript port of
// Gil Tene's HdrHistogram) records microseconds with three significant digits, and a worker's
// histogram travels to the coordinator as HdrHistogram's compressed encoding and is added there
// bucket by bucket. So the fleet's p99 is the p99 of every flow of every worker, not an average
// of the workers' p99s (which is no percentile of anything).
import hdr from 'hdr-histogram-js';

type Histogram = ReturnType<typeof hdr.build>;

/** Microseconds up to one hour; anything longer is clamped (a flow's guard ends it far sooner). */
const HIGHEST_US = 3_600_000_000;

function build(): Histogram {
  // 32-bit counts (a few hundred KB per histogram: records cost an array store, where 'packed'
  // costs a search); pure JS (no WebAssembly) so that a worker needs no async set-up.
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: HIGHEST_US, numberOfSignificantValueDigits: 3, bitBucketSize: 32, useWebAssembly: false });
}

export interface LatencySummary {
  count: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface LatencyHistogram {
  /** Records one duration in milliseconds. */
  record(ms: number): void;
  /** Adds every value of another histogram (exact: bucket counts add). */
  add(other: LatencyHistogram | string): void;
  readonly count: number;
  summary(): LatencySummary;
  /** The value (ms) at a percentile (0-100). */
  percentile(p: number): number;
  /** HdrHistogram's compressed base64 encoding (what workers send). */
  encode(): string;
  /** Counts in `bins` equal-width bins of log10(ms) from the smallest to the largest value, for drawing. */
  bins(bins: number): { fromMs: number; toMs: number; count: number }[];
}

const ms = (us: number) => Math.round(us) / 1000;

function wrap(h: Histogram): LatencyHistogram & { readonly raw: Histogram } {
  return {
    raw: h,
    record(value) {
      h.recordValue(Math.min(HIGHEST_US, Math.max(1, Math.round(value * 1000))));
    },
    add(other) {
      const o = typeof other === 'string' ? hdr.decodeFromCompressedBase64(other, 32, false) : (other as unknown as { raw: Histogram }).raw;
      h.add(o);
    },
    get count() {
      return h.totalCount;
    },
    percentile(p) {
      return h.totalCount === 0 ? 0 : ms(h.getValueAtPercentile(p));
    },
    summary() {
      if (h.totalCount === 0) return { count: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0, maxMs: 0 };
      return { count: h.totalCount, p50Ms: ms(h.getValueAtPercentile(50)), p90Ms: ms(h.getValueAtPercentile(90)), p99Ms: ms(h.getValueAtPercentile(99)), maxMs: ms(h.getValueAtPercentile(100)) };
    },
    encode() {
      return hdr.encodeIntoCompressedBase64(h);
    },
    bins(n) {
      if (h.totalCount === 0) return [];
      const lo = Math.log10(Math.max(1, h.minNonZeroValue));
      const hi = Math.log10(Math.max(h.maxValue, h.minNonZeroValue + 1));
      const width = (hi - lo) / n || 1;
      const out = Array.from({ length: n }, (_, i) => ({ fromMs: ms(10 ** (lo + i * width)), toMs: ms(10 ** (lo + (i + 1) * width)), count: 0 }));
      let previous = 0;
      // Walks the distribution at fine percentiles (a drawing needs no more): the flows between
      // two consecutive percentile values go in the bin of the upper one.
      const steps = 2000;
      let placed = 0;
      for (let i = 1; i <= steps; i++) {
        const v = h.getValueAtPercentile((i / steps) * 100);
        const total = Math.round((i / steps) * h.totalCount);
        const c = total - previous;
        previous = total;
        if (c <= 0) continue;
        const k = Math.min(n - 1, Math.max(0, Math.floor((Math.log10(Math.max(1, v)) - lo) / width)));
        out[k]!.count += c;
        placed += c;
      }
      if (placed < h.totalCount) out[n - 1]!.count += h.totalCount - placed;
      return out;
    },
  };
}

export function latencyHistogram(): LatencyHistogram {
  return wrap(build());
}

/** A histogram from an encoding made by encode(). */
export function decodeHistogram(encoded: string): LatencyHistogram {
  return wrap(hdr.decodeFromCompressedBase64(encoded, 32, false) as Histogram);
}
