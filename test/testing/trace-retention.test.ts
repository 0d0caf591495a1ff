// Trace files written to the OS temp folder do not pile up: writing one prunes the old ones, and
// never one young enough that a running test's error may still name it.
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { startTestbed, waitForCredential, type Testbed } from '../../src/testing/index.js';
import { pruneTraceFiles } from '../../src/testing/trace-retention.js';

const HOUR = 60 * 60 * 1000;
let dir: string;
let bed: Testbed | undefined;
const savedTmp = process.env.TMPDIR;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idsync-trace-retention-'));
});
afterEach(async () => {
  await bed?.close();
  bed = undefined;
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  await rm(dir, { recursive: true, force: true });
});

/** A trace file `ageMs` old; resolves with its name. */
async function traceFile(name: string, ageMs: number, now = Date.now()): Promise<string> {
  const path = join(dir, `idsync-trace-${name}.html`);
  await writeFile(path, '<!DOCTYPE html>');
  const at = new Date(now - ageMs);
  await utimes(path, at, at);
  return `idsync-trace-${name}.html`;
}

it('keeps the newest, removes what is past a day, and past the newest N only once out of grace', async () => {
  const now = Date.now();
  const young = await Promise.all([0, 1, 2].map((i) => traceFile(`young-${i}`, i * 1000, now)));
  const agedKept = await traceFile('aged-kept', 2 * HOUR, now);
  const agedExtra = await traceFile('aged-extra', 3 * HOUR, now);
  const ancient = await traceFile('ancient', 25 * HOUR, now);
  await writeFile(join(dir, 'other.html'), 'not a trace');
  const removed = await pruneTraceFiles(dir, { keep: 4, now });
  expect(removed.map((p) => p.slice(dir.length + 1)).sort()).toEqual([agedExtra, ancient].sort());
  expect((await readdir(dir)).sort()).toEqual([...young, agedKept, 'other.html'].sort());
});

it('never removes a file within its grace, however many there are', async () => {
  const now = Date.now();
  for (let i = 0; i < 6; i++) await traceFile(`burst-${i}`, i * 60_000, now);
  expect(await pruneTraceFiles(dir, { keep: 2, now })).toEqual([]);
  expect(await readdir(dir)).toHaveLength(6);
});

it('does not throw on a folder that is gone', async () => {
  expect(await pruneTraceFiles(join(dir, 'missing'))).toEqual([]);
});

it('a wait that times out prunes old traces of the temp folder and keeps the one it names', async () => {
  process.env.TMPDIR = dir;
  const ancient = await traceFile('ancient', 25 * HOUR);
  bed = await startTestbed();
  const err = (await waitForCredential(bed.wallets[0]!, () => true, { timeoutMs: 100 }).then(
    () => undefined,
    (e: unknown) => e,
  )) as { details: { traces?: string[] } };
  const [named] = err.details.traces ?? [];
  expect(named?.startsWith(dir)).toBe(true);
  await vi.waitFor(async () => expect(await readdir(dir)).not.toContain(ancient));
  expect(await readdir(dir)).toContain(named!.slice(dir.length + 1));
});
