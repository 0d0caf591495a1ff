// The crash matrix: four flows (sync, invitation with first sync, issuance workflow over the Data
// Pipe, issuance workflow by e-mail), with the service and, separately, the wallet killed at each
// named step (crash points: `send:<message>` once the step is stored and before its message goes
// out, `sent:<message>` after it went out, `received:issue-credential.ack` once the holder's ack
// is stored), restarted on the same store with nobody acting, default retries
// (src/testing/crash-matrix.ts). Prints flow × side × step → recovery time from the restart to
// the flow's completion, and p50/p99/max.
// --processes: real processes instead (`idsync service`, one `idsync wallet serve` per user), all
// four flows at once, killed with SIGKILL at random moments (bench/crash-processes.ts).
// Run: npm run bench:crash [-- --concurrency 4 --timeout 10000 --flow sync --json]
//      npm run bench:crash -- --processes [--rounds 3 --users 8 --json]
import os from 'node:os';
import { crashCases, recoveryQuantiles, runCrashMatrix, type CrashFlow, type CrashOutcome } from '../src/testing/crash-matrix.js';
import { runProcessRounds } from './crash-processes.js';

const argv = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const json = argv.includes('--json');
const timeoutMs = Number(arg('timeout') ?? process.env.BENCH_TIMEOUT_MS ?? 10_000);
const started = performance.now();
const ms = (v: number) => (Number.isFinite(v) ? `${Math.round(v)} ms` : '-');

if (argv.includes('--processes')) {
  const rounds = Number(arg('rounds') ?? 3);
  const users = Number(arg('users') ?? 8);
  const results = await runProcessRounds({ rounds, users, timeoutMs: Number(arg('timeout') ?? 60_000), log: (s) => process.stderr.write(`${s}\n`) });
  const lines = ['', `idsync crash rounds with real processes: node ${process.version}, ${os.cpus().length} CPU(s); ${users} users per round (sync, invitation, workflow over the Data Pipe, workflow by e-mail), one party killed at a random moment`, ''];
  lines.push(`  ${'side'.padEnd(8)} ${'killed after'.padStart(12)} ${'completed'.padStart(10)} ${'recovery'.padStart(10)}  stuck`);
  for (const r of results) {
    lines.push(`  ${r.side.padEnd(8)} ${ms(r.killAfterMs).padStart(12)} ${`${r.completed}/${r.flows}`.padStart(10)} ${ms(r.recoveryMs ?? NaN).padStart(10)}  ${r.stuck.map((s) => `${s.user} (${s.flow}): ${s.detail}`).join('; ')}`);
  }
  const q = recoveryQuantiles(results);
  const all = results.every((r) => r.completed === r.flows);
  lines.push('', `  recovery from restart to the last flow's completion: p50 ${ms(q.p50Ms)}, p99 ${ms(q.p99Ms)}, max ${ms(q.maxMs)}; wall ${((performance.now() - started) / 1000).toFixed(1)} s`, '');
  process.stdout.write(lines.join('\n') + '\n');
  if (json) {
    process.stdout.write(JSON.stringify({ rounds: results.map((r) => ({ side: r.side, killAfterMs: r.killAfterMs, flows: r.flows, completed: r.completed, ...(r.recoveryMs !== undefined ? { recoveryMs: r.recoveryMs } : {}), stuck: r.stuck })), recovery: q }) + '\n');
  }
  if (!all) process.exitCode = 1;
} else {
  const concurrency = Number(arg('concurrency') ?? process.env.BENCH_CONCURRENCY ?? 4);
  const flow = arg('flow') as CrashFlow | undefined;
  const results = await runCrashMatrix(crashCases(flow ? { flow } : {}), { concurrency, timeoutMs });
  const wallMs = performance.now() - started;
  const cell = (r: CrashOutcome | undefined) =>
    !r ? '-' : r.outcome === 'completed' ? `${r.recoveryMs} ms` : r.outcome === 'not-reached' ? 'not reached' : `STUCK: ${r.detail ?? ''}`;
  const lines = ['', `idsync crash matrix: node ${process.version}, ${os.cpus().length} CPU(s); ${results.length} cases, ${concurrency} at a time; recovery = restart → flow completed (default retries), ${timeoutMs} ms allowed`];
  for (const f of [...new Set(results.map((r) => r.flow))]) {
    const rows = results.filter((r) => r.flow === f);
    lines.push('', `  ${f}`, `  ${'step'.padEnd(32)} ${'service killed'.padEnd(16)} wallet killed`);
    for (const step of [...new Set(rows.map((r) => r.step))]) {
      const s = rows.find((r) => r.step === step && r.side === 'service');
      const w = rows.find((r) => r.step === step && r.side === 'wallet');
      lines.push(`  ${step.padEnd(32)} ${cell(s).padEnd(16)} ${cell(w)}`);
    }
  }
  const q = recoveryQuantiles(results);
  const completed = results.filter((r) => r.outcome === 'completed').length;
  lines.push(
    '',
    `  ${completed} of ${results.length} completed without anyone acting; recovery p50 ${ms(q.p50Ms)}, p99 ${ms(q.p99Ms)}, max ${ms(q.maxMs)}; wall ${(wallMs / 1000).toFixed(1)} s`,
    '',
  );
  process.stdout.write(lines.join('\n') + '\n');
  if (json) {
    const cases = results.map((r) => ({ flow: r.flow, side: r.side, step: r.step, completed: r.outcome === 'completed', ...(r.recoveryMs !== undefined ? { recoveryMs: r.recoveryMs } : {}), ...(r.outcome !== 'completed' ? { outcome: r.outcome, detail: r.detail } : {}) }));
    process.stdout.write(JSON.stringify({ cases, recovery: q }) + '\n');
  }
  if (completed !== results.length) process.exitCode = 1;
}
