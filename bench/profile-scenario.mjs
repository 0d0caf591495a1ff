// The sync scenario with timing spans, for bench/profile.mjs: each flow appends one line to the
// file IDSYNC_PROFILE_SPANS (its start and end, each step's, on the process.hrtime clock in µs,
// which is the clock of V8's CPU profiles), so the profiles' samples can be cut to the flows'
// window and, when flows run one at a time, split by step. IDSYNC_PROFILE_GAP_MS leaves that
// long after each flow before the next starts, so what the service does after the wallet's last
// step (the ack, the sync's completion) is seen apart from the next flow. Each line also gives
// the CPU time of this thread and of the process since the first flow started.
import { appendFileSync, readFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { syncScenario } from '../dist/fleet/index.js';

const file = process.env.IDSYNC_PROFILE_SPANS;
const gapMs = Number(process.env.IDSYNC_PROFILE_GAP_MS ?? 0);
const now = () => Number(process.hrtime.bigint() / 1000n);

/**
 * CPU time so far (ms) of this thread (Linux: utime + stime of /proc/thread-self/stat, in 10 ms
 * ticks) and of the whole process (every thread: V8's GC helpers, libuv's pool, the profiler).
 */
function cpuNow() {
  let thread = null;
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    thread = (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    // not Linux: no figure
  }
  const p = process.cpuUsage();
  return { thread, process: (p.user + p.system) / 1000 };
}
/** CPU when this thread's first flow started. */
let cpu0;

export const scenario = {
  name: syncScenario.name,
  steps: syncScenario.steps,
  async run(ctx) {
    const steps = [];
    const step = (name, fn) =>
      ctx.step(name, async () => {
        const from = now();
        try {
          return await fn();
        } finally {
          steps.push([name, from, now()]);
        }
      });
    cpu0 ??= cpuNow();
    const from = now();
    let ok = false;
    try {
      await syncScenario.run({ ...ctx, step });
      ok = true;
    } finally {
      const to = now();
      if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
      if (file) appendFileSync(file, JSON.stringify({ from, to, gapTo: gapMs > 0 ? now() : to, ok, steps, threadId, cpu0, cpu1: cpuNow() }) + '\n');
    }
  },
};
