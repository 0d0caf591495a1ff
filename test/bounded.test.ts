import { describe, expect, it } from 'vitest';
import { setBounded } from '../src/bounded.js';

/** The model: an array in insertion order, the oldest dropped past `max`. */
function modelSet(model: string[], key: string, max: number): void {
  const at = model.indexOf(key);
  if (at < 0) model.push(key);
  if (model.length > max) model.shift();
}

describe('setBounded', () => {
  it('keeps the newest `max` entries, in insertion order', () => {
    const m = new Map<string, number>();
    for (let i = 0; i < 10; i++) setBounded(m, `k${i}`, i, 4);
    expect([...m.keys()]).toEqual(['k6', 'k7', 'k8', 'k9']);
    expect(m.get('k9')).toBe(9);
  });

  it('drops the oldest entry after deletes, re-sets and clears between evictions (randomised against a model)', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (const max of [1, 3, 64, 500]) {
      const m = new Map<string, number>();
      let model: string[] = [];
      for (let step = 0; step < 20_000; step++) {
        const r = rand(100);
        const key = `k${rand(max * 3)}`;
        if (r < 60) {
          setBounded(m, key, step, max);
          modelSet(model, key, max);
        } else if (r < 80) {
          // A cache refreshing an entry: deleted, then set again as the newest.
          m.delete(key);
          model = model.filter((k) => k !== key);
          setBounded(m, key, step, max);
          modelSet(model, key, max);
        } else if (r < 99) {
          m.delete(key);
          model = model.filter((k) => k !== key);
        } else {
          m.clear();
          model = [];
        }
        expect(m.size).toBeLessThanOrEqual(max);
        if (step % 97 === 0 || m.size !== model.length) expect([...m.keys()]).toEqual(model);
      }
      expect([...m.keys()]).toEqual(model);
    }
  });

  it('keeps each map apart', () => {
    const a = new Map<string, number>();
    const b = new Map<string, number>();
    for (let i = 0; i < 6; i++) {
      setBounded(a, `a${i}`, i, 2);
      setBounded(b, `b${i}`, i, 3);
    }
    expect([...a.keys()]).toEqual(['a4', 'a5']);
    expect([...b.keys()]).toEqual(['b3', 'b4', 'b5']);
  });
});
