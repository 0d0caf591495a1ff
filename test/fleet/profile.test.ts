// CPU profile attribution (src/fleet/profile): frames to layers by their source file, builtins
// and helpers charged to their caller, samples as time, the flows' window, the split by step,
// scaling to a thread's CPU clock; and a small fleet profiled for real with `node --cpu-prof`
// on every thread (bench:profile's 1,000 wallets, with three).
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attribute, threadProfile, windowCpu, type FlowSpans } from '../../src/fleet/profile/attribution.js';
import { inclusiveFunctions, profileSamples, threadRole, type CpuProfile } from '../../src/fleet/profile/cpu-profile.js';
import { layerOfFrame } from '../../src/fleet/profile/layers.js';
import { hotTable, inclusiveTable, layerTable, stepTable } from '../../src/fleet/profile/table.js';
import { ROOT } from '../cli/run-cli.js';

const f = (url: string, functionName = 'fn') => ({ url, functionName });

describe('layerOfFrame', () => {
  it('names the layer of idsync modules, compiled or from sources, and of the packages under them', () => {
    const cases: [string, string][] = [
      ['file:///w/dist/didcomm/envelope/native-unpack.js', 'envelope'],
      ['file:///w/src/crypto/x25519.ts', 'envelope'],
      ['file:///w/dist/keys.js', 'envelope'],
      ['file:///w/dist/didcomm/message.js', 'router'],
      ['file:///w/dist/router/steps/engine.js', 'router'],
      ['file:///w/dist/didcomm/transport/http.js', 'http'],
      ['file:///w/dist/service/http/problem.js', 'http'],
      ['file:///w/dist/service/didcomm/issuer.js', 'agents'],
      ['file:///w/dist/wallet/issue-credential.js', 'agents'],
      ['file:///w/dist/protocols/present-proof.js', 'agents'],
      ['file:///w/dist/conformance/registry.js', 'conformance'],
      ['file:///w/dist/store/light-store.js', 'store'],
      ['file:///w/dist/credentials/verify.js', 'credentials'],
      ['file:///w/dist/did/ion.js', 'did'],
      ['file:///w/dist/fleet/link.js', 'link'],
      ['file:///w/dist/fleet/runner.js', 'fleet'],
      ['file:///w/dist/testing/rest-client.js', 'fleet'],
      ['file:///w/node_modules/@noble/curves/ed25519.js', 'envelope'],
      ['file:///w/node_modules/sodium-native/index.js', 'envelope'],
      ['file:///w/node_modules/jsonld/lib/jsonld.js', 'credentials'],
      ['file:///w/node_modules/rdf-canonize/lib/URDNA2015.js', 'credentials'],
      ['file:///w/node_modules/fastify/lib/route.js', 'http'],
      ['file:///w/node_modules/light-my-request/lib/request.js', 'http'],
      ['file:///w/node_modules/hdr-histogram-js/dist/index.js', 'fleet'],
      ['file:///w/node_modules/some-package/index.js', 'other'],
      ['node:internal/deps/undici/undici', 'http'],
    ];
    for (const [url, layer] of cases) expect(layerOfFrame(f(url)), url).toBe(layer);
  });

  it("leaves builtins, node internals and shared helpers to their caller; marks GC, idle and V8's own time", () => {
    expect(layerOfFrame(f('', 'parse'))).toBe('inherit');
    expect(layerOfFrame(f('node:internal/crypto/hash'))).toBe('inherit');
    expect(layerOfFrame(f('file:///w/dist/encoding.js'))).toBe('inherit');
    expect(layerOfFrame(f('', '(garbage collector)'))).toBe('gc');
    expect(layerOfFrame(f('', '(idle)'))).toBe('(idle)');
    expect(layerOfFrame(f('', '(program)'))).toBe('other');
  });
});

/**
 * (root) ─ (idle) | (garbage collector) | store get ─ parse | task_queues ─ envelope unpack ─ @noble
 *        | task_queues ─ runMicrotasks (no idsync frame)
 */
