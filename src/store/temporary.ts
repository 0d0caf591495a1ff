// A LevelDB store in a fresh temporary folder, for what must not outlive its run (a testbed's
// parties, a fleet's twin, the pages of idle fleet wallets): closing it removes the folder. A
// process that exits without closing one (a forgotten testbed close(), a test worker ended by its
// runner) removes it on its way out.
import { rmSync } from 'node:fs';
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

/**
 * Folders this process created and has not removed yet: only these are removed at exit, never a
 * folder of another process (whose names this one never learns) nor one close() removed already.
 */
const held = new Set<string>();
let exitHooked = false;

/** Removes the held folders; synchronous, as the 'exit' event allows nothing else. Never throws. */
function removeHeldFolders(): void {
  for (const dir of held) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // An exiting process has no one to tell; what is left is the OS temp folder's to clean.
    }
  }
  held.clear();
}

/**
 * SIGTERM and SIGINT end a process without its 'exit' event (a test runner stops its workers with
 * SIGTERM). When nothing else listens for the signal, the folders go first and the signal is
 * raised again, so the process still ends as the signal's default has it. When something else
 * listens, it owns the shutdown (it may close the stores first) and its exit runs the hook.
 * Listening first (prepended) is what makes the count true: a once-listener that ran before
 * would already be gone from it.
 */
function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  removeHeldFolders();
  process.off(signal, onSignal);
  process.kill(process.pid, signal);
}

function hold(dir: string): void {
  if (!exitHooked) {
    process.on('exit', removeHeldFolders);
    process.prependListener('SIGTERM', onSignal);
    process.prependListener('SIGINT', onSignal);
    exitHooked = true;
  }
  held.add(dir);
}

/** Opens a store in a new folder named `<prefix><random>` under the system's temporary folder. */
export async function openTemporaryStore(prefix: string): Promise<TemporaryStore> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  hold(dir);
  // Released as soon as the folder is gone (the first reaction to rm's result), so that the exit
  // hook never removes a folder of that name created since; a failed removal stays held.
  const removeDir = () => rm(dir, { recursive: true, force: true }).then(() => void held.delete(dir));
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
