// Mediated against direct, side by side in one run: the sync scenario for N wallets (default
// 1,000) behind idsync's standalone mediator (their DIDs name it, the twin forwards to it, each
// wallet collects live over Message Pickup 3.0 on its connection to it) and N wallets with endpoints of
// their own, in alternating rounds (direct, mediated, mediated, direct, ...) so that both see the
// same machine. Prints per mode the median over rounds of the throughput (flows/s), of the
// p50 / p99 of a whole sync, of the time taken to make the idle wallets before the flows and of
// their memory each, and the ratio mediated / direct of the throughput (target ≥ 0.7).
// Runs the compiled package (`npm run bench:mediated` builds first), as `idsync fleet` runs.
// Options: --wallets N (BENCH_WALLETS), --concurrency C (default 100), --rounds R (default 3),
// --workers W (default auto), --transport link|http (how the twin and the wallets meet: link,
// the fleet's default, hands direct wallets their messages between threads without sockets, the
// twin's forwards to the mediator the same way, and the mediated wallets' live mode on a link
// socket instead of a WebSocket; http puts everything on sockets), --quick (200
// wallets, 1 round), --json (last line one JSON document).
import { availableParallelism, cpus } from 'node:os';

const { runFleet } = await import('../dist/fleet/index.js');

const argv = process.argv.slice(2);
const arg = (name) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const wallets = Number(arg('wallets') ?? process.env.BENCH_WALLETS ?? (quick ? 200 : 1000));
const concurrency = Number(arg('concurrency') ?? 100);
const rounds = Number(arg('rounds') ?? (quick ? 1 : 3));
const workersArg = arg('workers') ?? 'auto';
const workers = workersArg === 'auto' ? 'auto' : Number(workersArg);
const transport = arg('transport') ?? 'link';
const json = argv.includes('--json');
const TARGET_RATIO = 0.7;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function once(mediated, round) {
  let last = 0;
  const label = `${mediated ? 'mediated' : 'direct'} round ${round + 1}`;
  const r = await runFleet({
    scenario: { builtin: 'sync' },
    model: { kind: 'closed', wallets, concurrency },
    workers,
    embeddedTransport: transport,
    timeoutMs: 30_000,
    ...(mediated ? { mediated: true } : {}),
    onProgress: (p) => {
      if (p.elapsedMs - last < 2000) return;
      last = p.elapsedMs;
      process.stderr.write(`${label}: ${p.completed} done, ${p.failed} failed, ${p.flowsPerSecond.toFixed(1)}/s\n`);
    },
  });
  const s = r.summary;
  return { flowsPerSecond: s.flowsPerSecond, p50Ms: s.steps.total?.p50Ms ?? 0, p99Ms: s.steps.total?.p99Ms ?? 0, completed: s.completed, failed: s.failed, durationMs: s.durationMs, errors: s.errors, setupMs: r.setupMs, memoryPerWalletKB: s.memoryPerWalletKB };
}

const t0 = performance.now();
const runs = { direct: [], mediated: [] };
for (let i = 0; i < rounds; i++) {
  // Alternate which goes first, so neither always runs on a warmer (or more tired) process.
  const order = i % 2 === 0 ? [false, true] : [true, false];
  for (const mediated of order) runs[mediated ? 'mediated' : 'direct'].push(await once(mediated, i));
}
const summary = (list) => ({
  flowsPerSecond: median(list.map((r) => r.flowsPerSecond)),
  p50Ms: median(list.map((r) => r.p50Ms)),
  p99Ms: median(list.map((r) => r.p99Ms)),
  // Making the idle wallets before the flows (behind a mediator: mediation and key registration
  // for each), and the memory each then takes; neither counts in the throughput.
  setupMs: median(list.map((r) => r.setupMs)),
  memoryPerWalletKB: ((kb) => (kb.length ? Math.round(median(kb) * 10) / 10 : null))(list.map((r) => r.memoryPerWalletKB).filter((x) => typeof x === 'number')),
  completed: list.reduce((n, r) => n + r.completed, 0),
  failed: list.reduce((n, r) => n + r.failed, 0),
  rounds: list,
});
const direct = summary(runs.direct);
const mediated = summary(runs.mediated);
const ratio = Math.round((mediated.flowsPerSecond / Math.max(0.001, direct.flowsPerSecond)) * 100) / 100;
const ms = (x) => (x < 1000 ? `${Math.round(x)} ms` : `${(x / 1000).toFixed(2)} s`);
const lines = [
  '',
  `idsync mediated vs direct: node ${process.version}, ${availableParallelism()} core(s) (${cpus()[0]?.model ?? 'cpu'}), sync scenario, ${wallets} wallets, ${concurrency} at a time, ${rounds} round(s) each, workers ${workersArg}, transport ${transport}`,
  '',
  `                       direct      mediated`,
  `  flows/s (median)     ${direct.flowsPerSecond.toFixed(1).padStart(8)}  ${mediated.flowsPerSecond.toFixed(1).padStart(10)}`,
  `  p50 of a sync        ${ms(direct.p50Ms).padStart(8)}  ${ms(mediated.p50Ms).padStart(10)}`,
  `  p99 of a sync        ${ms(direct.p99Ms).padStart(8)}  ${ms(mediated.p99Ms).padStart(10)}`,
  `  completed / failed   ${`${direct.completed}/${direct.failed}`.padStart(8)}  ${`${mediated.completed}/${mediated.failed}`.padStart(10)}`,
  `  wallets made in      ${ms(direct.setupMs).padStart(8)}  ${ms(mediated.setupMs).padStart(10)}`,
  `  KB per idle wallet   ${String(direct.memoryPerWalletKB ?? '-').padStart(8)}  ${String(mediated.memoryPerWalletKB ?? '-').padStart(10)}`,
  '',
  `  throughput ratio mediated / direct: ${ratio} (target ≥ ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'meets target' : 'MISSES target'})`,
  `total ${((performance.now() - t0) / 1000).toFixed(0)} s`,
];
process.stdout.write(lines.join('\n') + '\n');
if (json) process.stdout.write(JSON.stringify({ wallets, concurrency, rounds, workers: workersArg, transport, cores: availableParallelism(), direct, mediated, ratio, targetRatio: TARGET_RATIO, meets: ratio >= TARGET_RATIO }) + '\n');