function syntheticProfile(): CpuProfile {
  const nodes = [
    { id: 1, callFrame: f('', '(root)'), children: [2, 3, 4, 6, 9] },
    { id: 2, callFrame: f('', '(idle)') },
    { id: 3, callFrame: f('', '(garbage collector)') },
    { id: 4, callFrame: f('file:///w/dist/store/light-store.js', 'get'), children: [5] },
    { id: 5, callFrame: f('', 'parse') },
    { id: 6, callFrame: f('node:internal/process/task_queues', 'processTicksAndRejections'), children: [7] },
    { id: 7, callFrame: f('file:///w/dist/didcomm/envelope/native-unpack.js', 'unpack'), children: [8] },
    { id: 8, callFrame: f('file:///w/node_modules/@noble/curves/ed25519.js', 'verify') },
    { id: 9, callFrame: f('node:internal/process/task_queues', 'processTicksAndRejections'), children: [10] },
    { id: 10, callFrame: f('', 'runMicrotasks') },
  ];
  // One sample each 1,000 µs from t = 1,000,000 µs: idle, gc, parse, get, noble, unpack, microtasks, idle.
  const samples = [2, 3, 5, 4, 8, 7, 10, 2];
  return { nodes, startTime: 1_000_000, endTime: 1_008_000, samples, timeDeltas: samples.map(() => 1000) };
}

describe('profile samples and attribution', () => {
  it('charges a builtin to its caller, drops idle samples, and times each sample until the next', () => {
    const s = profileSamples(syntheticProfile());
    expect(s.map((x) => x.layer)).toEqual(['gc', 'store', 'store', 'envelope', 'envelope', 'runtime']);
    expect(s.map((x) => x.us)).toEqual([1000, 1000, 1000, 1000, 1000, 1000]);
    expect(s[1]!.where).toBe('store/light-store.js:get > parse');
    // The event loop under a callback is no layer on its stack.
    expect([...s[3]!.stack]).toEqual(['envelope']);
    // Inclusive time by idsync function: a package or builtin under it counts for it.
    expect(inclusiveFunctions(s)).toEqual([
      { where: 'store/light-store.js:get', us: 2000 },
      { where: 'didcomm/envelope/native-unpack.js:unpack', us: 2000 },
    ]);
  });

  it('sums the window by layer per flow, and scales a thread to its CPU clock', () => {
    const thread = { ...threadProfile(syntheticProfile()), role: 'service' as const };
    // Two flows; their window leaves out the gc sample (at 1,002,000 µs).
    const flows: FlowSpans[] = [
      { from: 1_002_500, to: 1_004_000, gapTo: 1_004_000, ok: true, steps: [] },
      { from: 1_004_000, to: 1_007_500, gapTo: 1_007_500, ok: true, steps: [] },
    ];
    const a = attribute([thread], flows, { completed: 2 });
    expect(a.byThread.service!.self).toMatchObject({ gc: 0, store: 1, envelope: 1, runtime: 0.5 });
    expect(a.all.totalMs).toBe(2.5);
    expect(a.byThread.service!.scaled).toBe(false);
    expect(layerTable(a)).toMatch(/\n {2}store +1\.00 +1\.00 +40\.0 %/);
    // The thread used 2.5 ms of CPU where its samples cover 5 ms of wall time: everything halves.
    const b = attribute([thread], flows, { completed: 2, serviceCpuMs: 2.5 });
    expect(b.byThread.service!.self).toMatchObject({ store: 0.5, envelope: 0.5, runtime: 0.25 });
    expect(b.byThread.service!.scaled).toBe(true);
  });

  it('splits flows run one at a time by step; a flow\'s gap is "after", the rest "outside"', () => {
    const thread = { ...threadProfile(syntheticProfile()), role: 'wallets' as const };
    const flows: FlowSpans[] = [
      { from: 1_002_500, to: 1_006_500, gapTo: 1_007_500, ok: true, steps: [['connect', 1_002_500, 1_004_500], ['issue', 1_004_500, 1_006_500]] },
    ];
    const a = attribute([thread], flows, { completed: 1, bySteps: true });
    expect(a.bySteps!.connect!.self).toMatchObject({ store: 2 });
    expect(a.bySteps!.issue!.self).toMatchObject({ envelope: 2 });
    expect(a.bySteps!.after!.self).toMatchObject({ runtime: 1 });
    expect(a.bySteps!.connect!.hot[0]!.where).toMatch(/^store\/light-store\.js:get/);
    expect(stepTable(a, ['connect', 'issue', 'after']).split('\n')[0]).toMatch(/connect +issue +after +total/);
  });

  it("lists the coordinator's functions only when it does a flow's work (a mediated run's mediator)", () => {
    const flows: FlowSpans[] = [{ from: 1_002_500, to: 1_007_500, gapTo: 1_007_500, ok: true, steps: [] }];
    const service = { ...threadProfile(syntheticProfile()), role: 'service' as const };
    const coordinator = { ...threadProfile(syntheticProfile()), role: 'coordinator' as const };
    // Busy: 5 ms of samples in the window for one flow.
    const busy = attribute([service, coordinator], flows, { completed: 1 });
    expect(hotTable(busy)).toMatch(/ {2}coordinator thread:\n +1\.00 ms +store +store\/light-store\.js:get > parse/);
    expect(inclusiveTable(busy)).toContain('  coordinator thread:');
    // Idle but for a trace: under 1 ms per flow, left out as before.
    const idle = attribute([service, coordinator], flows, { completed: 10 });
    expect(idle.byThread.coordinator!.totalMs).toBeLessThan(1);
    expect(hotTable(idle)).not.toContain('coordinator');
    expect(inclusiveTable(idle)).not.toContain('coordinator');
    expect(hotTable(idle)).toContain('  service thread:');
  });

  it("tells the threads apart by the modules their samples caught, the twin's without its entry module", () => {
    const profile = (...urls: string[]): CpuProfile => ({
      nodes: urls.map((url, i) => ({ id: i + 1, callFrame: { functionName: 'f', url, lineNumber: 0, columnNumber: 0 } })),
      startTime: 0,
      endTime: 0,
      samples: [],
      timeDeltas: [],
    });
    expect(threadRole(profile('file:///w/dist/fleet/service-worker.js', 'file:///w/dist/fleet/link.js'))).toBe('service');
    // A mediated run's twin thread: its entry module ran once, before any sample caught it.
    expect(threadRole(profile('file:///w/dist/fleet/link.js', 'file:///w/dist/fleet/target.js', 'file:///w/dist/fleet/link-service.js'))).toBe('service');
    expect(threadRole(profile('file:///w/dist/fleet/link.js', 'file:///w/dist/fleet/worker.js', 'file:///w/dist/fleet/runner.js'))).toBe('wallets');
    // One thread running runFleet, the twin and the wallets (workers: 1) is the coordinator.
    expect(threadRole(profile('file:///w/dist/fleet/fleet.js', 'file:///w/dist/fleet/target.js'))).toBe('coordinator');
    expect(threadRole(profile('node:internal/modules/esm/hooks'))).toBe('other');
  });

  it("takes the wallets threads' and the process's CPU over the flows from the spans' marks", () => {
    const mark = (thread: number, process: number) => ({ thread, process });
    const flows: FlowSpans[] = [
      { from: 0, to: 10, gapTo: 10, ok: true, steps: [], threadId: 2, cpu0: mark(100, 1000), cpu1: mark(150, 1200) },
      { from: 5, to: 30, gapTo: 30, ok: true, steps: [], threadId: 2, cpu0: mark(100, 1000), cpu1: mark(190, 1400) },
      { from: 1, to: 20, gapTo: 20, ok: true, steps: [], threadId: 3, cpu0: mark(40, 1001), cpu1: mark(80, 1300) },
    ];
    expect(windowCpu(flows)).toEqual({ wallets: 90 + 40, process: 400 });
    expect(windowCpu([{ from: 0, to: 1, gapTo: 1, ok: true, steps: [] }])).toEqual({ wallets: null, process: null });
  });
});

