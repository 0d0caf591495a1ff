// The console's conformance runner: one run at a time per scope with a short queue, refused
// beyond it with 429 conformance_busy; progress told as each case ends; a queued run cancelled at
// once and a running one after its case, keeping the cases it ran; a run the harness cannot start
// recorded as failed; a bad target refused before it is queued; runs a restart finds unfinished
// recorded as interrupted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { conformanceRunner, type ConformanceRunner, type RunEvent } from '../../src/console/conformance/runner.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { conformanceRuns, type ConformanceRunRecord } from '../../src/store/conformance-runs.js';
import { openStore, type Store } from '../../src/store/store.js';
import { startWrongAgent, type WrongAgent } from '../harness/wrong-agent.js';

let good: WrongAgent;
let silent: WrongAgent;
beforeAll(async () => {
  [good, silent] = await Promise.all([startWrongAgent([]), startWrongAgent(['silent'])]);
}, 30_000);
afterAll(async () => {
  await good?.close();
  await silent?.close();
});

const resolve = documentResolver(createResolver({}));
const ENDED = ['finished', 'cancelled', 'failed', 'interrupted'];

/** Resolves with the run's record once the runner says it ended (no polling). */
function ended(runner: ConformanceRunner, id: string): Promise<ConformanceRunRecord> {
  return new Promise((done) => {
    const stop = runner.watch((e) => {
      if (e.run.id === id && e.kind === 'ended') {
        stop();
        done(e.run);
      }
    });
  });
}

async function withRunner<T>(f: (runner: ConformanceRunner, store: Store) => Promise<T>, o: { maxQueuedPerScope?: number; maxRunning?: number } = {}): Promise<T> {
  const store = await openStore();
  const runner = conformanceRunner({ store, clock: systemClock, resolve, ...o });
  try {
    return await f(runner, store);
  } finally {
    await runner.close();
    await store.close();
  }
}

describe('conformance runs from a console', () => {
  it('runs a DID, telling each case as it ends, and keeps the record and report', async () => {
    await withRunner(async (runner) => {
      const events: RunEvent[] = [];
      runner.watch((e) => events.push(e));
      const run = await runner.start('qa', 'qa-client', { target: good.did, suites: ['trust-ping'], timeoutMs: 2000 });
      // Nothing else runs: it starts at once.
      expect(run).toMatchObject({ scope: 'qa', state: 'running', requestedBy: 'qa-client', options: { mode: 'authcrypt', profile: 'liberal', suites: ['trust-ping'], timeoutMs: 2000 } });
      const rec = await ended(runner, run.id);
      expect(rec).toMatchObject({ state: 'finished', exitCode: 0, hasReport: true });
      expect(rec.summary!.failed).toBe(0);
      // queued, started, one event per case as it ended, ended.
      expect(events.map((e) => e.kind)).toEqual(['queued', 'started', ...rec.cases.map(() => 'case'), 'ended']);
      expect(events.filter((e) => e.kind === 'case').map((e) => e.run.cases.length)).toEqual(rec.cases.map((_, i) => i + 1));
      expect(await runner.get('qa', run.id)).toEqual(rec);
      const report = await runner.report('qa', run.id);
      expect(report!.cases.map((c) => c.id)).toEqual(rec.cases.map((c) => c.id));
      expect(await runner.get('other-tenant', run.id)).toBeUndefined();
    });
  }, 60_000);

  it('runs one at a time per scope with a short queue, refuses beyond it, and cancels queued and running runs', async () => {
    await withRunner(async (runner) => {
      const slow = { target: silent.did, suites: ['trust-ping'], timeoutMs: 1000 };
      const first = await runner.start('qa', 'qa-client', slow);
      const second = await runner.start('qa', 'qa-client', slow);
      const third = await runner.start('qa', 'qa-client', slow);
      expect([second.state, third.state]).toEqual(['queued', 'queued']);
      await expect(runner.start('qa', 'qa-client', slow)).rejects.toMatchObject({ code: 'conformance_busy', status: 429, headers: { 'Retry-After': '5' } });
      // Another tenant is not held up by this one's queue.
      const other = await runner.start('other', 'c2', { target: good.did, suites: ['trust-ping'], timeoutMs: 2000 });
      expect((await ended(runner, other.id)).state).toBe('finished');

      // Queued: cancelled at once, no report. Running: ends after the case under way, keeping what it ran.
      expect((await runner.cancel('qa', third.id)).state).toBe('cancelled');
      const firstEnded = ended(runner, first.id);
      await new Promise<void>((started) => runner.watch((e) => e.run.id === first.id && e.kind === 'case' && started()));
      expect((await runner.cancel('qa', first.id)).cancelRequestedAt).toBeDefined();
      const cancelled = await firstEnded;
      expect(cancelled).toMatchObject({ state: 'cancelled', hasReport: true });
      expect(cancelled.cases.length).toBeGreaterThanOrEqual(1);
      // The second now runs; it can be cancelled too. An ended run cannot.
      const secondEnded = ended(runner, second.id);
      await runner.cancel('qa', second.id);
      expect((await secondEnded).state).toBe('cancelled');
      await expect(runner.cancel('qa', first.id)).rejects.toMatchObject({ code: 'invalid_state', status: 409 });
      await expect(runner.cancel('qa', 'no-such-run')).rejects.toMatchObject({ code: 'not_found' });
      expect((await runner.list('qa')).map((r) => r.state)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    }, { maxQueuedPerScope: 2 });
  }, 60_000);

  it('refuses a bad target or option before queueing, and records a run the harness cannot start as failed', async () => {
    await withRunner(async (runner) => {
      for (const bad of [{ target: 'hello' }, { target: 'ftp://x' }, { target: good.did, suites: ['nope'] }, { target: good.did, mode: 'carrier-pigeon' as never }, { target: good.did, timeoutMs: 5 }]) {
        await expect(runner.start('qa', 'qa-client', bad), JSON.stringify(bad)).rejects.toMatchObject({ code: 'invalid_request', status: 400 });
      }
      expect(await runner.list('qa')).toEqual([]);
      const run = await runner.start('qa', 'qa-client', { target: 'http://127.0.0.1:9/connect?_oob=bm90LWpzb24' });
      const rec = await ended(runner, run.id);
      expect(rec).toMatchObject({ state: 'failed', hasReport: false, error: { code: 'invalid_invitation' } });
      expect(await runner.report('qa', run.id)).toBeUndefined();
    });
  }, 30_000);

  it('records the runs a restart finds queued or running as interrupted', async () => {
    const store = await openStore();
    const stale = { scope: 'qa', target: good.did, options: {}, requestedBy: 'qa-client', createdAt: new Date().toISOString(), cases: [], hasReport: false };
    await conformanceRuns(store).put({ ...stale, id: 'r1', state: 'running' });
    await conformanceRuns(store).put({ ...stale, id: 'r2', state: 'queued' });
    await conformanceRuns(store).put({ ...stale, id: 'r3', state: 'finished' });
    const runner = conformanceRunner({ store, clock: systemClock, resolve });
    expect((await runner.list('qa')).map((r) => `${r.id} ${r.state}`)).toEqual(['r3 finished', 'r2 interrupted', 'r1 interrupted']);
    expect((await runner.get('qa', 'r1'))!.error).toMatchObject({ code: 'aborted' });
    expect(ENDED).toContain((await runner.get('qa', 'r2'))!.state);
    await runner.close();
    await store.close();
  });
});
