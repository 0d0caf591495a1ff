// How busy a thread was during a fleet run: event-loop utilisation (the share of the time its
// loop was running code rather than waiting), its own CPU time where the platform tells it
// (process.threadCpuUsage on newer Node, /proc/thread-self/stat on Linux), and the pauses of
// its garbage collector. A thread near 100 % is the one the run waits for; GC time says how
// much of that is allocation churn. And its memory: the heap it used (V8's used heap plus the
// external memory it holds), sampled each second, and where asked the process's resident set.
import { readFileSync } from 'node:fs';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

export interface ThreadStats {
  /** 'service' (the embedded twin's thread), 'wallets', or 'service+wallets' in one thread. */
  role: string;
  /** Event-loop utilisation over the run, 0..1. */
  elu: number;
  /** CPU time of this thread (ms); null where the platform does not say. */
  cpuMs: number | null;
  /** Time in garbage-collection pauses on this thread (ms), and how many. */
  gcMs: number;
  gcCount: number;
  wallMs: number;
  /** The most heap (used + external, bytes) seen in a sample. */
  peakHeapBytes: number;
  /** The process's peak resident set (bytes, the kernel's high-water mark): the thread that asked for it. */
  peakRssBytes?: number;
}

/** A memory sample: when (epoch ms), this thread's heap, and the process's RSS where sampled. */
export interface MemorySample {
  at: number;
  heapBytes: number;
  rssBytes?: number;
}

/** Used heap and the external memory it holds (array buffers, strings outside the heap). */
export function heapInUse(): number {
  const h = getHeapStatistics();
  return h.used_heap_size + h.external_memory;
}

/** Sampling period of the memory figures. */
const MEMORY_EVERY_MS = 1000;

/** CPU time of the calling thread in ms, or null. */
function threadCpuMs(): number | null {
  const own = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage;
  if (typeof own === 'function') {
    const u = own.call(process);
    return (u.user + u.system) / 1000;
  }
  try {
    // Fields 14 and 15 (utime, stime) in clock ticks, after the parenthesised command name.
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return null;
  }
}

/**
 * Starts measuring this thread; the function returned ends it and gives the figures, with the
 * memory samples taken meanwhile (`rss`: the process's resident set too, for one thread only).
 */
export function measureThread(role: string, options: { rss?: boolean } = {}): () => ThreadStats & { memory: MemorySample[] } {
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = threadCpuMs();
  const t0 = performance.now();
  let gcMs = 0;
  let gcCount = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcMs += e.duration;
      gcCount += 1;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const memory: MemorySample[] = [];
  let peakHeapBytes = 0;
  const sample = () => {
    const heapBytes = heapInUse();
    peakHeapBytes = Math.max(peakHeapBytes, heapBytes);
    memory.push({ at: Date.now(), heapBytes, ...(options.rss ? { rssBytes: process.memoryUsage.rss() } : {}) });
  };
  sample();
  const ticker = setInterval(sample, MEMORY_EVERY_MS);
  ticker.unref();
  return () => {
    clearInterval(ticker);
    sample();
    observer.disconnect();
    const cpu1 = threadCpuMs();
    const round = (x: number) => Math.round(x);
    return {
      role,
      elu: Math.round(performance.eventLoopUtilization(elu0).utilization * 1000) / 1000,
      cpuMs: cpu0 !== null && cpu1 !== null ? round(cpu1 - cpu0) : null,
      gcMs: round(gcMs),
      gcCount,
      wallMs: round(performance.now() - t0),
      peakHeapBytes,
      ...(options.rss ? { peakRssBytes: process.resourceUsage().maxRSS * 1024 } : {}),
      memory,
    };
  };
}
