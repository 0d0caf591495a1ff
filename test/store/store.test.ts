// Runs the store contract against openStore() in memory (plain Maps), openLightStore() and an on-disk LevelDB in a temp folder.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLightStore } from '../../src/store/light-store.js';
import { openStore } from '../../src/store/store.js';
import { storeContract } from './store-contract.js';

storeContract("memory (openStore() without a folder)", async () => ({
  open: () => openStore(),
  persistent: false,
  exclusive: false,
  cleanup: async () => {},
}));

storeContract('light (plain Maps)', async () => ({
  open: async () => openLightStore(),
  persistent: false,
  exclusive: false,
  cleanup: async () => {},
}));

storeContract('leveldb on disk', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'idsync-store-'));
  return {
    open: () => openStore({ path: dir }),
    persistent: true,
    exclusive: true,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

describe('openStore on a damaged folder', () => {
  it('says the store cannot be opened and why, not that it is closed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idsync-store-damaged-'));
    try {
      const store = await openStore({ path: dir });
      await store.collection<number>('c').put('k', 1);
      await store.close();
      // CURRENT names the manifest LevelDB reads first; garbage there is a damaged store.
      await writeFile(join(dir, 'CURRENT'), 'garbage\n');
      const err = await openStore({ path: dir }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: 'store_error', message: expect.stringMatching(/^open .*: the store cannot be opened \(LEVEL_\w+\): /) });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
