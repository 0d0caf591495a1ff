// makeDir: a folder and its missing parents, refused with one coded error instead of the
// endless retry of Node 20's recursive mkdir on a file system that takes no new entries.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeDir } from '../src/make-dir.js';

const made: string[] = [];
afterEach(async () => {
  for (const d of made.splice(0)) await rm(d, { recursive: true, force: true });
});

async function temp(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'idsync-make-dir-'));
  made.push(d);
  return d;
}

describe('makeDir', () => {
  it('makes a folder with its missing parents, and accepts one that exists', async () => {
    const root = await temp();
    const deep = join(root, 'a', 'b', 'c');
    await makeDir(deep);
    expect((await stat(deep)).isDirectory()).toBe(true);
    await makeDir(deep);
    await makeDir(root);
  });

  it('refuses an empty name instead of using the working folder', async () => {
    for (const name of ['', '  ']) await expect(makeDir(name)).rejects.toMatchObject({ code: 'folder_unusable', message: expect.stringContaining('empty') });
  });

  it('refuses a path through a file, or onto one, with folder_unusable', async () => {
    const root = await temp();
    const file = join(root, 'f');
    await writeFile(file, 'x');
    await expect(makeDir(join(file, 'x'))).rejects.toMatchObject({ code: 'folder_unusable', message: expect.stringContaining('ENOTDIR') });
    await expect(makeDir(file)).rejects.toMatchObject({ code: 'folder_unusable', message: expect.stringContaining('is not a folder') });
  });

  it.skipIf(!existsSync('/proc/self'))('refuses a folder under /proc at once, where a recursive mkdir would retry for ever', async () => {
    const started = Date.now();
    await expect(makeDir('/proc/idsync-no-such/x')).rejects.toMatchObject({ code: 'folder_unusable', message: expect.stringContaining('ENOENT') });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
