// A light store's content as the JSON text it keeps (light-store.ts lightStoreText and
// openLightStoreWith): what wallet pages are made of. The texts come out as stored, in key
// order, and a store made from them reads back the same values, lists the same order, and gives
// the same text again.
import { describe, expect, it } from 'vitest';
import { lightStoreText, openLightStore, openLightStoreWith } from '../../src/store/light-store.js';
import { openStore } from '../../src/store/store.js';
import { openTemporaryStore } from '../../src/store/temporary.js';

describe('light store as text', () => {
  it('gives each named, non-empty collection in key order with its stored JSON text', async () => {
    const store = openLightStore();
    await store.collection('b').put('z', { n: 1, list: [1, 'two', null], nested: { ok: true } });
    await store.collection('b').put('a', 'plain "quoted" text\n');
    await store.collection('a').put('k', 0);
    await store.collection('empty').put('x', 1);
    await store.collection('empty').del('x');
    const text = lightStoreText(store, ['b', 'a', 'empty', 'never-used']);
    expect(text).toEqual([
      ['b', [['a', JSON.stringify('plain "quoted" text\n')], ['z', '{"n":1,"list":[1,"two",null],"nested":{"ok":true}}']]],
      ['a', [['k', '0']]],
    ]);
  });

  it('makes a store that reads back the same values, order and text', async () => {
    const store = openLightStore();
    const col = store.collection<{ i: number; s: string }>('c');
    for (const i of [5, 1, 9, 3]) await col.put(`k${i}`, { i, s: `é ${i} \u2028` });
    const text = lightStoreText(store, ['c'])!;
    const again = openLightStoreWith(JSON.parse(JSON.stringify(text)));
    const read = await again.collection<{ i: number; s: string }>('c').list();
    expect(read.map((e) => e.key)).toEqual(['k1', 'k3', 'k5', 'k9']);
    expect(read.map((e) => e.value.i)).toEqual([1, 3, 5, 9]);
    expect(await again.collection('c').get('k9')).toEqual({ i: 9, s: 'é 9 \u2028' });
    expect(lightStoreText(again, ['c'])).toEqual(text);
    // What is read is a copy, as from any store.
    const v = (await again.collection<{ i: number }>('c').get('k1'))!;
    v.i = 100;
    expect(((await again.collection<{ i: number }>('c').get('k1'))!).i).toBe(1);
  });

  it('is undefined for a store that is not a light store', async () => {
    const temporary = await openTemporaryStore('idsync-light-text-');
    try {
      expect(lightStoreText(temporary.store, ['c'])).toBeUndefined();
    } finally {
      await temporary.close();
    }
  });

  it('refuses a collection name the store would refuse, and a closed store', async () => {
    expect(() => openLightStoreWith([['Bad Name', [['k', '1']]]])).toThrow(expect.objectContaining({ code: 'invalid_collection' }));
    const store = await openStore({});
    await store.close();
    expect(() => lightStoreText(store, ['c'])).toThrow(expect.objectContaining({ code: 'store_closed' }));
  });
});
