// A temporary store is a real LevelDB in its own folder, and closing it leaves nothing behind.
import { access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { openRunStore, openTemporaryStore } from '../../src/store/temporary.js';

describe('openTemporaryStore', () => {
  it('opens a LevelDB in a fresh folder under the temporary folder and removes it at close', async () => {
    const a = await openTemporaryStore('idsync-test-temporary-');
    const b = await openTemporaryStore('idsync-test-temporary-');
    expect(a.dir.startsWith(tmpdir())).toBe(true);
    expect(a.dir).not.toBe(b.dir);
    await a.store.collection<string>('c').put('k', 'v');
    expect(await a.store.collection<string>('c').get('k')).toBe('v');
    await access(a.dir);
    await a.close();
    await expect(access(a.dir)).rejects.toMatchObject({ code: 'ENOENT' });
    await b.close();
    await expect(access(b.dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('openRunStore', () => {
  it('keeps a memory run in memory, with no folder, and a disk run in a temporary folder it removes', async () => {
    const memory = await openRunStore('memory', 'idsync-test-run-');
    expect(memory.dir).toBeUndefined();
    await memory.store.collection<string>('c').put('k', 'v');
    expect(await memory.store.collection<string>('c').get('k')).toBe('v');
    await memory.close();

    const disk = await openRunStore('disk', 'idsync-test-run-');
    expect(disk.dir?.startsWith(tmpdir())).toBe(true);
    await access(disk.dir!);
    await disk.close();
    await expect(access(disk.dir!)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
