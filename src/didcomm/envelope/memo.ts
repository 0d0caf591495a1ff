// A bounded memo for pure functions of a string (oldest entry out first): what a DID's keys and
// a conversation's recipients give recurs in every message, and must not grow without bound
// when the strings come from outside.
import { setBounded } from '../../bounded.js';

export function boundedMemo<V>(max: number, compute: (key: string) => V): (key: string) => V {
  const entries = new Map<string, V>();
  return (key) => {
    const hit = entries.get(key);
    if (hit !== undefined || entries.has(key)) return hit as V;
    const value = compute(key);
    setBounded(entries, key, value, max);
    return value;
  };
}
