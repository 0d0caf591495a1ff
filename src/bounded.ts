// The bounded caches' one rule: a Map filled in insertion order loses its oldest entry once it
// holds more than `max` (a cache of what comes from outside must not grow without bound).

/** Sets `key` in `map`, then drops the oldest entry if the map now holds more than `max`. */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
}
