// A fleet's worker threads start with a larger old generation (fleet/old-generation.ts): fewer
// full collections on a thread that keeps little. The flag holds for a whole process, so its
// effect is checked in child processes, each starting one worker that keeps ~160 MB.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { namesInitialOldSpace, WORKER_INITIAL_OLD_GENERATION_MB } from '../../src/fleet/old-generation.js';

const ROOT = join(import.meta.dirname, '../..');

// A worker keeping ~160 MB of small objects (200 arrays of 32,768 objects), counting its full collections.
const WORKER = `
const { PerformanceObserver, constants } = require('node:perf_hooks');
const { parentPort } = require('node:worker_threads');
let major = 0;
new PerformanceObserver((l) => { for (const e of l.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) major++; }).observe({ entryTypes: ['gc'] });
const kept = [];
for (let i = 0; i < 200; i++) kept.push(Array.from({ length: 32768 }, (_, j) => ({ j })));
setTimeout(() => parentPort.postMessage(major), 50);
`;

async function majorCollections(setFlag: boolean): Promise<number> {
  const script = `
    import { Worker } from 'node:worker_threads';
    import { startWorkersWithOldGeneration } from './src/fleet/old-generation.ts';
    if (${setFlag}) startWorkersWithOldGeneration();
    const w = new Worker(${JSON.stringify(WORKER)}, { eval: true, execArgv: [] });
    w.once('message', (n) => { console.log(n); process.exit(0); });
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '' } });
  return Number(stdout.trim());
}

describe('the old generation of a fleet worker thread', () => {
  it('starts large enough that keeping ~160 MB makes no full collection, where the default makes some', async () => {
    const [withFlag, without] = await Promise.all([majorCollections(true), majorCollections(false)]);
    expect(without).toBeGreaterThan(0);
    expect(withFlag).toBe(0);
  }, 60_000);

  it('leaves a size the process was started with as it is', () => {
    expect(namesInitialOldSpace(['--initial-old-space-size=64'])).toBe(true);
    expect(namesInitialOldSpace(['--initial_old_space_size', '64'])).toBe(true);
    expect(namesInitialOldSpace([], '--max-old-space-size=4096 --initial-old-space-size=64')).toBe(true);
    expect(namesInitialOldSpace(['--max-old-space-size=4096', '--enable-source-maps'], '')).toBe(false);
    expect(WORKER_INITIAL_OLD_GENERATION_MB).toBeGreaterThanOrEqual(256);
  });
});
