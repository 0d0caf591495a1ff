// The in-memory store keeps its key order lazily (light-store.ts `sorted`): keys added out of
// order or removed wait until a listing needs the order. Whatever the interleaving of puts,
// deletes and listings, a listing is exactly the keys present, in order.
import { describe, expect, it } from 'vitest';
import { openLightStore } from '../../src/store/light-store.js';
import { seededRandom as rng } from '../../src/testing/fault-plan.js';

/** LevelDB's key order: by the keys' UTF-8 bytes (each key's bytes made once: the model is sorted at every listing). */
const bytes = new Map<string, Buffer>();
const utf8 = (k: string): Buffer => bytes.get(k) ?? bytes.set(k, Buffer.from(k, 'utf8')).get(k)!;
const byUtf8 = (a: string, b: string): number => Buffer.compare(utf8(a), utf8(b));

describe('light store: key order kept lazily', () => {
  for (const [seed, large] of [[1, false], [2, false], [3, false], [4, true], [5, true]] as const) {
    it(`lists exactly the keys present, in order, after random puts, deletes and listings (seed ${seed}${large ? ', a large collection' : ''})`, async () => {
      const random = rng(seed);
      const col = openLightStore().collection<number>('c');
      const model = new Map<string, number>();
      if (large) {
        // Enough keys that short listings read around the waiting ones (light-store.ts LARGE).
        for (let i = 0; i < 5_000; i++) {
          await col.put(`a${String(i).padStart(5, '0')}`, i);
          model.set(`a${String(i).padStart(5, '0')}`, i);
        }
        await col.list({ limit: 1 });
      }
      let tick = 0;
      for (let step = 0; step < 4_000; step++) {
        const r = random();
        // Keys from a small space (so that deletes and re-adds of the same key happen), some in increasing order.
        const key = r < 0.3 ? `t${String(tick++).padStart(6, '0')}` : `k${Math.floor(random() * 300)}`;
        const op = random();
        if (op < 0.55) {
          await col.put(key, step);
          model.set(key, step);
        } else if (op < 0.85) {
          const victim = random() < 0.5 ? key : [...model.keys()][Math.floor(random() * model.size)];
          if (victim !== undefined) {
            await col.del(victim);
            model.delete(victim);
          }
        } else if (random() >= 0.5) {
          // Bursts without full listings let many keys wait (the merge path), single steps the one-by-one path.
          const expected = [...model.keys()].sort();
          expect((await col.list()).map((e) => e.key)).toEqual(expected);
          expect(await col.count({ prefix: 'k1' })).toBe(expected.filter((k) => k.startsWith('k1')).length);
          expect((await col.list({ gt: 'k2', limit: 5 })).map((e) => e.key)).toEqual(expected.filter((k) => k > 'k2').slice(0, 5));
        }
        if (op >= 0.85 || random() < 0.2) {
          // Short listings between changes: read around the keys still waiting (withWaiting).
          const expected = [...model.keys()].sort();
          const p = `k${Math.floor(random() * 30)}`;
          const under = expected.filter((k) => k.startsWith(p));
          expect((await col.list({ prefix: p })).map((e) => e.key)).toEqual(under);
          expect((await col.list({ prefix: p, reverse: true, limit: 2 })).map((e) => e.key)).toEqual(under.slice(-2).reverse());
          expect((await col.list({ gte: p, lt: `${p}5`, limit: 3 })).map((e) => e.key)).toEqual(expected.filter((k) => k >= p && k < `${p}5`).slice(0, 3));
          expect((await col.list({ lte: p, reverse: true, limit: 4 })).map((e) => e.key)).toEqual(expected.filter((k) => k <= p).slice(-4).reverse());
        }
      }
      expect((await col.list()).map((e) => [e.key, e.value])).toEqual([...model].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
    });
  }

  for (const [seed, large] of [[6, false], [7, true]] as const) {
    it(`keeps LevelDB's order (UTF-8 bytes) for keys with characters outside the BMP and at or above U+E000 (seed ${seed}${large ? ', a large collection' : ''})`, async () => {
      const random = rng(seed);
      const col = openLightStore().collection<number>('c');
      const model = new Set<string>();
      // Characters on either side of where UTF-16 and UTF-8 orders part, and plain ones.
      const chars = ['a', 'z', '\uD7FF', '\uE000', '\uFF01', '\uFFFF', '\u{10000}', '\u{1F600}', '\u{10FFFF}'];
      const key = () => Array.from({ length: 1 + Math.floor(random() * 3) }, () => chars[Math.floor(random() * chars.length)]).join('');
      if (large) {
        // An order made from keys in code-unit order first, which keys with surrogates then join.
        for (let i = 0; i < 5_000; i++) {
          const k = `b${String(i).padStart(5, '0')}`;
          await col.put(k, i);
          model.add(k);
        }
        await col.list({ limit: 1 });
      }
      for (let step = 0; step < 3_000; step++) {
        const op = random();
        if (op < 0.6) {
          const k = key();
          await col.put(k, step);
          model.add(k);
        } else if (op < 0.8) {
          const k = random() < 0.5 ? key() : [...model][Math.floor(random() * model.size)];
          if (k !== undefined) {
            await col.del(k);
            model.delete(k);
          }
        } else {
          const expected = [...model].sort(byUtf8);
          const b = key();
          const p = key().slice(0, 2);
          expect((await col.list({ gt: b, limit: 3 })).map((e) => e.key)).toEqual(expected.filter((k) => byUtf8(k, b) > 0).slice(0, 3));
          expect((await col.list({ lte: b, reverse: true, limit: 3 })).map((e) => e.key)).toEqual(expected.filter((k) => byUtf8(k, b) <= 0).slice(-3).reverse());
          expect((await col.list({ prefix: p })).map((e) => e.key)).toEqual(expected.filter((k) => k.startsWith(p)));
          if (random() < 0.2) expect((await col.list()).map((e) => e.key)).toEqual(expected);
        }
      }
      expect((await col.list()).map((e) => e.key)).toEqual([...model].sort(byUtf8));
    });
  }

  it('after more waiting changes than keys, the order is made anew at the next listing', async () => {
    const col = openLightStore().collection<number>('c');
    await col.put('m', 0);
    expect((await col.list()).map((e) => e.key)).toEqual(['m']);
    for (let i = 0; i < 3_000; i++) {
      await col.put(`a${i}`, i);
      await col.del(`a${i}`);
    }
    await col.put('b', 1);
    expect((await col.list()).map((e) => e.key)).toEqual(['b', 'm']);
  });
});