describe('a fleet profiled with node --cpu-prof', () => {
  it('writes a profile for each thread, told apart by their entry modules, whose samples fall in the layers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idsync-cpuprof-'));
    try {
      await new Promise<void>((resolve, reject) => {
        execFile(
          process.execPath,
          ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'fleet', '--scenario', 'sync', '--wallets', '3', '--workers', 'auto', '--no-progress', '--json'],
          { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } },
          (error, _stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve()),
        );
      });
      const threads = [];
      for (const file of await readdir(dir)) threads.push(threadProfile(JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile));
      // From sources, tsx's module loader hooks run in threads of their own: 'other'.
      expect(threads.map((t) => t.role).filter((r) => r !== 'other').sort()).toEqual(['coordinator', 'service', 'wallets']);
      const all = threads.flatMap((t) => t.samples);
      const window: FlowSpans = { from: Math.min(...all.map((s) => s.at)), to: Math.max(...all.map((s) => s.at)), gapTo: 0, ok: true, steps: [] };
      const a = attribute(threads, [window], { completed: 3 });
      // Both sides pack and unpack envelopes and store records; the twin answers over HTTP (inject).
      for (const role of ['service', 'wallets'] as const) {
        expect(a.byThread[role]!.self.envelope, role).toBeGreaterThan(0);
        expect(a.byThread[role]!.self.store, role).toBeGreaterThan(0);
      }
      expect(a.byThread.service!.self.http).toBeGreaterThan(0);
      expect(a.byThread.wallets!.self.credentials).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
