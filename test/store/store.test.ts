// Runs the store contract against openStore() in memory (plain Maps), openLightStore() and an on-disk LevelDB in a temp folder.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
