// The replay memory (message ids already received) is kept for a retention window (default
// 7 days, injected clock) and pruned on inbound traffic at most once per sweep interval, and
// once when the agent starts (which also catches records written before the time index).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COLLECTIONS } from '../../../src/service/didcomm/collections.js';
import { DEFAULT_SEEN_RETENTION_MS } from '../../../src/service/didcomm/seen.js';
import type { SeenRecord } from '../../../src/router/router.js';
import { memoryHarness, type MemoryHarness } from './harness.js';

let h: MemoryHarness;
beforeEach(async () => {
  h = await memoryHarness();
});
afterEach(async () => {
  await h.close();
});

const PING = 'https://didcomm.org/trust-ping/2.0/ping';
const seenKeys = async () => (await h.store.collection<SeenRecord>(COLLECTIONS.seen).list()).map((e) => e.key);
const indexSize = () => h.store.collection<string>(COLLECTIONS.seenByTime).count();

async function ping(holder: ReturnType<MemoryHarness['holder']>): Promise<string> {
  const handled = h.agent.waitFor<{ id: string }>('received', (e) => e.id !== undefined);
  const sent = await holder.send({ type: PING, body: { response_requested: false } });
  await handled;
  await h.agent.idle();
  return sent.id.toLowerCase();
}

describe('replay memory retention', () => {
  it('prunes message ids older than 7 days on the first inbound message after a sweep interval', async () => {
    const ref = await h.user('u1');
    const holder = h.holder();
    await holder.acceptDataPipe(await h.invitation(ref));
    const first = await ping(holder);
    const before = await seenKeys();
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(before.some((k) => k.startsWith(`${first}|`))).toBe(true);
    expect(await indexSize()).toBe(before.length);

    // Within the window nothing goes, however many sweeps.
    h.clock.advance(DEFAULT_SEEN_RETENTION_MS - 60_000);
    await ping(holder);
    expect(await seenKeys()).toEqual(expect.arrayContaining(before));

    // Past the window: the next inbound message (after the sweep interval) prunes the old ids only.
    h.clock.advance(2 * 3600 * 1000);
    const pruned = h.agent.waitFor<{ removed: number }>('seen-pruned');
    const latest = await ping(holder);
    expect((await pruned).removed).toBe(before.length);
    const after = await seenKeys();
    expect(after.some((k) => before.includes(k))).toBe(false);
    expect(after.some((k) => k.startsWith(`${latest}|`))).toBe(true);
    expect(await indexSize()).toBe(after.length);
  });

  it('sweeps at most once per interval', async () => {
    const holder = h.holder();
    const ref = await h.user('u1');
    await holder.acceptDataPipe(await h.invitation(ref));
    h.clock.advance(DEFAULT_SEEN_RETENTION_MS + 1);
    let sweeps = 0;
    h.agent.events.on('seen-pruned', () => sweeps++);
    await ping(holder);
    await ping(holder);
    expect(sweeps).toBe(1);
    expect(await h.agent.pruneSeen()).toBe(0);
  });

  it('on start, prunes old records written without a time index and indexes the young ones', async () => {
    const seen = h.store.collection<SeenRecord>(COLLECTIONS.seen);
    h.clock.advance(DEFAULT_SEEN_RETENTION_MS * 2);
    await seen.put('old-id|did:example:a', { at: h.clock.now() - DEFAULT_SEEN_RETENTION_MS - 1 });
    await seen.put('young-id|did:example:a', { at: h.clock.now() - 1000 });
    await h.restart(); // start() sweeps in the background
    await h.agent.idle();
    expect(await seenKeys()).toEqual(['young-id|did:example:a']);
    expect(await indexSize()).toBe(1);
    // Later sweeps find it through the index once it is old.
    h.clock.advance(DEFAULT_SEEN_RETENTION_MS);
    expect(await h.agent.pruneSeen()).toBe(1);
    expect(await seenKeys()).toEqual([]);
  });
});
