// A conformance run leaves nothing behind once it has ended: the library's run closes every timer
// and socket it opened, and `idsync conformance run` as a process exits as soon as its report is
// written, not a case timeout later. Cases race waits (an answer against a problem report); the
// wait that loses must not outlive the run.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { startCounterpart } from '../../src/harness/counterpart.js';
import { runConformance } from '../../src/harness/run.js';
import { ROOT } from '../cli/run-cli.js';
import { startWrongAgent } from './wrong-agent.js';

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

/** Runs the CLI as a process; when its last output came and when it exited (ms since start). */
function timedCli(args: string[]): Promise<{ code: number | null; out: string; lastOutputMs: number; exitMs: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let lastOutputMs = 0;
  const seen = (d: Buffer) => {
    out += d.toString('utf8');
    lastOutputMs = Date.now() - started;
  };
  child.stdout.on('data', seen);
  child.stderr.on('data', seen);
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, lastOutputMs, exitMs: Date.now() - started })));
}

describe('a conformance run ends with nothing left running', () => {
  it('the counterpart ends its pending waits when it closes', async () => {
    const agent = await startWrongAgent([]);
    try {
      const before = timers();
      const cp = await startCounterpart({ target: agent.did, resolve: documentResolver(createResolver({})), postTimeoutMs: 5000 });
      const waiting = cp.waitFor(() => false, 60_000);
      const redirect = cp.redirectNext().followed(60_000);
      await cp.close();
      await expect(waiting).resolves.toBeUndefined();
      await expect(redirect).resolves.toBe(false);
      expect(timers()).toBeLessThanOrEqual(before);
      // Closed, it waits for nothing more.
      await expect(cp.waitFor(() => false, 60_000)).resolves.toBeUndefined();
      expect(timers()).toBeLessThanOrEqual(before);
    } finally {
      await agent.close();
    }
  });

  it('runConformance leaves no timer behind (the waits its cases raced and did not need)', async () => {
    const agent = await startWrongAgent(['ping-thid', 'plaintext-reply']);
    try {
      const before = timers();
      const report = await runConformance({ target: agent.did, resolve: documentResolver(createResolver({})), timeoutMs: 3000 });
      expect(report.summary.failed).toBe(1);
      expect(timers()).toBeLessThanOrEqual(before);
    } finally {
      await agent.close();
    }
  }, 20_000);

  // The README's worked example: a DID with two faults, then its invitation.
  it('`idsync conformance run` exits right after its last line, against a DID and an invitation', async () => {
    const agent = await startWrongAgent(['ping-thid', 'plaintext-reply']);
    try {
      const byDid = await timedCli(['conformance', 'run', '--target', agent.did]);
      expect(byDid.out).toContain('idsync: conformance_failed: 1 case(s) failed: trust-ping/response');
      expect(byDid.code).toBe(1);
      expect(byDid.exitMs - byDid.lastOutputMs).toBeLessThan(1500);

      const byInvitation = await timedCli(['conformance', 'run', '--target', agent.invitationUrl()]);
      expect(byInvitation.out).toMatch(/\d+ passed, 0 failed/);
      expect(byInvitation.code).toBe(0);
      expect(byInvitation.exitMs - byInvitation.lastOutputMs).toBeLessThan(1500);
    } finally {
      await agent.close();
    }
  }, 30_000);
});
