// Retention of the trace files written to the OS temp folder (trace.ts): every wait that times
// out writes one, and nothing else ever removes them. After writing one, a process prunes the
// folder: files older than a day go, and beyond the newest `keep` the rest go too — but only once
// they are an hour old, so that a file another test worker (or this one) wrote during the run,
// and named in an error, is still there when someone reads that error. Pruning never throws: a
// file another process removed first, or one that cannot be removed, is left to the next one.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

export const TRACE_FILE_PREFIX = 'idsync-trace-';

export interface TraceRetention {
  /** How many of the newest trace files are kept whatever their age under maxAgeMs (default 50). */
  keep?: number;
  /** Older files are removed whatever their number (default a day). */
  maxAgeMs?: number;
  /** Younger files are never removed (default an hour): a run's errors name them. */
  graceMs?: number;
  now?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
/** A process prunes at most this often: reading a crowded temp folder after every timeout costs. */
const PRUNE_INTERVAL_MS = 10 * 60 * 1000;

interface TraceFile {
  path: string;
  mtimeMs: number;
}

/** Removes the trace files in `dir` the retention lets go; resolves with their paths. */
export async function pruneTraceFiles(dir: string, r: TraceRetention = {}): Promise<string[]> {
  try {
    const files = await traceFiles(dir);
    const doomed = expired(files, r);
    const removed: string[] = [];
    for (const f of doomed) if (await removeQuietly(f.path)) removed.push(f.path);
    return removed;
  } catch {
    return [];
  }
}

/** Which files go: newest first, the first `keep` stay unless past maxAgeMs, the rest once past graceMs. */
function expired(files: TraceFile[], r: TraceRetention): TraceFile[] {
  const now = r.now ?? Date.now();
  const keep = r.keep ?? 50;
  const maxAgeMs = r.maxAgeMs ?? DAY_MS;
  const graceMs = r.graceMs ?? HOUR_MS;
  const newestFirst = [...files].sort((a, b) => b.mtimeMs - a.mtimeMs);
  return newestFirst.filter((f, i) => {
    const age = now - f.mtimeMs;
    return age > maxAgeMs || (i >= keep && age > graceMs);
  });
}

async function traceFiles(dir: string): Promise<TraceFile[]> {
  const names = (await readdir(dir)).filter((n) => n.startsWith(TRACE_FILE_PREFIX) && n.endsWith('.html'));
  const files: TraceFile[] = [];
  for (const name of names) {
    const path = join(dir, name);
    // Gone already (another worker pruned it) or unreadable: not ours to decide now.
    const s = await stat(path).catch(() => undefined);
    if (s?.isFile()) files.push({ path, mtimeMs: s.mtimeMs });
  }
  return files;
}

async function removeQuietly(path: string): Promise<boolean> {
  return rm(path, { force: true }).then(() => true, () => false);
}

let lastPrune: { dir: string; at: number } | undefined;

/**
 * Prunes `dir` in the background unless this process did so lately; never rejects. Resolves
 * when done (undefined when skipped), for whoever wants to wait for it.
 */
export function pruneTraceFilesSoon(dir: string, now = Date.now()): Promise<string[]> | undefined {
  if (lastPrune && lastPrune.dir === dir && now - lastPrune.at < PRUNE_INTERVAL_MS) return undefined;
  lastPrune = { dir, at: now };
  return pruneTraceFiles(dir, { now });
}
