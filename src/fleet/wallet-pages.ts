// Idle wallets as pages: a wallet nobody is using is only its store's content (its DID, its
// keys, whatever its flows left), written out as one string, so that a fleet of 100,000
// holders keeps none of their running parts (router, protocols, transports, closures: most of
// a live wallet's ~60 KB). A page is read back into a fresh in-memory store, on which a new
// Wallet loads the same DID (wallet.init() finds it in the store): the wallet's public API is
// all this needs. Pages stay in memory up to a budget, beyond which they go to a LevelDB in a
// temporary folder (removed at close), so a fleet's memory is bounded by its running wallets
// and that budget, not by how many holders it has.
import { lightStoreText, openLightStoreWith, type StoreText } from '../store/light-store.js';
import type { BatchOp, Collection, Store } from '../store/store.js';
import { openTemporaryStore, type TemporaryStore } from '../store/temporary.js';

/** A store that remembers which collections were used, so that its content can be listed. */
export interface RecordingStore extends Store {
  names(): ReadonlySet<string>;
  /** The store it records for. */
  readonly inner: Store;
}

export function recordingStore(inner: Store, known: Iterable<string> = []): RecordingStore {
  const names = new Set<string>(known);
  return {
    get location() {
      return inner.location;
    },
    collection<T>(name: string): Collection<T> {
      names.add(name);
      return inner.collection<T>(name);
    },
    batch(ops: BatchOp[]) {
      for (const op of ops) names.add(op.collection);
      return inner.batch(ops);
    },
    close: () => inner.close(),
    names: () => names,
    inner,
  };
}

/**
 * The store's content as one string: each non-empty collection's entries in key order, each value
 * as the JSON text the store keeps (a JSON string in the page). A light store gives its texts as
 * they are, and a page read back puts them in as they are: a wallet paged out and in again costs
 * no parse or encoding of its values, only the page's own JSON.
 */
export async function pageOf(store: RecordingStore): Promise<string> {
  const kept = lightStoreText(store.inner, store.names());
  if (kept) return JSON.stringify(kept);
  const out: StoreText = [];
  for (const name of store.names()) {
    const entries = await store.collection(name).list();
    if (entries.length) out.push([name, entries.map((e) => [e.key, JSON.stringify(e.value)])]);
  }
  return JSON.stringify(out);
}

/** A fresh in-memory store holding a page's content. */
export async function storeOfPage(page: string): Promise<RecordingStore> {
  const content = JSON.parse(page) as StoreText;
  return recordingStore(
    openLightStoreWith(content),
    content.map(([name]) => name),
  );
}

/** Where pages are kept: memory up to a budget, then a LevelDB in a temporary folder. */
export interface PageStore {
  put(index: number, page: string): Promise<void>;
  /** The page of `index`, removed from here (the wallet is live again), or undefined. */
  take(index: number): Promise<string | undefined>;
  has(index: number): boolean;
  /** Pages held, in memory and on disk, and the characters held in memory. */
  readonly counts: { inMemory: number; onDisk: number; memoryChars: number };
  close(): Promise<void>;
}

/** Characters of pages kept in memory before they go to disk (one byte each: pages are ASCII JSON). */
export const PAGE_MEMORY_BUDGET = 64 * 1024 * 1024;

export function pageStore(options: { memoryChars?: number } = {}): PageStore {
  const budget = options.memoryChars ?? PAGE_MEMORY_BUDGET;
  const inMemory = new Map<number, string>();
  const onDisk = new Set<number>();
  let memoryChars = 0;
  let disk: Promise<{ temporary: TemporaryStore; pages: Collection<string> }> | undefined;
  const openDisk = () =>
    (disk ??= (async () => {
      const temporary = await openTemporaryStore('idsync-fleet-pages-');
      return { temporary, pages: temporary.store.collection<string>('pages') };
    })());
  return {
    async put(index, page) {
      if (memoryChars + page.length <= budget) {
        inMemory.set(index, page);
        memoryChars += page.length;
        return;
      }
      const { pages } = await openDisk();
      await pages.put(String(index), page);
      onDisk.add(index);
    },
    async take(index) {
      const kept = inMemory.get(index);
      if (kept !== undefined) {
        inMemory.delete(index);
        memoryChars -= kept.length;
        return kept;
      }
      if (!onDisk.has(index)) return undefined;
      const { pages } = await openDisk();
      const page = await pages.get(String(index));
      // Not deleted there (a tombstone and compaction for nothing): the folder goes at close.
      onDisk.delete(index);
      return page;
    },
    has: (index) => inMemory.has(index) || onDisk.has(index),
    get counts() {
      return { inMemory: inMemory.size, onDisk: onDisk.size, memoryChars };
    },
    async close() {
      inMemory.clear();
      onDisk.clear();
      memoryChars = 0;
      if (!disk) return;
      const { temporary } = await disk;
      disk = undefined;
      await temporary.close();
    },
  };
}
