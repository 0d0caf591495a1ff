// The history of conformance runs: records per scope newest first, the report kept apart and
// written with its record, pruning beyond a count, the runs a restart finds unfinished, and all
// of it still there after the LevelDB folder is opened again.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { conformanceRuns, type ConformanceRunRecord } from '../../src/store/conformance-runs.js';
import { openStore } from '../../src/store/store.js';
import { timeKey } from '../../src/store/time-key.js';

const run = (scope: string, n: number, state: ConformanceRunRecord['state'] = 'finished'): ConformanceRunRecord => ({
  id: `${timeKey(1_700_000_000_000 + n)}-r${n}`,
  scope,
  target: 'did:example:agent',
  options: { mode: 'authcrypt' },
  state,
  requestedBy: 'qa-client',
  createdAt: new Date(1_700_000_000_000 + n).toISOString(),
  cases: [],
  hasReport: state === 'finished',
});

describe('conformance runs in the store', () => {
  it('lists a scope newest first, keeps reports apart, prunes the oldest, and finds the unfinished', async () => {
    const store = await openStore();
    const runs = conformanceRuns(store);
    for (let n = 1; n <= 4; n++) await runs.put(run('qa', n), { cases: [{ id: `case-${n}` }] });
    await runs.put(run('other', 5, 'running'));
    await runs.put(run('qa', 6, 'queued'));
    expect((await runs.list('qa')).map((r) => r.id.slice(-2))).toEqual(['r6', 'r4', 'r3', 'r2', 'r1']);
    expect((await runs.list('qa', { limit: 2 })).length).toBe(2);
    expect(await runs.report('qa', run('qa', 3).id)).toEqual({ cases: [{ id: 'case-3' }] });
    expect(await runs.report('other', run('qa', 3).id)).toBeUndefined();
    expect((await runs.inState(['queued', 'running'])).map((r) => r.id.slice(-2)).sort()).toEqual(['r5', 'r6']);
    expect(await runs.prune('qa', 2)).toBe(3);
    expect((await runs.list('qa')).map((r) => r.id.slice(-2))).toEqual(['r6', 'r4']);
    expect(await runs.report('qa', run('qa', 1).id)).toBeUndefined();
    expect(await runs.get('qa', '../x')).toBeUndefined();
    await expect(runs.put({ ...run('qa', 7), id: 'no spaces' })).rejects.toMatchObject({ code: 'invalid_argument' });
    await store.close();
  });

  it('survives closing and opening the LevelDB folder again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idsync-runs-'));
    try {
      let store = await openStore({ path: dir });
      await conformanceRuns(store).put(run('qa', 1), { summary: { passed: 3 } });
      await store.close();
      store = await openStore({ path: dir });
      const runs = conformanceRuns(store);
      expect((await runs.list('qa')).map((r) => r.state)).toEqual(['finished']);
      expect(await runs.report('qa', run('qa', 1).id)).toEqual({ summary: { passed: 3 } });
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
