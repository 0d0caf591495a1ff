// The Artillery engine's contract, in-process (Artillery itself is a large install; bench/artillery
// runs it for real): Artillery constructs the engine with (script, ee, helpers), calls
// createScenario(spec, ee) once per scenario and the returned function once per virtual user,
// which emits 'started', then counters and histograms, and calls back (err, context).
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { ARTILLERY_METRICS, IdsyncArtilleryEngine, stopArtilleryEngine } from '../../src/fleet/artillery-engine.js';

afterAll(() => stopArtilleryEngine());

function recorder() {
  const ee = new EventEmitter();
  const seen = { started: 0, counters: {} as Record<string, number>, histograms: {} as Record<string, number[]>, errors: [] as string[] };
  ee.on('started', () => (seen.started += 1));
  ee.on('counter', (name: string, n: number) => (seen.counters[name] = (seen.counters[name] ?? 0) + n));
  ee.on('histogram', (name: string, v: number) => (seen.histograms[name] ??= []).push(v));
  ee.on('error', (code: string) => seen.errors.push(code));
  return { ee, seen };
}

const vu = (fn: ReturnType<IdsyncArtilleryEngine['createScenario']>) =>
  new Promise<{ err: unknown; context: Record<string, unknown> }>((resolve) => fn({ vars: {} }, (err, context) => resolve({ err, context })));

describe('the idsync Artillery engine', () => {
  it('runs connect, sync and an e-mailed issuance per virtual user against the embedded twin, under stable metric names', async () => {
    const { ee, seen } = recorder();
    const engine = new IdsyncArtilleryEngine({ config: { target: 'embedded' } }, ee, {});
    const scenario = engine.createScenario({ flow: [{ connect: {} }, { sync: {} }, { issuance: { channel: 'EMAIL' } }] }, ee);
    const [a, b] = await Promise.all([vu(scenario), vu(scenario)]);
    expect(a.err).toBeNull();
    expect(b.err).toBeNull();
    expect(a.context).toEqual({ vars: {} });
    expect(seen.started).toBe(2);
    expect(seen.counters).toEqual({ [ARTILLERY_METRICS.completed]: 2 });
    expect(Object.keys(seen.histograms).sort()).toEqual(['idsync.authenticate', 'idsync.connect', 'idsync.flow', 'idsync.invite', 'idsync.issue']);
    expect(seen.histograms['idsync.issue']).toHaveLength(4);
    expect(seen.histograms['idsync.flow']!.every((ms) => ms > 0)).toBe(true);
  }, 60_000);

  it('counts a failed virtual user by its code, reports it to Artillery, and calls back with the error', async () => {
    const { ee, seen } = recorder();
    const engine = new IdsyncArtilleryEngine({ config: { target: 'http://127.0.0.1:9' } }, ee, {}, {});
    // The embedded target from the first test is this process's: a remote target is checked only when none started.
    await stopArtilleryEngine();
    const r = await vu(engine.createScenario({ flow: [{ connect: {} }] }, ee));
    expect(r.err).toMatchObject({ code: 'invalid_config' });
    expect(seen.counters).toEqual({ [ARTILLERY_METRICS.failed]: 1, 'idsync.errors.invalid_config': 1 });
    expect(seen.errors).toEqual(['invalid_config']);
    await stopArtilleryEngine();
  });

  it('refuses an unknown flow step when Artillery compiles the scenario', () => {
    const { ee } = recorder();
    const engine = new IdsyncArtilleryEngine({ config: {} }, ee, {});
    expect(() => engine.createScenario({ flow: [{ nope: {} } as never] }, ee)).toThrow(/unknown flow step nope/);
  });

  it('ships the CommonJS module Artillery requires by name (artillery-engine-idsync)', () => {
    const require = createRequire(import.meta.url);
    const Engine = require('../../artillery-engine-idsync/index.cjs') as new (...a: unknown[]) => { createScenario: unknown };
    expect(typeof Engine).toBe('function');
    expect(require('../../artillery-engine-idsync/package.json')).toMatchObject({ name: 'artillery-engine-idsync', main: 'index.cjs' });
  });
});
