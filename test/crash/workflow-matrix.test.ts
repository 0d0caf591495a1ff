// The crash matrix for an issuance workflow (src/testing/crash-matrix.ts): the service, and separately the
// wallet, killed at each step of an issuance workflow (the wallet's proposal, the offer, the
// request, the credential and its ack), restarted on the same store, and the workflow is COMPLETED with nobody acting: one valid
// credential held, the provider's view (the workflow's credential) the same.
// Would fail without durable steps (nothing sends a message lost in the crash again), without
// replay answers (a retried message meets a finished step) and without resume (a workflow
// acknowledged in a crash stays IN_PROGRESS). `npm run bench:crash` prints the whole matrix.
import { describe, expect, it } from 'vitest';
import { crashCases, runCrashMatrix } from '../../src/testing/crash-matrix.js';

describe('crash matrix: an issuance workflow', () => {
  it('completes after the service or the wallet is killed at any step and restarted', async () => {
    const results = await runCrashMatrix(crashCases({ flow: 'workflow' }), { concurrency: 4 });
    const notCompleted = results.filter((r) => r.outcome !== 'completed');
    expect(notCompleted).toEqual([]);
    expect(results.length).toBeGreaterThanOrEqual(11);
  }, 90_000);
});
