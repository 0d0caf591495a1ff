// The CLI as a process whose reader went away (`idsync rules | head -1`): it stops quietly, as
// `git log | head` does: no stack trace, no "Unhandled 'error' event", exit status 141 (what a
// shell reports for a process ended by SIGPIPE) when stdout closed; with stderr closed there is
// nowhere to report anything, and the command ends with its own status.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './run-cli.js';

const MAIN = join(ROOT, 'src/cli/main.ts');

interface Closed {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with `closed` destroyed before it writes anything (tsx takes far longer to start). */
function runWithClosed(args: string[], closed: 'stdout' | 'stderr'): Promise<Closed> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = { stdout: '', stderr: '' };
    child[closed].destroy();
    const open = closed === 'stdout' ? 'stderr' : 'stdout';
    child[open].on('data', (d: Buffer) => void (out[open] += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, ...out }));
  });
}

describe('idsync writing to a closed pipe', () => {
  it.each([[['rules']], [['rules', '--json']], [['did', 'create', '--method', 'key', '--json']]])('%j stops quietly when stdout is closed', async (args) => {
    const run = await runWithClosed(args, 'stdout');
    expect(run.stderr).not.toMatch(/Unhandled|EPIPE|\n\s+at /);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(141);
  });

  it('ends with its own status when stderr is closed (a usage error it cannot report)', async () => {
    const run = await runWithClosed(['frobnicate'], 'stderr');
    expect(run.stdout).toBe('');
    expect(run.code).toBe(2);
  });
});
