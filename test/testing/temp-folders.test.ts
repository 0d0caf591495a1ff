// A testbed on temporary stores that is never closed leaves no folders behind once its process
// exits; and the exit removes only folders that process made and still held.
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ROOT } from '../cli/run-cli.js';

const CHILD = join(ROOT, 'test/testing/temp-folders/child.ts');
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idsync-temp-folders-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What is left in the child's temp folder (tsx keeps its cache there too). */
async function left(): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.startsWith('idsync-')).sort();
}

/** Runs the child with `dir` as its temp folder; resolves with the store folders it saw. */
function child(mode: 'forget' | 'close-then-reuse'): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', CHILD, mode], { cwd: ROOT, env: { ...process.env, TMPDIR: dir } }, (err, stdout, stderr) =>
      err ? reject(new Error(`child failed: ${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as string[]),
    );
  });
}

it('removes the folders of a testbed never closed when its process exits, and no one else’s', async () => {
  await mkdir(join(dir, 'idsync-testbed-service-of-another-process'));
  const folders = await child('forget');
  expect(folders.filter((f) => f.startsWith('idsync-testbed-service-') && !f.includes('another')).length).toBe(1);
  expect(folders.filter((f) => f.startsWith('idsync-testbed-wallet-1-')).length).toBe(1);
  expect(await left()).toEqual(['idsync-testbed-service-of-another-process']);
}, 30_000);

it('leaves alone a folder made at a closed store’s path after close() removed it', async () => {
  const folders = await child('close-then-reuse');
  expect(folders.length).toBeGreaterThanOrEqual(2);
  expect(await left()).toEqual([...folders].sort());
}, 30_000);

/** Starts the child in a waiting mode; resolves once it printed its folders. */
async function waitingChild(mode: 'wait-for-signal' | 'own-handler') {
  const p = spawn(process.execPath, ['--import', 'tsx', CHILD, mode], { cwd: ROOT, env: { ...process.env, TMPDIR: dir } });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => p.on('exit', (code, signal) => resolve({ code, signal })));
  const folders = await new Promise<string[]>((resolve, reject) => {
    let out = '';
    p.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(JSON.parse(out) as string[]);
    });
    void ended.then(({ code }) => reject(new Error(`child exited early (${code})`)));
  });
  return { p, folders, ended };
}

it('removes them too when the process is stopped by SIGTERM, and still dies of the signal', async () => {
  const { p, folders, ended } = await waitingChild('wait-for-signal');
  expect(folders.length).toBeGreaterThanOrEqual(2);
  p.kill('SIGTERM');
  expect(await ended).toEqual({ code: null, signal: 'SIGTERM' });
  expect(await left()).toEqual([]);
}, 30_000);

it("leaves a SIGTERM to the process's own handler, which closes the testbed and exits", async () => {
  const { p, folders, ended } = await waitingChild('own-handler');
  expect(folders.length).toBeGreaterThanOrEqual(2);
  p.kill('SIGTERM');
  expect(await ended).toEqual({ code: 3, signal: null });
  expect(await left()).toEqual([]);
}, 30_000);
