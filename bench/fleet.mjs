// Fleet benchmark (issue 11): the sync scenario against the embedded twin, in one process tree,
//   1. closed model, N wallets (default 1,000), C at a time: everything in one thread
//      (--workers 1), then one event loop per core (--workers auto: the embedded service in a
//      worker thread of its own, the wallets on a worker thread for each other core, linked
//      without sockets);
//   2. open model at 80 % of the larger measured throughput, with a ramp: p99 of the whole sync;
// and prints each figure beside its target: N wallets syncing ≤ 15 s, p99 ≤ 1 s at 80 % of the
// maximum rate, memory per idle wallet ≤ 100 KB. Runs the compiled package (dist/: `npm run
// build` first, which `npm run bench:fleet` does), as users run `idsync fleet`.
// Options (argv or env): --quick (BENCH_QUICK=1: 200 wallets, a 10 s open run); --wallets N
// (BENCH_WALLETS); --concurrency C (BENCH_CONCURRENCY, default 100); --open-seconds S
// (BENCH_OPEN_SECONDS, default 30); --json: the last line is one JSON document. A flow waits at
// most 30 s for each step (a message lost under overload fails it instead of stalling the run).
import { availableParallelism, cpus } from 'node:os';

const { runFleet } = await import('../dist/fleet/index.js');

const argv = process.argv.slice(2);
const arg = (name) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const wallets = Number(arg('wallets') ?? process.env.BENCH_WALLETS ?? (quick ? 200 : 1000));
const concurrency = Number(arg('concurrency') ?? process.env.BENCH_CONCURRENCY ?? 100);
const openSeconds = Number(arg('open-seconds') ?? process.env.BENCH_OPEN_SECONDS ?? (quick ? 10 : 30));
const json = argv.includes('--json');
const cores = availableParallelism();

const TARGETS = { fleetSeconds: 15, p99AtEightyMs: 1000, memoryPerWalletKB: 100 };

let lastProgress = 0;
const progress = (label) => (p) => {
  if (p.elapsedMs - lastProgress < 2000) return;
  lastProgress = p.elapsedMs;
  process.stderr.write(`${label}: ${p.completed} done, ${p.failed} failed, ${p.flowsPerSecond.toFixed(1)}/s, p99 ${p.p99Ms.toFixed(0)} ms, ${(p.elapsedMs / 1000).toFixed(0)} s\n`);
};

async function closed(workers) {
  lastProgress = 0;
  const r = await runFleet({ scenario: { builtin: 'sync' }, model: { kind: 'closed', wallets, concurrency }, workers, timeoutMs: 30_000, onProgress: progress(`closed, ${workers} worker(s)`) });
  return { ...r.summary, resends: r.resends, threads: r.threads };
}

const t0 = performance.now();
const one = await closed(1);
const perCore = await closed('auto');
const autoWorkers = perCore.workers;
const maxRate = Math.max(one.flowsPerSecond, perCore.flowsPerSecond);
const openWorkers = perCore.flowsPerSecond >= one.flowsPerSecond ? 'auto' : 1;
const rate = Math.max(1, Math.round(maxRate * 0.8 * 10) / 10);
lastProgress = 0;
const openRun = (
  await runFleet({
    scenario: { builtin: 'sync' },
    model: { kind: 'open', ratePerSecond: rate, durationMs: openSeconds * 1000, rampMs: Math.min(5000, (openSeconds * 1000) / 4) },
    workers: openWorkers,
    timeoutMs: 30_000,
    onProgress: progress(`open ${rate}/s, ${openWorkers} worker(s)`),
  })
);
const open = { ...openRun.summary, resends: openRun.resends, threads: openRun.threads };

