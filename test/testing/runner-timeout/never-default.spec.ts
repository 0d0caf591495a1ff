// Waits that never succeed, under vitest's defaults: each must fail with the wait's own error
// (what was awaited, the last state seen) before vitest's "Test timed out". One test a file, so
// that the child vitest runs them side by side (each wait is seconds of idle time). The waits come
// from their own module (what src/testing/index.ts re-exports): the whole barrel takes a worker
// seconds to load, three times over.
import { it } from 'vitest';
import { waitForState } from '../../../src/testing/wait.js';

it('waits for a state that never comes (default 5 s test timeout)', async () => {
  await waitForState('the answer to be 42', async () => 41, (v) => v === 42, undefined, { pollMs: 100 });
});
