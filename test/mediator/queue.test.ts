// The mediator's queue keeps each recipient's waiting messages as slots in memory (id, time, size,
// message id, ends), so that a forward neither lists nor parses what already waits. These tests
// pin that it reads nothing it does not deliver, and that what it answers from the slots is what
// the store holds: through random operations, concurrent writes, expiry, prune and a restart.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { DEFAULT_QUEUE_COLLECTION, messageQueue, type QueuedMessage } from '../../src/mediator/queue.js';
import { openStore } from '../../src/store/store.js';
import { countingStore } from '../store/counting-store.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const packedOf = (n: number) => JSON.stringify({ protected: 'p', ciphertext: 'c'.repeat(n) });

describe('the mediator queue', () => {
  it('takes a forward without reading the messages already waiting, and counts and describes them without reading them', async () => {
    const inner = await openStore();
    cleanup.push(() => inner.close());
    const { store, reads } = countingStore(inner, DEFAULT_QUEUE_COLLECTION);
    const queue = messageQueue({ store, clock: new ManualClock(), ids: sequentialIds('q') });
    const did = 'did:example:alice';
    await queue.enqueue(did, packedOf(100), { messageId: 'm0' });
    const afterFirst = reads();
    for (let i = 1; i < 200; i++) await queue.enqueue(did, packedOf(100 + i), { messageId: `m${i}` });
    expect(await queue.count(did)).toBe(200);
    const waiting = await queue.waiting(did);
    expect(waiting).toHaveLength(200);
    expect(waiting.reduce((n, s) => n + s.size, 0)).toBe(Array.from({ length: 200 }, (_, i) => Buffer.byteLength(packedOf(100 + i))).reduce((a, b) => a + b));
    // Without the slots, each forward read every waiting message (19,900 reads for these 199).
    expect(reads()).toBe(afterFirst);
    // A delivery reads what it delivers, and nothing more.
    const ten = await queue.list(did, 10);
    expect(ten.map((e) => e.messageId)).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
    expect(reads()).toBe(afterFirst + 10);
    expect(await queue.remove(did, ten.map((e) => e.id))).toBe(10);
    expect(reads()).toBe(afterFirst + 10);
    expect(await queue.count(did)).toBe(190);
  });

  it('keeps a message sent again once: the repeat is answered with the entry already waiting', async () => {
    const store = await openStore();
    cleanup.push(() => store.close());
    const queue = messageQueue({ store, clock: new ManualClock(), ids: sequentialIds('q') });
    const first = await queue.enqueue('did:example:a', 'x', { messageId: 'same' });
    await queue.enqueue('did:example:a', 'y', { messageId: 'other' });
    const again = await queue.enqueue('did:example:a', 'x', { messageId: 'same' });
    expect(again).toEqual(first);
    expect(await queue.count('did:example:a')).toBe(2);
  });

  it('finds a repeat after a restart: the slots of a reopened store come from what is on disk', async () => {
    const dir = await mkdtemp(join(os.tmpdir(), 'idsync-queue-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const clock = new ManualClock();
    let store = await openStore({ path: dir });
    const first = await messageQueue({ store, clock, ids: sequentialIds('a') }).enqueue('did:example:a', 'x', { messageId: 'same' });
    await store.close();
    store = await openStore({ path: dir });
    cleanup.push(() => store.close());
    const queue = messageQueue({ store, clock, ids: sequentialIds('b') });
    expect(await queue.enqueue('did:example:a', 'x', { messageId: 'same' })).toEqual(first);
    expect((await queue.waiting('did:example:a')).map((s) => s.id)).toEqual([first.id]);
  });

  it('does not keep a listing that a write overtook: a prune while the slots were being read', async () => {
    const inner = await openStore();
    cleanup.push(() => inner.close());
    const clock = new ManualClock();
    let hold: Promise<void> | undefined;
    // Listings of one recipient's range are taken, then held until released.
    const { store } = countingStore(inner, DEFAULT_QUEUE_COLLECTION, async (o) => {
      if (o?.prefix && hold) await hold;
    });
    await messageQueue({ store: inner, clock, ids: sequentialIds('old') }, { ttlMs: 1000 }).enqueue('did:example:a', 'old');
    clock.advance(2000);
    const queue = messageQueue({ store, clock, ids: sequentialIds('q') }, { ttlMs: 1000 });
    let release!: () => void;
    hold = new Promise((r) => (release = r));
    const counting = queue.count('did:example:a');
    await new Promise((r) => setImmediate(r));
    // The listing under way holds the old message; the prune deletes it meanwhile.
    expect(await queue.prune()).toBe(1);
    hold = undefined;
    release();
    expect(await counting).toBe(0);
    clock.set(clock.now() - 2000);
    // Read with a clock that would still count it: the slots kept must not hold what the prune deleted.
    expect(await queue.count('did:example:a')).toBe(0);
  });

  it('answers what the store holds, through random enqueues, deliveries, confirmations, expiry and prunes, some of them concurrent', async () => {
    const dir = await mkdtemp(join(os.tmpdir(), 'idsync-queue-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const store = await openStore({ path: dir });
    cleanup.push(() => store.close());
    const clock = new ManualClock();
    const ttlMs = 10_000;
    const queue = messageQueue({ store, clock, ids: sequentialIds('q') }, { ttlMs, maxPerRecipient: 12 });
    const col = store.collection<QueuedMessage>(DEFAULT_QUEUE_COLLECTION);
    const dids = ['did:example:a', 'did:example:b', 'did:example:c'];
    // A fixed seed: a failure names the step, and the same steps come again.
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pick = <T,>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;

    /** The deliverable messages of `did` by a listing of the store: alive by the TTL, not ended, due. */
    const truth = async (did: string) => {
      const now = clock.now();
      return (await col.list({ prefix: `${did}/` }))
        .map((e) => e.value)
        .filter((e) => Date.parse(e.queuedAt) >= now - ttlMs && (e.expiresAt === undefined || e.expiresAt > now) && (e.notBefore === undefined || e.notBefore <= now))
        .map((e) => e.id);
    };

    for (let step = 0; step < 400; step++) {
      const did = pick(dids);
      const roll = random();
      const enqueue = (d: string) => {
        const meta = random() < 0.2 ? { expiresAt: clock.now() + Math.floor(random() * 5000) } : random() < 0.2 ? { notBefore: clock.now() + Math.floor(random() * 3000) } : {};
        return queue.enqueue(d, packedOf(Math.floor(random() * 50)), { messageId: `m${Math.floor(random() * 30)}`, ...meta }).catch((err: { code?: string }) => {
          if (err.code !== 'queue_full') throw err;
        });
      };
      if (roll < 0.35) await enqueue(did);
      else if (roll < 0.5) await Promise.all([enqueue(did), enqueue(did), enqueue(pick(dids)), queue.count(did), queue.remove(did, (await queue.waiting(did)).slice(0, 1).map((s) => s.id))]);
      else if (roll < 0.65) {
        const delivered = await queue.list(did, 1 + Math.floor(random() * 3));
        await queue.remove(did, delivered.filter(() => random() < 0.7).map((e) => e.id).concat(['unknown-id', 'bad/id']));
      } else if (roll < 0.8) clock.advance(Math.floor(random() * 2000));
      else if (roll < 0.85) await queue.prune();
      const expected = await truth(did);
      expect((await queue.waiting(did)).map((s) => s.id), `step ${step}`).toEqual(expected);
      expect(await queue.count(did), `step ${step}`).toBe(expected.length);
      expect((await queue.list(did)).map((e) => e.id), `step ${step}`).toEqual(expected);
    }
  });

  it('holds its limit when a recipient\'s messages arrive at the same moment, on disk', async () => {
    const dir = await mkdtemp(join(os.tmpdir(), 'idsync-queue-'));
    const store = await openStore({ path: dir });
    cleanup.push(async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    });
    const queue = messageQueue({ store, clock: new ManualClock(), ids: sequentialIds('q') }, { maxPerRecipient: 3 });
    const did = 'did:example:alice';
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) => queue.enqueue(did, packedOf(10), { messageId: `m${i}` }).then(() => 'queued', (err: { code?: string }) => err.code ?? 'error')),
    );
    expect(outcomes.filter((o) => o === 'queued')).toHaveLength(3);
    expect(outcomes.filter((o) => o === 'queue_full')).toHaveLength(9);
    expect(await queue.count(did)).toBe(3);
    expect((await store.collection(DEFAULT_QUEUE_COLLECTION).list({ prefix: `${did}/` })).length).toBe(3);
  });

  it('removes what one confirmation names for several recipients in one write', async () => {
    const store = await openStore();
    const batches: number[] = [];
    const counted = { ...store, location: store.location, collection: store.collection.bind(store), close: () => store.close(), batch: (ops: Parameters<typeof store.batch>[0]) => (batches.push(ops.length), store.batch(ops)) };
    const queue = messageQueue({ store: counted, clock: new ManualClock(), ids: sequentialIds('q') });
    const a = await queue.enqueue('did:example:a', packedOf(10));
    const b = await queue.enqueue('did:example:b', packedOf(11));
    await queue.enqueue('did:example:b', packedOf(12));
    batches.length = 0;
    expect(await queue.remove(['did:example:a', 'did:example:b'], [a.id, b.id, 'unknown'])).toBe(2);
    expect(batches).toEqual([2]);
    expect(await queue.count('did:example:a')).toBe(0);
    expect(await queue.count('did:example:b')).toBe(1);
    await store.close();
  });

  it('queues anew a message sent again after an earlier copy passed its own end, though that copy is not yet deleted', async () => {
    const inner = await openStore();
    cleanup.push(() => inner.close());
    const clock = new ManualClock();
    const queue = messageQueue({ store: inner, clock, ids: sequentialIds('q') });
    const did = 'did:example:alice';
    await queue.enqueue(did, packedOf(10), { messageId: 'sha256:P', expiresAt: clock.now() + 2000 });
    // The first copy's end passes; nobody looked at the queue since, so it is still stored.
    clock.advance(5000);
    const again = await queue.enqueue(did, packedOf(10), { messageId: 'sha256:P' });
    expect(again.expiresAt).toBeUndefined();
    expect(await queue.count(did)).toBe(1);
    expect((await queue.list(did)).map((e) => e.id)).toEqual([again.id]);
  });
});