// Under a second in milliseconds: an open-model sync takes tens of them, which `0.0 s` hid.
const s = (ms) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);
const resent = (r) => Object.values(r ?? {}).reduce((n, k) => n + k, 0);
const verdict = (ok) => (ok ? 'meets target' : 'MISSES target');
// Which thread each run waited for: busy share of its event loop (CPU seconds).
const busy = (threads, role) => {
  const t = (threads ?? []).filter((x) => x.role === role);
  if (!t.length) return '-';
  return t.map((x) => `${Math.round(x.elu * 100)}%${x.cpuMs === null ? '' : ` (${(x.cpuMs / 1000).toFixed(1)} s)`}`).join(', ');
};
const memory = Math.max(one.memoryPerWalletKB ?? 0, perCore.memoryPerWalletKB ?? 0);
const lines = [
  '',
  `idsync fleet benchmark: node ${process.version}, ${cores} core(s) (${cpus()[0]?.model ?? 'cpu'}), sync scenario, embedded twin, compiled package`,
  '',
  `closed model, ${wallets} wallets, ${concurrency} at a time        1 thread   auto (${autoWorkers} worker thread(s) + the service's)`,
  `  wall time of the flows                        ${s(one.durationMs).padStart(9)} ${s(perCore.durationMs).padStart(10)}   target ≤ ${TARGETS.fleetSeconds} s for 1,000: ${verdict(Math.min(one.durationMs, perCore.durationMs) * (1000 / wallets) <= TARGETS.fleetSeconds * 1000)}`,
  `  flows per second                              ${String(one.flowsPerSecond).padStart(9)} ${String(perCore.flowsPerSecond).padStart(10)}`,
  `  p50 / p99 of a whole sync                ${`${s(one.steps.total.p50Ms)} / ${s(one.steps.total.p99Ms)}`.padStart(14)} ${`${s(perCore.steps.total.p50Ms)} / ${s(perCore.steps.total.p99Ms)}`.padStart(15)}`,
  `  completed / failed                            ${`${one.completed}/${one.failed}`.padStart(9)} ${`${perCore.completed}/${perCore.failed}`.padStart(10)}`,
  `  messages sent again (resends)                ${String(resent(one.resends)).padStart(9)} ${String(resent(perCore.resends)).padStart(10)}`,
  `  busy: service thread                    ${busy(one.threads, 'service+wallets').padStart(14)} ${busy(perCore.threads, 'service').padStart(15)}`,
  `  busy: wallet thread(s)                  ${'(same)'.padStart(14)} ${busy(perCore.threads, 'wallets').padStart(15)}`,
  `  memory per idle wallet                        ${`${one.memoryPerWalletKB} KB`.padStart(9)} ${`${perCore.memoryPerWalletKB ?? 'n/a'} KB`.padStart(10)}   target ≤ ${TARGETS.memoryPerWalletKB} KB: ${verdict(memory <= TARGETS.memoryPerWalletKB)}`,
  '',
  `open model at 80% of the measured maximum (${rate}/s of ${maxRate}/s, ${openSeconds} s, ${openWorkers} worker(s))`,
  `  p50 / p90 / p99 of a whole sync               ${s(open.steps.total?.p50Ms ?? 0)} / ${s(open.steps.total?.p90Ms ?? 0)} / ${s(open.steps.total?.p99Ms ?? 0)}   target p99 ≤ 1 s: ${verdict((open.steps.total?.p99Ms ?? Infinity) <= TARGETS.p99AtEightyMs)}`,
  `  completed / failed                            ${open.completed}/${open.failed}  (${open.flowsPerSecond} flows/s, ${resent(open.resends)} resends)`,
  '',
  `total ${((performance.now() - t0) / 1000).toFixed(0)} s`,
];
process.stdout.write(lines.join('\n') + '\n');
if (json) {
  process.stdout.write(
    JSON.stringify({
      wallets,
      concurrency,
      cores,
      closed: { oneThread: one, perCore },
      open: { ratePerSecond: rate, maxRatePerSecond: maxRate, workers: openWorkers, summary: open },
      targets: TARGETS,
      meets: {
        fleetSeconds: Math.min(one.durationMs, perCore.durationMs) * (1000 / wallets) <= TARGETS.fleetSeconds * 1000,
        p99AtEighty: (open.steps.total?.p99Ms ?? Infinity) <= TARGETS.p99AtEightyMs,
        memoryPerWallet: memory <= TARGETS.memoryPerWalletKB,
      },
    }) + '\n',
  );
}
