// The crash matrix (issue 10 part 7): a sync and an issuance workflow, with the service and,
// separately, the wallet killed at each named step (crash points: `send:<message>` once the step's
// state is stored and before its message goes out, `sent:<message>` after it went out,
// `received:issue-credential.ack` between the ack recorded and the completion), restarted on
// the same store with nobody acting (src/testing/crash-matrix.ts). Prints step × side → outcome
// (completed with the time from crash to completion, not-reached, stuck with what was seen).
// Run: npm run bench:crash [-- --concurrency 4 --timeout 8000 --flow sync|workflow --json]
import os from 'node:os';
import { crashCases, runCrashMatrix, type CrashFlow, type CrashOutcome } from '../src/testing/crash-matrix.js';

const argv = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const json = argv.includes('--json');
const concurrency = Number(arg('concurrency') ?? process.env.BENCH_CONCURRENCY ?? 4);
const timeoutMs = Number(arg('timeout') ?? process.env.BENCH_TIMEOUT_MS ?? 8_000);
const flow = arg('flow') as CrashFlow | undefined;

const started = performance.now();
const results = await runCrashMatrix(crashCases(flow ? { flow } : {}), { concurrency, timeoutMs });
const wallMs = performance.now() - started;

const cell = (r: CrashOutcome | undefined) =>
  !r ? '-' : r.outcome === 'completed' ? `completed (${r.recoveryMs} ms)` : r.outcome === 'not-reached' ? 'not reached' : `STUCK: ${r.detail ?? ''}`;
const lines = ['', `idsync crash matrix: node ${process.version}, ${os.cpus().length} CPU(s); ${results.length} cases, ${concurrency} at a time, ${timeoutMs} ms to complete after the restart`];
for (const f of ['sync', 'workflow'] as const) {
  const rows = results.filter((r) => r.flow === f);
  if (!rows.length) continue;
  lines.push('', `  ${f}`, `  ${'step'.padEnd(32)} ${'service killed'.padEnd(30)} wallet killed`);
  const steps = [...new Set(rows.map((r) => r.step))];
  for (const step of steps) {
    const s = rows.find((r) => r.step === step && r.side === 'service');
    const w = rows.find((r) => r.step === step && r.side === 'wallet');
    lines.push(`  ${step.padEnd(32)} ${cell(s).padEnd(30)} ${cell(w)}`);
  }
}
const completed = results.filter((r) => r.outcome === 'completed').length;
lines.push('', `  ${completed} of ${results.length} completed without anyone acting; wall ${(wallMs / 1000).toFixed(1)} s`, '');
process.stdout.write(lines.join('\n') + '\n');
if (json) {
  process.stdout.write(
    JSON.stringify({ bench: 'crash', cases: results.length, completed, wallMs: Math.round(wallMs), matrix: results.map((r) => ({ flow: r.flow, side: r.side, step: r.step, outcome: r.outcome, ...(r.recoveryMs !== undefined ? { recoveryMs: r.recoveryMs } : {}), ...(r.detail ? { detail: r.detail } : {}) })) }) + '\n',
  );
}
if (completed !== results.length) process.exitCode = 1;
