// Waits that never succeed, under vitest's defaults: each must fail with the wait's own error
// (what was awaited, the last state seen) before vitest's "Test timed out". One test a file, so
// that the child vitest runs them side by side (each wait is seconds of idle time). The waits come
// from their own module (what src/testing/index.ts re-exports): the whole barrel takes a worker
// seconds to load, three times over.
import { it } from 'vitest';
import { waitForState } from '../../../src/testing/wait.js';

it('waits after spending part of its time (the wait gets what is left)', async () => {
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await waitForState('the answer to be 43', async () => 41, (v) => v === 43, undefined, { pollMs: 100 });
});
