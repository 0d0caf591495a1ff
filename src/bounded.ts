// The bounded caches' one rule: a Map filled in insertion order loses its oldest entry once it
// holds more than `max` (a cache of what comes from outside must not grow without bound).
//
// The oldest entry is found by an iterator kept per map, not a new one each time. A Map keeps a
// deleted entry's slot as a hole until its table is rebuilt, and a new iterator starts at the
// first slot: with the oldest entry deleted at each set, every new iterator walked past all the
// holes left since the last rebuild (about 4 µs a set at 16,384 entries). A kept iterator stands
// after the entries it gave, so each hole is passed once. A Map's iterators follow deletions,
// inserts and rebuilds of their map (ECMAScript §24.1.5.1 CreateMapIterator reads the live entry
// list), and an entry deleted and set again is appended, so it is met again as the newest.

const oldest = new WeakMap<Map<unknown, unknown>, Iterator<unknown>>();

/** Sets `key` in `map`, then drops the oldest entry if the map now holds more than `max`. */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.set(key, value);
  if (map.size <= max) return;
  let keys = oldest.get(map as Map<unknown, unknown>) as Iterator<K> | undefined;
  let next = keys?.next();
  // A finished iterator stays finished, even once entries are added after it.
  if (!keys || !next || next.done) {
    keys = map.keys();
    oldest.set(map as Map<unknown, unknown>, keys as Iterator<unknown>);
    next = keys.next();
  }
  map.delete(next.value as K);
}

/**
 * `fn` with its last `max` results kept by argument: for pure functions of strings that come from
 * outside (DIDs), so an argument longer than `keyMax` is computed each time and never kept.
 */
export function memoBounded(fn: (key: string) => string, max: number, keyMax: number): (key: string) => string {
  const kept = new Map<string, string>();
  return (key) => {
    const keep = key.length <= keyMax;
    const known = keep ? kept.get(key) : undefined;
    if (known !== undefined) return known;
    const value = fn(key);
    if (keep) setBounded(kept, key, value, max);
    return value;
  };
}
