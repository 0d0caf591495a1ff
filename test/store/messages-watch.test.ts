// watchMessageLog: live views are told of every record and update of a store's message log, by
// any log over that store, and a watcher that throws never fails a record.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { messageLog, watchMessageLog, type MessageLogChange } from '../../src/store/messages.js';
import { openStore } from '../../src/store/store.js';

const input = (id: string, result: string) => ({
  id, direction: 'out' as const, type: 'https://didcomm.org/trust-ping/2.0/ping', mode: 'authcrypt' as const, size: 10, result, message: { id, type: 'x', body: {} },
});

describe('watching the message log', () => {
  it('tells watchers of records and updates, in order, with their seq', async () => {
    const store = await openStore();
    const seen: MessageLogChange[] = [];
    const stop = watchMessageLog(store, (c) => seen.push(c));
    const log = messageLog(store, new ManualClock(Date.parse('2026-01-01T00:00:00Z')));
    const a = await log.record(input('m1', 'sending'));
    await log.update(a.seq, { result: 'sent' });
    // A second log over the same store reaches the same watchers.
    await messageLog(store, new ManualClock(0)).record(input('m2', 'sending'));
    expect(seen.map((c) => [c.kind, c.message.id, c.message.result])).toEqual([
      ['record', 'm1', 'sending'],
      ['update', 'm1', 'sent'],
      ['record', 'm2', 'sending'],
    ]);
    expect(seen[1].message.seq).toBe(a.seq);
    stop();
    await log.record(input('m3', 'sending'));
    expect(seen).toHaveLength(3);
    await store.close();
  });

  it('keeps recording when a watcher throws, and tells the others', async () => {
    const store = await openStore();
    const seen: string[] = [];
    watchMessageLog(store, () => {
      throw new Error('watcher broke');
    });
    watchMessageLog(store, (c) => seen.push(c.message.id));
    const log = messageLog(store, new ManualClock(0));
    await expect(log.record(input('m1', 'sending'))).resolves.toMatchObject({ id: 'm1' });
    expect(seen).toEqual(['m1']);
    expect(await log.count()).toBe(1);
    await store.close();
  });

  it('does not tell watchers of another store', async () => {
    const [one, two] = [await openStore(), await openStore()];
    const seen: string[] = [];
    watchMessageLog(one, (c) => seen.push(c.message.id));
    await messageLog(two, new ManualClock(0)).record(input('elsewhere', 'sending'));
    expect(seen).toEqual([]);
    await Promise.all([one.close(), two.close()]);
  });
});
