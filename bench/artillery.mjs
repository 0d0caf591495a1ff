// A short Artillery run of the idsync engine against the embedded twin (bench/artillery/sync.yml:
// 5 s at 4 new virtual users per second, each connect → sync → issuance by e-mail), on the
// compiled package (`npm run bench:artillery` builds it first). Artillery is not a dependency
// (several hundred MB): this runs `npx artillery@2.0.21` (the last release for Node 20), or the
// binary named by ARTILLERY_BIN. Prints our metrics from Artillery's report; --json: the last
// line is one JSON document {vusers, metrics: {<name>: count | {p50, p99, max}}}.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const scenario = process.argv.find((a) => a.endsWith('.yml')) ?? join(root, 'bench/artillery/sync.yml');
const json = process.argv.includes('--json');
const dir = await mkdtemp(join(tmpdir(), 'idsync-artillery-'));
const output = join(dir, 'report.json');
const [cmd, args] = process.env.ARTILLERY_BIN
  ? [process.env.ARTILLERY_BIN, []]
  : ['npx', ['--yes', 'artillery@2.0.21']];
try {
  await new Promise((resolve, reject) => {
    const child = execFile(cmd, [...args, 'run', '--output', output, scenario], {
      cwd: root,
      // NODE_PATH: where Artillery's require('artillery-engine-idsync') finds our shim. Install
      // scripts off: Artillery's browser engine would download a browser we do not use.
      env: { ...process.env, NODE_PATH: root, npm_config_ignore_scripts: 'true' },
      maxBuffer: 64 * 1024 * 1024,
    }, (err) => (err ? reject(err) : resolve(undefined)));
    child.stdout?.pipe(process.stderr);
    child.stderr?.pipe(process.stderr);
  });
  const report = JSON.parse(await readFile(output, 'utf8'));
  const agg = report.aggregate ?? {};
  const counters = agg.counters ?? {};
  const summaries = agg.summaries ?? {};
  const metrics = {};
  for (const [k, v] of Object.entries(counters)) if (k.startsWith('idsync.')) metrics[k] = v;
  for (const [k, v] of Object.entries(summaries)) if (k.startsWith('idsync.')) metrics[k] = { p50: v.median ?? v.p50, p99: v.p99, max: v.max };
  const vusers = { created: counters['vusers.created'] ?? 0, completed: counters['vusers.completed'] ?? 0, failed: counters['vusers.failed'] ?? 0 };
  const lines = ['', `artillery ${scenario}: ${vusers.completed}/${vusers.created} virtual users completed, ${vusers.failed} failed`];
  for (const [k, v] of Object.entries(metrics)) lines.push(`  ${k.padEnd(28)} ${typeof v === 'number' ? v : `p50 ${v.p50} ms, p99 ${v.p99} ms, max ${v.max} ms`}`);
  process.stdout.write(lines.join('\n') + '\n');
  if (json) process.stdout.write(JSON.stringify({ vusers, metrics }) + '\n');
  if (vusers.failed > 0 || vusers.completed === 0) process.exitCode = 1;
} finally {
  await rm(dir, { recursive: true, force: true });
}
