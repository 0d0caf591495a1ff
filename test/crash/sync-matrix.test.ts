// The crash matrix for a sync (src/testing/crash-matrix.ts): the service, and separately the
// wallet, killed at each step of the sync (a Data Pipe from one acceptance, then DID auth and the
// credential), restarted on the same store, and the sync completes with nobody acting: one valid
// credential held, the provider's view (the sync's credential, the synced datapoints) the same.
// Would fail without durable steps (nothing sends a message lost in the crash again), without
// replay answers (a retried message meets a finished step) and without resume (a queued or
// authenticated sync is orphaned). `npm run bench:crash` prints the whole matrix.
import { describe, expect, it } from 'vitest';
import { crashCases, runCrashMatrix } from '../../src/testing/crash-matrix.js';

describe('crash matrix: a sync', () => {
  it('completes after the service or the wallet is killed at any step and restarted', async () => {
    const results = await runCrashMatrix(crashCases({ flow: 'sync' }), { concurrency: 4 });
    const notCompleted = results.filter((r) => r.outcome !== 'completed');
    expect(notCompleted).toEqual([]);
    expect(results.length).toBeGreaterThanOrEqual(18);
  }, 90_000);
});
