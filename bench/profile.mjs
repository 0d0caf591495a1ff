// Where a fleet's CPU goes: runs the sync scenario against the embedded twin with V8's CPU
// profiler on every thread (`node --cpu-prof`: the coordinator, the twin's worker thread and
// each wallets worker write a profile each), then attributes every sample inside the flows'
// window to a layer by the source file of its frame (src/fleet/profile/layers.ts) and prints
//   1. CPU per flow by layer and thread: N wallets, C at a time (default 1,000, 50: the
//      `idsync fleet --wallets 1000 --workers auto` run), with the hottest functions;
//   2. CPU per flow by step and layer: S flows one at a time (default 100), each step a timing
//      span (bench/profile-scenario.mjs), so every sample of every thread falls in one step.
// Proportions are what to read: the profiler's samples are wall time of a thread that was not
// idle, so on a shared machine the milliseconds include time spent waiting for a core.
// Run: npm run bench:profile   (builds, then node bench/profile.mjs)
// Options: --wallets N (1000); --concurrency C (50); --steps S (100; 0 skips the second run);
// --workers auto|N; --mediated (the wallets behind the mediator started for the run, which works
// in the coordinating thread: its column is the mediator's); --quick (200 wallets, 30 flows one
// at a time); --keep DIR (keep the .cpuprofile files, e.g. to open in Chrome DevTools, with each
// run's spans and result); --json:
// the last line is one JSON document.
import { execFileSync, spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const arg = (name) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const SCENARIO = fileURLToPath(new URL('./profile-scenario.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

// --- the child: one fleet run, profiled (started by the parent with --cpu-prof) --------------
if (argv[0] === '--child') {
  const { runFleet } = await import('../dist/fleet/index.js');
  const [, out, wallets, concurrency, workers, mode] = argv;
  const r = await runFleet({
    ...(mode === 'mediated' ? { mediated: true } : {}),
    scenario: { module: SCENARIO },
    model: { kind: 'closed', wallets: Number(wallets), concurrency: Number(concurrency) },
    workers: workers === 'auto' ? 'auto' : Number(workers),
    timeoutMs: 60_000,
  });
  const { writeFile } = await import('node:fs/promises');
  await writeFile(out, JSON.stringify({ summary: r.summary, threads: r.threads, resends: r.resends, setupMs: r.setupMs }));
  process.exit(0);
}

// --- the parent ------------------------------------------------------------------------------
const { attribute, threadProfile } = await import('../dist/fleet/profile/attribution.js');
const { hotTable, inclusiveTable, layerLegend, layerTable, stepHotTable, stepTable } = await import('../dist/fleet/profile/table.js');

const quick = argv.includes('--quick');
const wallets = Number(arg('wallets') ?? (quick ? 200 : 1000));
const concurrency = Number(arg('concurrency') ?? Math.min(wallets, 50));
const stepFlows = Number(arg('steps') ?? (quick ? 30 : 100));
const workers = arg('workers') ?? 'auto';
const keep = arg('keep');
const json = argv.includes('--json');
const mediated = argv.includes('--mediated');

function commit() {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim();
    return dirty ? `${sha}+changes` : sha;
  } catch {
    return 'unknown';
  }
}

/** One profiled fleet run in a child process; its profiles and spans, read back. */
async function profiledRun(label, n, c, gapMs) {
  const dir = await mkdtemp(join(tmpdir(), 'idsync-profile-'));
  const spansFile = join(dir, 'spans.ndjson');
  const resultFile = join(dir, 'result.json');
  process.stderr.write(`${label}: ${n} wallets, ${c} at a time, profiling every thread...\n`);
  try {
    await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${join(dir, 'prof')}`, fileURLToPath(import.meta.url), '--child', resultFile, String(n), String(c), workers, mediated ? 'mediated' : 'direct'], {
        env: { ...process.env, IDSYNC_PROFILE_SPANS: spansFile, IDSYNC_PROFILE_GAP_MS: String(gapMs) },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the profiled run exited with ${code}`))));
    });
    const result = JSON.parse(await readFile(resultFile, 'utf8'));
    const flows = (await readFile(spansFile, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const files = (await readdir(join(dir, 'prof'))).filter((f) => f.endsWith('.cpuprofile'));
    const threads = [];
    for (const f of files) threads.push(threadProfile(JSON.parse(await readFile(join(dir, 'prof', f), 'utf8'))));
    if (keep) {
      const to = join(keep, label.replace(/\W+/g, '-'));
      await cp(join(dir, 'prof'), to, { recursive: true });
      await cp(spansFile, join(to, 'spans.ndjson'));
      await cp(resultFile, join(to, 'result.json'));
    }
    return { result, flows, threads };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const WARM_UP = 10;
const STEP_ORDER = ['connect', 'authenticate', 'issue', 'after', 'outside'];
const sha = commit();
const load = loadavg()[0].toFixed(1);
const t0 = performance.now();
const fleet = await profiledRun('fleet', wallets, concurrency, 0);
const serviceCpu = (run) => run.result.threads.find((t) => t.role === 'service')?.cpuMs ?? null;
const fleetAttribution = attribute(fleet.threads, fleet.flows, { completed: fleet.result.summary.completed, serviceCpuMs: serviceCpu(fleet) });
let steps;
if (stepFlows > 0) {
  // One flow at a time, 25 ms of quiet after each: the twin's ack handling lands in 'after'.
  // The first flows are left out: each does some things for the first time (JIT, lazy loading).
  const run = await profiledRun('steps', stepFlows, 1, 25);
  const skip = Math.min(WARM_UP, Math.floor(stepFlows / 4));
  steps = { run, skip, attribution: attribute(run.threads, run.flows, { completed: run.result.summary.completed - skip, skip, bySteps: true, serviceCpuMs: serviceCpu(run) }) };
}

const s = fleet.result.summary;
const sec = (ms) => `${(ms / 1000).toFixed(1)} s`;
const lines = [
  '',
  `idsync CPU profile of a fleet: node ${process.version}, ${availableParallelism()} core(s) (${cpus()[0]?.model ?? 'cpu'}), load ${load} at start, commit ${sha}`,
  '',
  `1. sync scenario${mediated ? ', wallets behind the mediator (its thread: coordinator)' : ''}, ${s.wallets} wallets, ${concurrency} at a time, ${s.workers} wallets thread(s) + the twin's: ${s.completed} completed, ${s.failed} failed in ${sec(s.durationMs)} (${s.flowsPerSecond} flows/s, p99 ${sec(s.steps.total?.p99Ms ?? 0)}; profiling costs a few %)`,
  `   CPU per flow (ms) by layer (self time; inclusive: any frame of the layer on the stack), ${fleetAttribution.windowMs} ms window`,
  layerTable(fleetAttribution),
  '',
  '   hottest functions (self time, ms per flow):',
  hotTable(fleetAttribution),
  '',
  "   idsync's functions by inclusive time (theirs and their callees', ms per flow):",
  inclusiveTable(fleetAttribution),
];
if (steps) {
  const rs = steps.run.result.summary;
  lines.push(
    '',
    `2. the same flow one at a time (${rs.completed} flows, the first ${steps.skip} left out; p50 ${(rs.steps.total?.p50Ms ?? 0).toFixed(1)} ms): CPU per flow (ms, all threads) by step and layer;`,
    "   'after': the 25 ms left after each flow (the twin handling the ack), 'outside': between flows (the wallet pool)",
    stepTable(steps.attribution, STEP_ORDER),
    '',
    '   hottest functions of each step (self time, ms per flow):',
    stepHotTable(steps.attribution, STEP_ORDER),
  );
}
lines.push('', 'layers:', layerLegend(), '', `total ${((performance.now() - t0) / 1000).toFixed(0)} s`);
process.stdout.write(lines.join('\n') + '\n');
if (json) {
  process.stdout.write(
    JSON.stringify({
      commit: sha,
      node: process.version,
      cores: availableParallelism(),
      loadAtStart: Number(load),
      mediated,
      fleet: { wallets: s.wallets, concurrency, summary: s, threads: fleet.result.threads, cpuPerFlowMs: fleetAttribution },
      ...(steps ? { steps: { flows: steps.run.result.summary.completed, summary: steps.run.result.summary, cpuPerFlowMs: steps.attribution } } : {}),
    }) + '\n',
  );
}
