// Waits that never succeed, under vitest's defaults: each must fail with the wait's own error
// (what was awaited, the last state seen) before vitest's "Test timed out".
import { it } from 'vitest';
import { waitForState } from '../../../src/testing/index.js';

it('waits for a state that never comes (default 5 s test timeout)', async () => {
  await waitForState('the answer to be 42', async () => 41, (v) => v === 42, undefined, { pollMs: 100 });
});

it('waits after spending part of its time (the wait gets what is left)', async () => {
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await waitForState('the answer to be 43', async () => 41, (v) => v === 43, undefined, { pollMs: 100 });
});

it('waits under a timeout of its own', { timeout: 2_000 }, async () => {
  await waitForState('the answer to be 44', async () => 41, (v) => v === 44, undefined, { pollMs: 100 });
});
