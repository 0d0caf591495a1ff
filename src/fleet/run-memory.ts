// A fleet run's memory: each thread's heap sampled each second (thread-stats.ts), the process's
// resident set from the thread that sampled it, and the peaks, on the run's time axis (seconds
// since the first flow started; negative while the idle wallets were made). What a report
// draws to show that memory stays bounded however many wallets a run has.
import type { MemorySample, ThreadStats } from './thread-stats.js';

export interface FleetMemory {
  /** The process's peak resident set (bytes), or null when no thread measured it. */
  peakRssBytes: number | null;
  /** Each thread's peak heap (used + external, bytes) by its label. */
  peakHeapBytes: Record<string, number>;
  /** Each thread's heap over time: [second, bytes]. */
  heap: { label: string; points: [number, number][] }[];
  /** The process's RSS over time: [second, bytes]. */
  rss: [number, number][];
}

/** Labels of threads as tables show them: their role, numbered when several share one. */
export function threadLabels(threads: Pick<ThreadStats, 'role'>[]): string[] {
  const count = new Map<string, number>();
  for (const t of threads) count.set(t.role, (count.get(t.role) ?? 0) + 1);
  const seen = new Map<string, number>();
  return threads.map((t) => {
    if (count.get(t.role)! < 2) return t.role;
    const k = (seen.get(t.role) ?? 0) + 1;
    seen.set(t.role, k);
    return `${t.role} ${k}`;
  });
}

/** The threads' samples (`zeroAt`: epoch ms of second 0) and peaks. */
export function fleetMemory(threads: { stats: ThreadStats; memory: MemorySample[] }[], zeroAt: number): FleetMemory {
  const labels = threadLabels(threads.map((t) => t.stats));
  const second = (at: number) => Math.round((at - zeroAt) / 100) / 10;
  const rss: [number, number][] = [];
  let peakRssBytes: number | null = null;
  const peakHeapBytes: Record<string, number> = {};
  const heap = threads.map((t, i) => {
    peakHeapBytes[labels[i]!] = t.stats.peakHeapBytes;
    if (t.stats.peakRssBytes !== undefined) peakRssBytes = Math.max(peakRssBytes ?? 0, t.stats.peakRssBytes);
    for (const m of t.memory) if (m.rssBytes !== undefined) rss.push([second(m.at), m.rssBytes]);
    return { label: labels[i]!, points: t.memory.map((m) => [second(m.at), m.heapBytes] as [number, number]) };
  });
  return { peakRssBytes, peakHeapBytes, heap, rss };
}
