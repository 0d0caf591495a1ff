// The store contract: one suite, run against every backend (the in-memory Map store and on-disk LevelDB)
// by store.test.ts. A new backend passes this suite or is not a store.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Store } from '../../src/store/store.js';
import { storeSecrets } from '../../src/store/secrets.js';
import { didRegistry } from '../../src/store/dids.js';
import { MESSAGES_COLLECTION, MESSAGES_OUTCOME_COLLECTION, messageLog, type MessageRecord } from '../../src/store/messages.js';
import { connections, type ConnectionRecord } from '../../src/store/connections.js';
import { generateKeyPair, privateJwk } from '../../src/keys.js';
import type { Secret } from '../../src/did/types.js';

export interface StoreHarness {
  /** Opens the store under test; with `reopen` capability, the same data every time. */
  open(): Promise<Store>;
  /** True when data survives close() and open() (on disk). */
  persistent: boolean;
  /** True when a second open() while the first is open must fail with store_locked. */
  exclusive: boolean;
  cleanup(): Promise<void>;
}

// Shaped like an ion long form: did:ion:<46-char suffix>:<encoded suffix data>.
export const SUFFIX = 'EiA' + 'b'.repeat(43);
export const ION_SHORT = `did:ion:${SUFFIX}`;
export const ION_LONG = `${ION_SHORT}:eyJkZWx0YSI6eyJwYXRjaGVzIjpbXX19`;

function secretFor(kid: string): Secret {
  return { id: kid, type: 'JsonWebKey2020', privateKeyJwk: privateJwk(generateKeyPair('X25519')) };
}

function record(over: Partial<MessageRecord> = {}): Omit<MessageRecord, 'at'> {
  const id = over.id ?? 'm-1';
  return {
    id,
    direction: 'in',
    type: 'https://didcomm.org/trust-ping/2.0/ping',
    mode: 'authcrypt',
    size: 100,
    message: { id, type: over.type ?? 'https://didcomm.org/trust-ping/2.0/ping', body: {} },
    ...over,
  };
}

