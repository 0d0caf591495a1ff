// `idsync fleet` ends cleanly however it ends: a service that cannot be reached after the
// mediator started, a report folder nothing can be written to, Ctrl-C mid-run. Each runs as a
// child process with a TMPDIR of its own, so what it leaves behind is seen.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { ROOT } from '../e2e/processes.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
async function ownTmp(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'idsync-fleet-leaves-'));
  dirs.push(d);
  return d;
}
/** What the run made in TMPDIR (tsx, which runs the sources, keeps a cache there too). */
const ours = async (tmp: string) => (await readdir(tmp)).filter((n) => n.startsWith('idsync-'));
const CREDENTIALS = { IDSYNC_CLIENT_ID: 'a', IDSYNC_CLIENT_SECRET: 'b' };

describe('idsync fleet leaves nothing behind', () => {
  it('ends at once when --service cannot be reached after the mediator started, its folder removed', async () => {
    const tmp = await ownTmp();
    const started = Date.now();
    const run = await runCli(['fleet', '--mediated', '--service', 'http://127.0.0.1:1', '--wallets', '2', '--workers', '1', '--no-progress'], { process: true, env: { ...CREDENTIALS, TMPDIR: tmp } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^idsync: service_unreachable: /);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await ours(tmp)).toEqual([]);
  }, 30_000);

  it('removes the folders of a mediated run on disk in worker threads, the mediator\'s included', async () => {
    const tmp = await ownTmp();
    const run = await runCli(['fleet', '--mediated', '--service-store', 'disk', '--wallets', '2', '--workers', 'auto', '--no-progress'], { process: true, env: { ...CREDENTIALS, TMPDIR: tmp } });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/2 completed, 0 failed/);
    expect(await ours(tmp)).toEqual([]);
  }, 60_000);

  it('does not wait for ever on a service that never answers', async () => {
    const silent: Server = createServer(() => undefined); // takes requests, answers none
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const run = await runCli(['fleet', '--service', url, '--wallets', '2', '--workers', '1', '--no-progress'], { process: true, env: CREDENTIALS });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^idsync: service_unreachable: no answer from /);
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  }, 30_000);

  it('refuses a report folder nothing can be written to before the run, not after it', async () => {
    const tmp = await ownTmp();
    const file = join(tmp, 'a-file');
    await writeFile(file, 'x');
    const run = await runCli(['fleet', '--wallets', '2', '--workers', '1', '--report', file, '--no-progress']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^idsync: folder_unusable: /);
    expect(run.stdout).not.toMatch(/completed/);
  });

  it('stops on SIGINT mid-run: says so, exits 1, and its temporary folders are gone', async () => {
    const tmp = await ownTmp();
    // On disk, so the run has folders of its own in TMPDIR (the twin's store; idle wallets' pages).
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'fleet', '--wallets', '3000', '--service-store', 'disk'], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', TMPDIR: tmp },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await new Promise<void>((resolve) =>
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString('utf8');
        if (/flows done/.test(stderr)) resolve();
      }),
    );
    expect((await ours(tmp)).length).toBeGreaterThan(0);
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    expect(stderr).toContain('SIGINT: stopping the fleet');
    // The flows in flight when it stopped were cut short, not failed.
    expect(stderr).toMatch(/idsync: aborted: stopped by SIGINT after \d+ completed and 0 failed flows(, \d+ in flight cut short)?;/);
    expect(await ours(tmp)).toEqual([]);
  }, 120_000);
});
