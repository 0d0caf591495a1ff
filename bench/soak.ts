// Soak: many whole sync flows through one in-process testbed (memory transport and stores)
// under the issue's fault mix — 10 % drop, 5 % duplicate, 2 % reorder, 1 % tamper on every
// DIDComm message both ways (src/testing/soak.ts) — beside the same flows without faults, in
// one run. Each flow has a deadline; a flow not done by then has failed and is reported with
// the step it had not got past. Both parties retry what was lost (router/steps), so a
// dropped, tampered or reordered message delays its flow; the report shows by how much.
// Run: npm run bench:soak [-- --flows 200 --concurrency 20 --timeout 10000 --seed 1 --quick --json]
// (env BENCH_FLOWS, BENCH_CONCURRENCY, BENCH_TIMEOUT_MS, BENCH_SEED, BENCH_QUICK=1).
import os from 'node:os';
import { runSoak, soakFaults, type SoakResult } from '../src/testing/soak.js';

const argv = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const json = argv.includes('--json');
const flows = Number(arg('flows') ?? process.env.BENCH_FLOWS ?? (quick ? 40 : 200));
const concurrency = Number(arg('concurrency') ?? process.env.BENCH_CONCURRENCY ?? 20);
const flowTimeoutMs = Number(arg('timeout') ?? process.env.BENCH_TIMEOUT_MS ?? (quick ? 10_000 : 30_000));
const seed = Number(arg('seed') ?? process.env.BENCH_SEED ?? 1);

const ms = (v: number | null) => (v === null ? '-' : `${v.toFixed(0)} ms`);

const baseline = await runSoak({ flows, concurrency, flowTimeoutMs, faults: { seed, rules: [] } });
const soak = await runSoak({ flows, concurrency, flowTimeoutMs, faults: soakFaults(seed) });

const row = (label: string, r: SoakResult) =>
  `  ${label.padEnd(28)} ${String(r.completed).padStart(9)} ${String(r.failed).padStart(6)} ${ms(r.p50Ms).padStart(9)} ${ms(r.p99Ms).padStart(9)} ${`${(r.wallMs / 1000).toFixed(1)} s`.padStart(8)}`;
const faultText = Object.entries(soak.faults).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
const lines = [
  '',
  `idsync soak: node ${process.version}, ${os.cpus().length} CPU(s); ${flows} sync flows, ${concurrency} at a time, ${flowTimeoutMs} ms deadline each, seed ${seed}${quick ? ', --quick' : ''}`,
  '',
  `  ${''.padEnd(28)} ${'completed'.padStart(9)} ${'failed'.padStart(6)} ${'p50'.padStart(9)} ${'p99'.padStart(9)} ${'wall'.padStart(8)}`,
  row('no faults', baseline),
  row('10% drop 5% dup 2% reo 1% tam', soak),
  '',
  `  faults applied: ${faultText}`,
  `  failed flows by the step they stopped before: ${JSON.stringify(soak.failedAt)}`,
  ...soak.results.filter((r) => !r.ok).map((r) => `    flow ${r.index}: stopped before ${r.stuckAt}: ${r.error}`),
  soak.p50Ms !== null && baseline.p50Ms !== null
    ? `  p50 under faults / without: ${(soak.p50Ms / baseline.p50Ms).toFixed(2)}x, p99 ${(soak.p99Ms! / baseline.p99Ms!).toFixed(2)}x`
    : '',
  soak.failed > 0
    ? `  ${soak.failed} of ${flows} flows did not complete within ${flowTimeoutMs} ms.`
    : '  every flow completed: lost messages were sent again by their senders, replays answered with what followed them.',
  '',
];
process.stdout.write(lines.filter((l) => l !== undefined).join('\n') + '\n');
if (json) {
  const summary = (r: SoakResult) => ({ flows: r.flows, completed: r.completed, failed: r.failed, failedAt: r.failedAt, faults: r.faults, p50Ms: r.p50Ms, p99Ms: r.p99Ms, wallMs: Math.round(r.wallMs) });
  process.stdout.write(JSON.stringify({ bench: 'soak', seed, concurrency, flowTimeoutMs, ...summary(soak), baseline: summary(baseline) }) + '\n');
}
