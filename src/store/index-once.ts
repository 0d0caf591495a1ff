// An index added beside a collection that stores written earlier already fill: it is built once
// from what the store holds, then kept up by the writes that put each record with its index
// entries. A mark in the index collection (a key after every key the index's own entries use)
// says it was built, so a store is scanned once, not once per process.
import type { BatchOp, Store } from './contract.js';

/** The index collection's mark: it holds every record the store had when the index came. */
export const INDEX_BUILT = '~complete';

const building = new WeakMap<Store, Map<string, Promise<void>>>();

/**
 * Builds `index` over `store` unless it is marked built: `entries` gives its puts for what the
 * store holds (read only then), written in one batch with the mark. Once per store object; a
 * failure is tried again at the next call.
 */
export function buildIndexOnce(store: Store, index: string, entries: () => Promise<BatchOp[]>): Promise<void> {
  let byIndex = building.get(store);
  if (!byIndex) building.set(store, (byIndex = new Map()));
  let built = byIndex.get(index);
  if (!built) {
    built = (async () => {
      if ((await store.collection(index).get(INDEX_BUILT)) !== undefined) return;
      await store.batch([...(await entries()), { type: 'put', collection: index, key: INDEX_BUILT, value: '' }]);
    })();
    const mine = byIndex;
    built.catch(() => mine.delete(index));
    byIndex.set(index, built);
  }
  return built;
}
