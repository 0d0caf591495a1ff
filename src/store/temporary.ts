// A LevelDB store in a fresh temporary folder, for what must not outlive its run (a testbed's
// parties, a fleet's twin, the pages of idle fleet wallets): closing it removes the folder.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from './store.js';

export interface TemporaryStore {
  store: Store;
  dir: string;
  /** Closes the store, then removes its folder. */
  close(): Promise<void>;
}

/** Opens a store in a new folder named `<prefix><random>` under the system's temporary folder. */
export async function openTemporaryStore(prefix: string): Promise<TemporaryStore> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const removeDir = () => rm(dir, { recursive: true, force: true });
  let store: Store;
  try {
    store = await openStore({ path: dir });
  } catch (err) {
    await removeDir();
    throw err;
  }
  return {
    store,
    dir,
    async close() {
      try {
        await store.close();
      } finally {
        await removeDir();
      }
    },
  };
}

/**
 * A store for one run's state, nothing of which outlives it: in memory, or (`disk`) in a
 * temporary folder as above. `dir` is that folder; `close` closes the store and removes it.
 */
export async function openRunStore(kind: 'memory' | 'disk', prefix: string): Promise<{ store: Store; dir?: string; close(): Promise<void> }> {
  if (kind === 'disk') return openTemporaryStore(prefix);
  const store = await openStore();
  return { store, close: () => store.close() };
}
