// store/messages.ts retention: the log deletes records past maxAgeMs and beyond maxEntries,
// opportunistically after every pruneEvery records or all at once with prune().
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import {
  MESSAGE_LOG_DEFAULTS,
  MESSAGES_BY_THREAD_COLLECTION,
  MESSAGES_COLLECTION,
  messageDigest,
  messageLog,
  type MessageRecord,
} from '../../src/store/messages.js';
import { openStore, type Store } from '../../src/store/store.js';

const DAY = 24 * 3600 * 1000;

function record(over: Partial<MessageRecord> = {}): Omit<MessageRecord, 'at'> {
  const id = over.id ?? 'm';
  return { id, direction: 'in', type: 'https://didcomm.org/trust-ping/2.0/ping', mode: 'authcrypt', size: 10, message: { id, type: 'x', body: {} }, ...over };
}

const ids = async (store: Store) => (await store.collection<MessageRecord>(MESSAGES_COLLECTION).list()).map((e) => e.value.id);
const threadKeys = async (store: Store) => (await store.collection<string>(MESSAGES_BY_THREAD_COLLECTION).list()).length;

describe('message log retention', () => {
  it('has generous documented defaults: 30 days, 100,000 records, a prune every 100 records', () => {
    expect(MESSAGE_LOG_DEFAULTS).toEqual({ maxAgeMs: 30 * DAY, maxEntries: 100_000, pruneEvery: 100 });
  });

  it('deletes records older than maxAgeMs, with their thread index entries, every pruneEvery records', async () => {
    const store = await openStore();
    const clock = new ManualClock();
    const log = messageLog(store, clock, { maxAgeMs: DAY, pruneEvery: 3 });
    await log.record(record({ id: 'old-1', thid: 't-old' }));
    await log.record(record({ id: 'old-2', thid: 't-old' }));
    clock.advance(DAY);
    await log.record(record({ id: 'new-1', thid: 't-new' }));
    expect(await ids(store)).toEqual(['new-1']);
    expect(await log.list({ thid: 't-old' })).toEqual([]);
    expect(await threadKeys(store)).toBe(1);
    await store.close();
  });

  it('keeps at most maxEntries records, deleting the oldest first', async () => {
    const store = await openStore();
    const clock = new ManualClock();
    const log = messageLog(store, clock, { maxEntries: 3, pruneEvery: 2 });
    for (let i = 1; i <= 6; i++) {
      await log.record(record({ id: `m${i}` }));
      clock.advance(1);
    }
    expect(await ids(store)).toEqual(['m4', 'm5', 'm6']);
    expect(await log.count()).toBe(3);
    expect(await threadKeys(store)).toBe(3);
    await store.close();
  });

  it('counts records written before (by another log over the same store) toward maxEntries', async () => {
    const store = await openStore();
    const clock = new ManualClock();
    const unbounded = messageLog(store, clock);
    for (let i = 1; i <= 10; i++) await unbounded.record(record({ id: `a${i}` }));
    const bounded = messageLog(store, clock, { maxEntries: 4, pruneEvery: 1 });
    await bounded.record(record({ id: 'b1' }));
    expect(await ids(store)).toEqual(['a8', 'a9', 'a10', 'b1']);
    await store.close();
  });

  it('prunes everything past the limits on demand and says how many went', async () => {
    const store = await openStore();
    const clock = new ManualClock();
    const log = messageLog(store, clock, { maxAgeMs: DAY, maxEntries: 2, pruneEvery: 1_000 });
    for (let i = 1; i <= 5; i++) await log.record(record({ id: `old${i}` }));
    clock.advance(DAY);
    for (let i = 1; i <= 4; i++) await log.record(record({ id: `new${i}` }));
    expect(await log.count()).toBe(9);
    expect(await log.prune()).toBe(7);
    expect(await ids(store)).toEqual(['new3', 'new4']);
    expect(await log.prune()).toBe(0);
    await store.close();
  });

  it('keeps everything with Infinity limits', async () => {
    const store = await openStore();
    const clock = new ManualClock();
    const log = messageLog(store, clock, { maxAgeMs: Infinity, maxEntries: Infinity, pruneEvery: 1 });
    await log.record(record({ id: 'a' }));
    clock.advance(365 * DAY);
    await log.record(record({ id: 'b' }));
    expect(await log.prune()).toBe(0);
    expect(await ids(store)).toEqual(['a', 'b']);
    await store.close();
  });

  it('still records when a prune fails, and prunes at a later turn', async () => {
    const real = await openStore();
    let failDeletes = true;
    const store: Store = {
      location: real.location,
      collection: (name) => real.collection(name),
      batch: async (ops) => {
        if (failDeletes && ops.some((o) => o.type === 'del')) throw new Error('disk full');
        return real.batch(ops);
      },
      close: () => real.close(),
    };
    const clock = new ManualClock();
    const log = messageLog(store, clock, { maxEntries: 1, pruneEvery: 2 });
    await log.record(record({ id: 'a' }));
    await log.record(record({ id: 'b' }));
    expect(await ids(real)).toEqual(['a', 'b']);
    failDeletes = false;
    await log.record(record({ id: 'c' }));
    await log.record(record({ id: 'd' }));
    expect(await ids(real)).toEqual(['d']);
    await real.close();
  });

  it('limits a listing without filters in the store, newest first with reverse', async () => {
    const store = await openStore();
    const log = messageLog(store, new ManualClock());
    for (let i = 1; i <= 5; i++) await log.record(record({ id: `m${i}` }));
    expect((await log.list({ limit: 2 })).map((r) => r.id)).toEqual(['m1', 'm2']);
    expect((await log.list({ limit: 2, reverse: true })).map((r) => r.id)).toEqual(['m5', 'm4']);
    await store.close();
  });
});

describe('message log updates', () => {
  it('updates a fresh record without reading it back, and two logs over one store see each other\'s updates', async () => {
    const store = await openStore();
    const a = messageLog(store, new ManualClock());
    const b = messageLog(store, new ManualClock());
    const { seq } = await a.record(record({ id: 'x', result: 'sending' }));
    await b.update(seq, { result: 'queued' });
    expect((await a.update(seq, { problemCode: 'p' })).result).toBe('queued');
    expect((await a.get(seq))?.result).toBe('queued');
    await store.close();
  });

  it('a pruned record is not brought back by an update', async () => {
    const store = await openStore();
    const clock = new ManualClock();
    const log = messageLog(store, clock, { maxAgeMs: DAY });
    const { seq } = await log.record(record({ id: 'old' }));
    clock.advance(DAY);
    await log.prune();
    await expect(log.update(seq, { result: 'sent' })).rejects.toMatchObject({ code: 'not_found' });
    expect(await ids(store)).toEqual([]);
    await store.close();
  });
});

describe('message digest', () => {
  it('keeps size, a 128-bit hash and the first 200 characters', () => {
    const text = `{"a":"${'é'.repeat(500)}"}`;
    const d = messageDigest(text);
    expect(d.size).toBe(Buffer.byteLength(text));
    expect(d.hash).toMatch(/^sha256:[A-Za-z0-9_-]{22}$/);
    expect(d.head).toBe(text.slice(0, 200));
    expect(messageDigest(text, 'short').head).toBe('short');
    expect(messageDigest(text + ' ').hash).not.toBe(d.hash);
  });
});
