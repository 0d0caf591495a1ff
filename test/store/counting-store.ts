// A store that counts what is read from one collection: the values gets return and the entries
// listings return, and the listings themselves. Tests use it to pin that a lookup reads what it
// needs and not the whole collection. `afterListing` runs after a listing of that collection has
// been taken and before it is returned (a test holds one back there to let a write overtake it).
import type { Collection, ListOptions, Store } from '../../src/store/contract.js';

export interface CountingStore {
  store: Store;
  /** Values read from the collection so far. */
  reads(): number;
  /** Listings of the collection so far. */
  listings(): number;
}

export function countingStore(inner: Store, collection: string, afterListing?: (options?: ListOptions) => Promise<void> | void): CountingStore {
  let reads = 0;
  let listings = 0;
  const wrap = <T,>(col: Collection<T>): Collection<T> => ({
    name: col.name,
    get: async (key: string) => {
      const value = await col.get(key);
      if (value !== undefined) reads += 1;
      return value;
    },
    put: (key: string, value: T) => col.put(key, value),
    del: (key: string) => col.del(key),
    count: (options?: ListOptions) => col.count(options),
    list: async (options?: ListOptions) => {
      listings += 1;
      const entries = await col.list(options);
      reads += entries.length;
      await afterListing?.(options);
      return entries;
    },
  });
  return {
    store: {
      collection: <T,>(name: string) => (name === collection ? wrap(inner.collection<T>(name)) : inner.collection<T>(name)),
      batch: (ops) => inner.batch(ops),
      close: () => inner.close(),
      get location() {
        return inner.location;
      },
    },
    reads: () => reads,
    listings: () => listings,
  };
}