function connection(over: Partial<ConnectionRecord> = {}): ConnectionRecord {
  return {
    id: 'c-1',
    theirDid: ION_LONG,
    myDid: 'did:peer:2.Ez6LSmine',
    state: 'established',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

/** LevelDB's key order: by the keys' UTF-8 bytes. */
function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** A key in a failure message, its characters outside ASCII written as escapes. */
function escape(key: string): string {
  return [...key].map((ch) => (ch < '\x7f' ? ch : `\\u{${ch.codePointAt(0)!.toString(16).toUpperCase()}}`)).join('');
}

export function storeContract(name: string, makeHarness: () => Promise<StoreHarness>): void {
  describe(`store contract: ${name}`, () => {
    let h: StoreHarness;
    let store: Store;
    const open: Store[] = [];
    const openStore = async () => {
      const s = await h.open();
      open.push(s);
      return s;
    };

    beforeEach(async () => {
      h = await makeHarness();
      store = await openStore();
    });

    afterEach(async () => {
      for (const s of open.splice(0)) await s.close();
      await h.cleanup();
    });

    describe('collections', () => {
      it('gets undefined for a missing key, then what was put, then undefined after del', async () => {
        const c = store.collection<{ n: number }>('things');
        expect(await c.get('a')).toBeUndefined();
        await c.put('a', { n: 1 });
        expect(await c.get('a')).toEqual({ n: 1 });
        await c.put('a', { n: 2 });
        expect(await c.get('a')).toEqual({ n: 2 });
        await c.del('a');
        expect(await c.get('a')).toBeUndefined();
        await c.del('never-there');
      });

      it('round-trips values as JSON', async () => {
        const c = store.collection<unknown>('json');
        const value = { s: 'grüße ✓ 𝄞', n: -1.5, b: false, z: null, a: [1, 'two', { three: 3 }], nested: { deep: { x: '' } } };
        await c.put('v', value);
        expect(await c.get('v')).toEqual(value);
        await c.put('date', { at: new Date(Date.UTC(2026, 0, 2)), gone: undefined });
        expect(await c.get('date')).toEqual({ at: '2026-01-02T00:00:00.000Z' });
        await c.put('scalar', 42);
        expect(await c.get('scalar')).toBe(42);
      });

      it('keeps collections apart, even when one name is a prefix of another', async () => {
        const a = store.collection<number>('a');
        const ab = store.collection<number>('a-b');
        await a.put('k', 1);
        await ab.put('k', 2);
        expect(await a.get('k')).toBe(1);
        expect(await ab.get('k')).toBe(2);
        expect(await a.count()).toBe(1);
        expect(store.collection('a')).toBe(a);
      });

      it('rejects an invalid collection name', () => {
        for (const bad of ['', 'Upper', '1st', 'has space', 'x'.repeat(65), 'a!b']) {
          expect(() => store.collection(bad)).toThrow(expect.objectContaining({ code: 'invalid_collection' }));
        }
      });

      it('lists in key order with prefix, ranges, reverse and limit', async () => {
        const c = store.collection<number>('listing');
        const keys = ['b2', 'a1', 'a3', 'b1', 'a2', 'c', 'a'];
        for (const [i, k] of keys.entries()) await c.put(k, i);
        const ks = async (o?: Parameters<typeof c.list>[0]) => (await c.list(o)).map((e) => e.key);
        expect(await ks()).toEqual(['a', 'a1', 'a2', 'a3', 'b1', 'b2', 'c']);
        expect(await ks({ prefix: 'a' })).toEqual(['a', 'a1', 'a2', 'a3']);
        expect(await ks({ prefix: 'b', reverse: true })).toEqual(['b2', 'b1']);
        expect(await ks({ gt: 'a1', lt: 'b2' })).toEqual(['a2', 'a3', 'b1']);
        expect(await ks({ gte: 'a1', lte: 'b2' })).toEqual(['a1', 'a2', 'a3', 'b1', 'b2']);
        expect(await ks({ limit: 2 })).toEqual(['a', 'a1']);
        expect(await ks({ reverse: true, limit: 2 })).toEqual(['c', 'b2']);
        expect(await ks({ prefix: 'zz' })).toEqual([]);
        expect((await c.list({ prefix: 'a1' }))[0]).toEqual({ key: 'a1', value: 1 });
      });

      it('lists every key of a prefix whatever characters follow it: outside the BMP, U+FFFF, and none', async () => {
        const c = store.collection<number>('wide');
        const keys = ['t/😀smile', 't/\uffffend', 't/ada', 't/\u00e9', 't/', 'u/next', 's/before'];
        for (const [i, k] of keys.entries()) await c.put(k, i);
        const under = (await c.list({ prefix: 't/' })).map((e) => e.key);
        expect([...under].sort()).toEqual(['t/', 't/ada', 't/\u00e9', 't/\uffffend', 't/😀smile'].sort());
        expect((await c.list({ prefix: 't/', reverse: true })).length).toBe(5);
        expect((await c.list({ prefix: 't/😀' })).map((e) => e.key)).toEqual(['t/😀smile']);
      });

      it('lists in UTF-8 byte order (LevelDB\'s) where UTF-16 order differs: characters outside the BMP against U+E000 and above', async () => {
        const c = store.collection<number>('utf8-order');
        const ks = async (o?: Parameters<typeof c.list>[0]) => (await c.list(o)).map((e) => e.key);
        const keys: string[] = [];
        const put = async (k: string) => {
          await c.put(k, keys.length);
          keys.push(k);
        };
        // A listing first, then keys that sort before the last one in one order and after it in the other.
        for (const k of ['u', 'u\u{1F600}']) await put(k);
        expect(await ks()).toEqual(['u', 'u\u{1F600}']);
        for (const k of ['u\uFF01', 'u\uE000x', 'u\uFFFF', 'u\u{1F600}z', 'u\u{10000}', 'u\uE000', 'u\u{1F600}\uFF01', 'u\u{1F600}\u{1F601}', 'ua', 'v', 'u\uD7FF', 'u\u{10FFFF}']) await put(k);
        await c.del('ua');
        keys.splice(keys.indexOf('ua'), 1);
        const sorted = [...keys].sort(byUtf8);
        expect(await ks()).toEqual(sorted);
        expect(await ks({ reverse: true })).toEqual([...sorted].reverse());
        expect(await ks({ limit: 4 })).toEqual(sorted.slice(0, 4));
        expect(await ks({ reverse: true, limit: 4 })).toEqual(sorted.slice(-4).reverse());
        // Bounds that are keys, and bounds that fall between them.
        for (const b of [...keys, 'u\uE000w', 'u\u{1F5FF}', 'u\uFFEE', 'u\u{1F600}\uE000', 'u\u{1F600}\uFFFF', 'u\u{FFFD}']) {
          const after = (k: string) => byUtf8(k, b);
          expect(await ks({ gt: b }), `gt ${escape(b)}`).toEqual(sorted.filter((k) => after(k) > 0));
          expect(await ks({ gte: b }), `gte ${escape(b)}`).toEqual(sorted.filter((k) => after(k) >= 0));
          expect(await ks({ lt: b }), `lt ${escape(b)}`).toEqual(sorted.filter((k) => after(k) < 0));
          expect(await ks({ lte: b, reverse: true, limit: 2 }), `lte ${escape(b)}`).toEqual(sorted.filter((k) => after(k) <= 0).slice(-2).reverse());
          expect(await ks({ prefix: 'u', gt: b, limit: 2 }), `u, gt ${escape(b)}`).toEqual(sorted.filter((k) => k.startsWith('u') && after(k) > 0).slice(0, 2));
          expect(await c.count({ lt: b }), `count lt ${escape(b)}`).toBe(sorted.filter((k) => after(k) < 0).length);
        }
        expect(await ks({ gt: 'u\u{1F600}', lt: 'u\uFFFF' })).toEqual([]);
        expect(await ks({ gt: 'u\uFFFF', lt: 'u\u{1F600}z' })).toEqual(['u\u{10000}', 'u\u{1F600}']);
        expect(await ks({ prefix: 'u', reverse: true })).toEqual(sorted.filter((k) => k.startsWith('u')).reverse());
      });

      it('lists every key of a prefix that ends in a character at or above U+D7FF, or outside the BMP, and intersects such a prefix with bounds', async () => {
        const c = store.collection<number>('utf8-prefix');
        const keys = ['p\uD7FF', 'p\uD7FFx', 'p\uD7FF\u{1F600}', 'p\uE000', 'p\uE000\u{1F600}', 'p\uE000\uFFFF', 'p\uFFFF\u{1F600}', 'p\u{1F600}', 'p\u{1F600}\u{1F601}', 'p\u{1F600}\uFF01', 'p\u{1F601}', 'p\u{1F7FF}\u{10FFFF}', 'p\u{1F800}', 'p\u{10FFFF}\u{10FFFF}', 'q'];
        for (const [i, k] of keys.entries()) await c.put(k, i);
        const sorted = [...keys].sort(byUtf8);
        for (const prefix of ['p', 'p\uD7FF', 'p\uE000', 'p\uFFFF', 'p\u{1F600}', 'p\u{1F7FF}', 'p\u{10FFFF}', 'p\u{10FFFF}\u{10FFFF}']) {
          const under = sorted.filter((k) => k.startsWith(prefix));
          expect((await c.list({ prefix })).map((e) => e.key), `prefix ${escape(prefix)}`).toEqual(under);
          expect((await c.list({ prefix, reverse: true, limit: 2 })).map((e) => e.key), `prefix ${escape(prefix)}, reverse`).toEqual(under.slice(-2).reverse());
        }
        // A prefix and a bound: the tighter of the two, in this order too.
        const ks = async (o: Parameters<typeof c.list>[0]) => (await c.list(o)).map((e) => e.key);
        expect(await ks({ prefix: 'p\u{1F600}', gt: 'p\uFF01' })).toEqual(sorted.filter((k) => k.startsWith('p\u{1F600}')));
        expect(await ks({ prefix: 'p\uE000', lt: 'p\u{1F600}' })).toEqual(sorted.filter((k) => k.startsWith('p\uE000')));
        expect(await ks({ prefix: 'p\uE000', lte: 'p\uE000\uFFFF' })).toEqual(['p\uE000', 'p\uE000\uFFFF']);
      });

      it('keeps key order through puts and deletes after a listing (appended, inserted, overwritten, removed)', async () => {
        const c = store.collection<number>('reorder');
        const batchKey = 'reorder';
        for (const k of ['m', 'c', 'x']) await c.put(k, 0);
        const ks = async (o?: Parameters<typeof c.list>[0]) => (await c.list(o)).map((e) => e.key);
        expect(await ks()).toEqual(['c', 'm', 'x']);
        await c.put('z', 1); // after the last
        await c.put('a', 1); // before the first
        await c.put('n', 1); // in the middle
        await c.put('m', 2); // overwritten: listed once
        await c.del('c');
        await c.del('nope'); // absent: nothing moves
        await store.batch([
          { type: 'put', collection: batchKey, key: 'b', value: 3 },
          { type: 'del', collection: batchKey, key: 'x' },
        ]);
        expect(await ks()).toEqual(['a', 'b', 'm', 'n', 'z']);
        expect(await ks({ gt: 'a', lt: 'z', reverse: true, limit: 2 })).toEqual(['n', 'm']);
        expect(await ks({ gte: 'm', lte: 'n' })).toEqual(['m', 'n']);
        expect(await c.count({ gt: 'b' })).toBe(3);
        expect((await c.list({ prefix: 'm' }))[0]).toEqual({ key: 'm', value: 2 });
      });

      it('intersects a prefix with explicit bounds', async () => {
        const c = store.collection<number>('ranges');
        for (const k of ['a1', 'a2', 'a3', 'b1', 'b2']) await c.put(k, 0);
        const ks = async (o: Parameters<typeof c.list>[0]) => (await c.list(o)).map((e) => e.key);
        expect(await ks({ prefix: 'a', gt: 'a1' })).toEqual(['a2', 'a3']);
        expect(await ks({ prefix: 'a', lt: 'a3' })).toEqual(['a1', 'a2']);
        expect(await ks({ prefix: 'a', gte: '0', lte: 'z' })).toEqual(['a1', 'a2', 'a3']);
        expect(await ks({ prefix: 'a', gt: 'a1', reverse: true, limit: 1 })).toEqual(['a3']);
      });

      it('counts, with the same options as list', async () => {
        const c = store.collection<number>('counting');
        expect(await c.count()).toBe(0);
        for (const k of ['x1', 'x2', 'y1']) await c.put(k, 0);
        expect(await c.count()).toBe(3);
        expect(await c.count({ prefix: 'x' })).toBe(2);
        expect(await c.count({ gt: 'x1' })).toBe(2);
        expect(await c.count({ limit: 1 })).toBe(1);
      });
    });

    describe('batch', () => {
      it('writes and deletes across collections in one batch', async () => {
        const a = store.collection<number>('batch-a');
        const b = store.collection<number>('batch-b');
        await a.put('old', 0);
        await store.batch([
          { type: 'put', collection: 'batch-a', key: 'k', value: 1 },
          { type: 'put', collection: 'batch-b', key: 'k', value: 2 },
          { type: 'del', collection: 'batch-a', key: 'old' },
        ]);
        expect(await a.list()).toEqual([{ key: 'k', value: 1 }]);
        expect(await b.get('k')).toBe(2);
      });

      it('writes nothing when one op is invalid', async () => {
        const a = store.collection<number>('atomic');
        await a.put('keep', 1);
        const good = [
          { type: 'put' as const, collection: 'atomic', key: 'new', value: 2 },
          { type: 'del' as const, collection: 'atomic', key: 'keep' },
        ];
        await expect(store.batch([...good, { type: 'put', collection: 'atomic', key: 'bad', value: undefined }])).rejects.toMatchObject({ code: 'store_error' });
        await expect(store.batch([...good, { type: 'put', collection: 'Bad Name', key: 'k', value: 1 }])).rejects.toMatchObject({ code: 'invalid_collection' });
        await expect(store.batch([...good, { type: 'nuke', collection: 'atomic', key: 'k' } as never])).rejects.toMatchObject({ code: 'store_invalid_op' });
        expect(await a.list()).toEqual([{ key: 'keep', value: 1 }]);
      });

      it('accepts an empty batch', async () => {
        await store.batch([]);
      });
    });

    describe('lifetime', () => {
      it('answers store_closed after close', async () => {
        const c = store.collection<number>('closing');
        await store.close();
        await expect(c.get('x')).rejects.toMatchObject({ code: 'store_closed' });
        await expect(c.put('x', 1)).rejects.toMatchObject({ code: 'store_closed' });
      });

      it('keeps data across close and reopen (when persistent)', async () => {
        if (!h.persistent) return;
        await store.collection<string>('durable').put('k', 'v');
        await store.close();
        const again = await openStore();
        expect(await again.collection<string>('durable').get('k')).toBe('v');
      });

      it('refuses a second open of the same store with store_locked (when exclusive)', async () => {
        if (!h.exclusive) return;
        await expect(h.open()).rejects.toMatchObject({ code: 'store_locked' });
        expect(store.location).toBeTypeOf('string');
      });
    });

    describe('secrets', () => {
      it('finds a secret stored under a long-form kid by its short form, and the reverse', async () => {
        const secrets = storeSecrets(store);
        const long = secretFor(`${ION_LONG}#key-2`);
        const other = secretFor('did:peer:2.Ez6LSother#key-1');
        await secrets.add([long, other]);
        const short = `${ION_SHORT}#key-2`;
        expect(await secrets.get(short)).toEqual({ ...long, id: short });
        expect(await secrets.get(`${ION_LONG}#key-2`)).toEqual(long);
        expect(await secrets.get(`${ION_SHORT}#key-1`)).toBeUndefined();
        expect(await secrets.find([short, `${ION_LONG}#key-2`, 'did:peer:2.Ez6LSother#key-1', 'did:example:x#y'])).toEqual([
          short,
          `${ION_LONG}#key-2`,
          'did:peer:2.Ez6LSother#key-1',
        ]);
        expect(await secrets.has(short)).toBe(true);
        expect(await secrets.kids(ION_LONG)).toEqual([short]);
        expect(await secrets.kids()).toHaveLength(2);
        await secrets.remove(`${ION_LONG}#key-2`);
        expect(await secrets.has(short)).toBe(false);
      });

      it('adds all secrets or none', async () => {
        const secrets = storeSecrets(store);
        const bad = { ...secretFor('did:example:a#k2'), type: 'Multikey' } as unknown as Secret;
        await expect(secrets.add([secretFor('did:example:a#k1'), bad])).rejects.toMatchObject({ code: 'invalid_secret' });
        expect(await secrets.kids()).toEqual([]);
      });
    });

    describe('dids', () => {
      it('maps a short did:ion to its long form, looked up by either form', async () => {
        const dids = didRegistry(store);
        expect(await dids.get(ION_SHORT)).toBeUndefined();
        await dids.put(ION_SHORT, ION_LONG);
        expect(await dids.get(ION_SHORT)).toBe(ION_LONG);
        expect(await dids.get(ION_LONG)).toBe(ION_LONG);
        expect(await dids.has(ION_LONG)).toBe(true);
        await dids.remove(ION_SHORT);
        expect(await dids.get(ION_SHORT)).toBeUndefined();
      });

      it('refuses a long form that belongs to another DID', async () => {
        const dids = didRegistry(store);
        const otherShort = `did:ion:EiA${'c'.repeat(43)}`;
        await expect(dids.put(otherShort, ION_LONG)).rejects.toMatchObject({ code: 'invalid_did' });
        await expect(dids.put(ION_SHORT, ION_SHORT)).rejects.toMatchObject({ code: 'invalid_did' });
        await expect(dids.put('not a did', ION_LONG)).rejects.toMatchObject({ code: 'invalid_did' });
      });

      it('keeps our own DIDs with metadata and learns their long form', async () => {
        const dids = didRegistry(store);
        await dids.putOwn({ did: ION_LONG, createdAt: '2026-01-02T00:00:00.000Z', label: 'wallet', purpose: 'wallet' });
        await dids.putOwn({ did: 'did:peer:2.Ez6LSx', createdAt: '2026-01-01T00:00:00.000Z' });
        expect(await dids.getOwn(ION_SHORT)).toEqual({ did: ION_LONG, shortDid: ION_SHORT, createdAt: '2026-01-02T00:00:00.000Z', label: 'wallet', purpose: 'wallet' });
        expect(await dids.get(ION_SHORT)).toBe(ION_LONG);
        expect((await dids.listOwn()).map((d) => d.did)).toEqual(['did:peer:2.Ez6LSx', ION_LONG]);
      });
    });

    describe('messages', () => {
      it('lists records in arrival order even when the clock stands still or steps back', async () => {
        const clock = new ManualClock();
        const log = messageLog(store, clock);
        await log.record(record({ id: 'm1' }));
        await log.record(record({ id: 'm2' }));
        clock.advance(-60_000);
        await log.record(record({ id: 'm3' }));
        clock.advance(120_000);
        await log.record(record({ id: 'm4' }));
        expect((await log.list()).map((r) => r.id)).toEqual(['m1', 'm2', 'm3', 'm4']);
        expect((await log.list({ reverse: true, limit: 2 })).map((r) => r.id)).toEqual(['m4', 'm3']);
        const [first] = await log.list({ limit: 1 });
        expect(first.at).toBe(new Date(Date.UTC(2026, 0, 1)).toISOString());
      });

      it('gives distinct ordered keys to concurrent records and to a second log over the same store', async () => {
        const clock = new ManualClock();
        const a = messageLog(store, clock);
        const b = messageLog(store, clock);
        await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).record(record({ id: `m${i}` }))));
        const seqs = (await a.list()).map((r) => r.seq);
        expect(new Set(seqs).size).toBe(20);
        expect(await a.count()).toBe(20);
      });

      it('continues the order after a restart (when persistent)', async () => {
        if (!h.persistent) return;
        const clock = new ManualClock();
        const log = messageLog(store, clock);
        await log.record(record({ id: 'before-1' }));
        await log.record(record({ id: 'before-2' }));
        await store.close();
        const again = await openStore();
        const log2 = messageLog(again, clock);
        await log2.record(record({ id: 'after-1' }));
        expect((await log2.list()).map((r) => r.id)).toEqual(['before-1', 'before-2', 'after-1']);
      });

      it('filters by thread, direction, type and parent thread, and pages with after', async () => {
        const clock = new ManualClock();
        const log = messageLog(store, clock);
        const ping = 'https://didcomm.org/trust-ping/2.0/ping';
        const pong = 'https://didcomm.org/trust-ping/2.0/ping-response';
        await log.record(record({ id: 't1', direction: 'out', type: ping, pthid: 'inv-1' }));
        await log.record(record({ id: 'x1', direction: 'in', type: ping }));
        const r = await log.record(record({ id: 't2', direction: 'in', type: pong, thid: 't1', result: 'accepted', conformance: [{ rule: 'plaintext.id', ok: true }] }));
        await log.record(record({ id: 't3', direction: 'out', type: ping, thid: 't1' }));
        expect((await log.list({ thid: 't1' })).map((m) => m.id)).toEqual(['t1', 't2', 't3']);
        expect((await log.list({ thid: 't1', direction: 'out' })).map((m) => m.id)).toEqual(['t1', 't3']);
        expect((await log.list({ thid: 't1', reverse: true, limit: 1 })).map((m) => m.id)).toEqual(['t3']);
        expect((await log.list({ type: ping })).map((m) => m.id)).toEqual(['t1', 'x1', 't3']);
        expect((await log.list({ direction: 'in' })).map((m) => m.id)).toEqual(['x1', 't2']);
        expect((await log.list({ pthid: 'inv-1' })).map((m) => m.id)).toEqual(['t1']);
        expect((await log.list({ after: r.seq })).map((m) => m.id)).toEqual(['t3']);
        expect((await log.list({ thid: 't1', after: r.seq })).map((m) => m.id)).toEqual(['t3']);
        expect(await log.get(r.seq)).toMatchObject({ id: 't2', result: 'accepted', conformance: [{ rule: 'plaintext.id', ok: true }] });
        expect(await log.list({ thid: 'nothing' })).toEqual([]);
      });

      it('updates a record in place and keeps the thread index right', async () => {
        const log = messageLog(store, new ManualClock());
        const r = await log.record(record({ id: 'u1', result: 'sent' }));
        const u = await log.update(r.seq, { result: 'failed', problemCode: 'e.p.xfer.cant-use-endpoint', thid: 'th-9' });
        expect(u).toMatchObject({ id: 'u1', seq: r.seq, result: 'failed', thid: 'th-9' });
        expect((await log.list({ thid: 'th-9' })).map((m) => m.id)).toEqual(['u1']);
        expect(await log.list({ thid: 'u1' })).toEqual([]);
        await expect(log.update('nope', {})).rejects.toMatchObject({ code: 'not_found' });
      });

      it('stores an outcome apart from the record, never encoding the plaintext again, and merges it on every read', async () => {
        const log = messageLog(store, new ManualClock());
        const message = { id: 'o1', type: 'https://didcomm.org/trust-ping/2.0/ping', body: { big: 'x'.repeat(2_000) } };
        const r = await log.record(record({ id: 'o1', message, result: 'sending' }));
        const raw = store.collection(MESSAGES_COLLECTION);
        const before = JSON.stringify(await raw.get(r.seq));
        // As the router completes a record: the whole record back, with the outcome.
        const conformance = [{ rule: 'plaintext.id', ok: true }];
        await log.update(r.seq, { ...record({ id: 'o1', message, result: 'sent' }), conformance });
        expect(JSON.stringify(await raw.get(r.seq))).toBe(before);
        const outcome = await store.collection(MESSAGES_OUTCOME_COLLECTION).get(r.seq);
        expect(JSON.stringify(outcome).length).toBeLessThan(200);
        const want = { id: 'o1', seq: r.seq, result: 'sent', conformance, message };
        expect(await log.get(r.seq)).toMatchObject(want);
        expect(await log.list()).toEqual([expect.objectContaining(want)]);
        expect(await log.list({ thid: 'o1' })).toEqual([expect.objectContaining(want)]);
        expect(await log.list({ reverse: true, limit: 1 })).toEqual([expect.objectContaining(want)]);
        // A second log (no memory of the record) updates the merged record.
        await messageLog(store, new ManualClock()).update(r.seq, { problemCode: 'e.p.x' });
        expect(await log.get(r.seq)).toMatchObject({ ...want, problemCode: 'e.p.x' });
        // A change to the plaintext rewrites the record whole and drops the outcome.
        await log.update(r.seq, { message: { ...message, body: {} } });
        expect(await store.collection(MESSAGES_OUTCOME_COLLECTION).get(r.seq)).toBeUndefined();
        expect(await log.get(r.seq)).toMatchObject({ result: 'sent', problemCode: 'e.p.x', message: { body: {} } });
        // Retention deletes outcomes with their records.
        await log.update(r.seq, { result: 'failed' });
        await messageLog(store, new ManualClock(), { maxEntries: 0 }).prune();
        expect(await store.collection(MESSAGES_OUTCOME_COLLECTION).list()).toEqual([]);
        expect(await log.list()).toEqual([]);
      });

      it('stores only the conformance results an update adds after the record\'s own', async () => {
        const log = messageLog(store, new ManualClock());
        const own = [{ rule: 'envelope.a', ok: true }, { rule: 'plaintext.b', ok: true }];
        const r = await log.record(record({ id: 'k1', result: 'received', conformance: own }));
        const added = { rule: 'protocol.c', ok: false, detail: 'no' };
        await log.update(r.seq, { result: 'refused', conformance: [...own, added] });
        expect(await store.collection(MESSAGES_OUTCOME_COLLECTION).get(r.seq)).toEqual({ result: 'refused', conformanceAdded: [added] });
        expect((await log.get(r.seq))!.conformance).toEqual([...own, added]);
        expect((await log.list())[0]!.conformance).toEqual([...own, added]);
        // A list that is not an extension of the current one is stored whole.
        await log.update(r.seq, { conformance: [added] });
        expect(await store.collection(MESSAGES_OUTCOME_COLLECTION).get(r.seq)).toEqual({ result: 'refused', conformance: [added] });
        expect((await log.get(r.seq))!.conformance).toEqual([added]);
      });

      it('keeps a record whose outcome was never written (a crash between the two writes)', async () => {
        if (!h.persistent) return;
        const clock = new ManualClock();
        const r = await messageLog(store, clock).record(record({ id: 'c1', result: 'sending' }));
        await messageLog(store, clock).update((await messageLog(store, clock).record(record({ id: 'c2', result: 'sending' }))).seq, { result: 'sent' });
        await store.close();
        const again = await openStore();
        const log = messageLog(again, clock);
        expect((await log.list()).map((m) => [m.id, m.result])).toEqual([['c1', 'sending'], ['c2', 'sent']]);
        expect(await log.get(r.seq)).toMatchObject({ id: 'c1', result: 'sending' });
      });

      it('rejects a record without direction or plaintext', async () => {
        const log = messageLog(store, new ManualClock());
        await expect(log.record({ ...record(), direction: 'sideways' as never })).rejects.toMatchObject({ code: 'invalid_message_record' });
        await expect(log.record({ ...record(), message: undefined as never })).rejects.toMatchObject({ code: 'invalid_message_record' });
      });
    });

    describe('connections', () => {
      it('puts, gets, lists and finds by their DID in either ion form', async () => {
        const conns = connections(store, new ManualClock());
        await conns.put(connection({ id: 'c-1', updatedAt: '2026-01-01T00:00:01.000Z' }));
        await conns.put(connection({ id: 'c-2', myDid: 'did:peer:2.Ez6LSsecond', updatedAt: '2026-01-01T00:00:02.000Z', invitationId: 'inv-1' }));
        await conns.put(connection({ id: 'c-3', theirDid: 'did:peer:2.Ez6LSsomeone', state: 'invited' }));
        expect(await conns.get('c-2')).toMatchObject({ invitationId: 'inv-1' });
        expect((await conns.list()).map((c) => c.id)).toEqual(['c-1', 'c-2', 'c-3']);
        expect((await conns.list({ state: 'invited' })).map((c) => c.id)).toEqual(['c-3']);
        expect((await conns.list({ myDid: 'did:peer:2.Ez6LSsecond' })).map((c) => c.id)).toEqual(['c-2']);
        expect((await conns.listByTheirDid(ION_SHORT)).map((c) => c.id)).toEqual(['c-2', 'c-1']);
        expect((await conns.findByTheirDid(ION_SHORT))?.id).toBe('c-2');
        expect((await conns.findByTheirDid(ION_LONG, { myDid: 'did:peer:2.Ez6LSmine' }))?.id).toBe('c-1');
        expect(await conns.findByTheirDid('did:example:nobody')).toBeUndefined();
      });

      it('updates state and moves the DID index when their DID changes', async () => {
        const clock = new ManualClock();
        const conns = connections(store, clock);
        await conns.put(connection({ id: 'c-1', state: 'invited' }));
        clock.advance(5_000);
        const u = await conns.update('c-1', { state: 'established', theirDid: 'did:peer:2.Ez6LSrotated' });
        expect(u).toMatchObject({ state: 'established', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:05.000Z' });
        expect(await conns.findByTheirDid(ION_SHORT)).toBeUndefined();
        expect((await conns.findByTheirDid('did:peer:2.Ez6LSrotated'))?.id).toBe('c-1');
        await conns.remove('c-1');
        expect(await conns.get('c-1')).toBeUndefined();
        expect(await conns.listByTheirDid('did:peer:2.Ez6LSrotated')).toEqual([]);
        await expect(conns.update('c-1', {})).rejects.toMatchObject({ code: 'not_found' });
      });

      it('rejects a record missing its DIDs', async () => {
        const conns = connections(store);
        await expect(conns.put({ ...connection(), theirDid: '' })).rejects.toMatchObject({ code: 'invalid_connection' });
      });
    });
  });
}
