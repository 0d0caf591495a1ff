// Durations and waits on the command line: bounded by what a timer can hold (setTimeout fires at
// once beyond 2^31 - 1 ms) and by what an expiry date can hold, each refusal a usage error.
import { describe, expect, it } from 'vitest';
import { parseDuration, waitMs } from '../../src/cli/duration.js';
import { MAX_WAIT_MS } from '../../src/wait.js';
import { runCli } from './run-cli.js';

describe('durations and waits', () => {
  it('parseDuration takes units and refuses what no Date or timer can hold', () => {
    expect(parseDuration('--ttl', '30d')).toBe(30 * 86_400_000);
    expect(() => parseDuration('--ttl', '100000000d')).toThrow(/--ttl must be at most/);
    expect(parseDuration('--timeout', '24d', MAX_WAIT_MS)).toBe(24 * 86_400_000);
    expect(() => parseDuration('--timeout', '25d', MAX_WAIT_MS)).toThrow(/--timeout must be at most 2147483647 ms/);
  });

  it('waitMs takes 1 ms to 24.8 days, in milliseconds or seconds', () => {
    expect(waitMs('--timeout', '500')).toBe(500);
    expect(waitMs('--timeout', '1.5', 1000, 'seconds')).toBe(1500);
    expect(waitMs('--timeout', String(MAX_WAIT_MS))).toBe(MAX_WAIT_MS);
    for (const bad of ['0', '-1', '1.5', 'x', '', '1e-9']) expect(() => waitMs('--timeout', bad), bad).toThrow(/--timeout must be a positive whole number of milliseconds/);
    expect(() => waitMs('--timeout', '1e-9', 1000, 'seconds')).toThrow(/must be a positive number of seconds/);
    expect(() => waitMs('--timeout', '1e12')).toThrow(/--timeout must be at most 2147483647 milliseconds/);
    expect(() => waitMs('--timeout', '1e12', 1000, 'seconds')).toThrow(/must be at most 2147483.647 seconds/);
  });

  it('the commands refuse a wait no timer can hold with exit 2, before doing anything', async () => {
    for (const args of [
      ['wallet', 'accept', '--data', '/nonexistent/never-created', 'https://example.org/?_oob=x', '--timeout', '1e12'],
      ['conformance', 'run', '--target', 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK', '--timeout', '1e12'],
      ['conformance', 'run', '--role', 'holder', '--accept-timeout', '1e12'],
      ['service', '--invitation-ttl', '100000000d', '--data', '/nonexistent/never-created'],
      ['mediator', '--max-delay', '30d', '--data', '/nonexistent/never-created'],
    ]) {
      const run = await runCli(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(/^idsync: invalid_argument: --[a-z-]+ must be at most/);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
