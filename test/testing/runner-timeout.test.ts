// The idsync/testing waits fail before the test runner does, by default: in a project with
// vitest's defaults (5 s a test) a wait that never succeeds fails with its own message (what was
// awaited, the last state seen), not vitest's bare "Test timed out in 5000ms".
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultTimeoutMs, DEFAULT_TIMEOUT_MS } from '../../src/testing/index.js';
import { ROOT } from '../cli/run-cli.js';

const PROJECT = join(ROOT, 'test/testing/runner-timeout');

function vitestChild(): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      // One worker per spec file: the three waits (seconds of idle time each) run side by side.
      [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--root', PROJECT, '--reporter', 'verbose', '--maxWorkers', '3'],
      { cwd: PROJECT, env: { ...process.env, NO_COLOR: '1', CI: '1' }, maxBuffer: 8 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: typeof err?.code === 'number' ? err.code : 0, output: stdout + stderr }),
    );
  });
}

describe('the default guard of the waits', () => {
  it('fails each wait with its own message before vitest times the test out, under vitest defaults', async () => {
    const { code, output } = await vitestChild();
    expect(code).toBe(1);
    expect(output).toContain('3 failed');
    expect(output).not.toMatch(/Test timed out/);
    for (const n of [42, 43, 44]) expect(output).toMatch(new RegExp(`waiting for the answer to be ${n}; last seen: 41`));
  });

  it('is what is left of the running test minus a margin, here (testTimeout 30 s)', () => {
    const left = defaultTimeoutMs();
    expect(left).toBeGreaterThan(20_000);
    expect(left).toBeLessThanOrEqual(29_000);
    // Later in the same test, less is left.
    expect(defaultTimeoutMs(Date.now() + 10_000)).toBeLessThanOrEqual(left - 9_000);
  });

  it('is below 5 s outside a test runner', () => {
    const state = (globalThis as Record<string, unknown>).__vitest_worker__;
    try {
      delete (globalThis as Record<string, unknown>).__vitest_worker__;
      expect(defaultTimeoutMs()).toBe(DEFAULT_TIMEOUT_MS);
    } finally {
      (globalThis as Record<string, unknown>).__vitest_worker__ = state;
    }
    expect(DEFAULT_TIMEOUT_MS).toBeLessThan(5_000);
  });
});
