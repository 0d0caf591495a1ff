// A webhook event is written once: numbering it stores its number apart (dispatcher.ts NUMBERS),
// and every read (the delivery's body, getEvent, subjectEvents) gives the event with its number and
// its body made from the numbered envelope: byte for byte what the receiver got and the signature
// covers. Events stored numbered by earlier versions read and deliver as stored.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../../src/clock.js';
import { openStore, type BatchOp, type Store } from '../../../src/store/store.js';
import { createWebhookDispatcher, DELIVERIES, DUE, EVENTS, NUMBERS, SEQUENCES, type StoredWebhookEvent } from '../../../src/service/webhooks/dispatcher.js';
import { timeKey } from '../../../src/store/time-key.js';
import { dataSyncEvent } from '../../../src/service/webhooks/events.js';
import { verifyWebhook } from '../../../src/service/webhooks/signature.js';
import { startReceiver } from './receiver.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function setup() {
  const inner = await openStore();
  cleanup.push(() => inner.close());
  // Every batch recorded.
  const ops: BatchOp[] = [];
  const store: Store = {
    collection: (name) => inner.collection(name),
    batch: async (b) => {
      ops.push(...b);
      await inner.batch(b);
    },
    close: () => inner.close(),
    location: inner.location,
  };
  const receiver = await startReceiver();
  cleanup.push(() => receiver.close());
  const clock = new ManualClock(Date.now());
  const dispatcher = createWebhookDispatcher({ store, clock, ids: sequentialIds('evt') });
  cleanup.push(() => dispatcher.stop());
  const sub = await dispatcher.subscribe({ url: receiver.url });
  return { inner, store, ops, receiver, clock, dispatcher, sub };
}

const event = (name: 'DATA_SYNC_STARTED' | 'DATA_SYNC_COMPLETED') => dataSyncEvent(name, { cptyDID: 'did:x', dataSyncOperationId: 'op', userId: 'ada' });
const puts = (ops: BatchOp[], collection: string) => ops.filter((o) => o.type === 'put' && o.collection === collection);

describe('webhook events written once', () => {
  it('stores each event once and its number apart; the receiver, getEvent and subjectEvents see it numbered', async () => {
    const { inner, store, ops, receiver, clock, dispatcher, sub } = await setup();
    const first = await dispatcher.emit(event('DATA_SYNC_STARTED'));
    // As a state change stores its event (event-outbox.ts): in its own batch, then commit().
    const prepared = await dispatcher.prepare(event('DATA_SYNC_COMPLETED'));
    await store.batch([{ type: 'put', collection: 'caller-state', key: 'k', value: 1 }, ...prepared.ops]);
    prepared.commit();
    // One pass delivers the first; the second waits for it (each subject in order) and goes in the next.
    await dispatcher.deliverDue();
    await dispatcher.deliverDue();

    expect(puts(ops, EVENTS).map((o) => (o as { key: string }).key)).toEqual([first, prepared.eventId]);
    expect(puts(ops, NUMBERS).map((o) => [(o as { key: string }).key, (o as { value: unknown }).value])).toEqual([[first, 1], [prepared.eventId, 2]]);
    // As stored: not numbered, no body.
    const raw = (await inner.collection<StoredWebhookEvent>(EVENTS).get(first))!;
    expect(raw).toMatchObject({ body: '', envelope: { sequence: 0 } });

    expect(receiver.received.map((r) => (JSON.parse(r.body) as { sequence: number }).sequence)).toEqual([1, 2]);
    const nowSec = Math.floor(clock.now() / 1000);
    for (const [i, id] of [first, prepared.eventId].entries()) {
      const ev = (await dispatcher.getEvent(id))!;
      expect(ev.unsequenced).toBeUndefined();
      expect(ev.envelope.sequence).toBe(i + 1);
      expect(ev.body).toBe(JSON.stringify(ev.envelope));
      expect(receiver.received[i]!.body).toBe(ev.body);
      expect(() => verifyWebhook(sub.secret, receiver.received[i]!.headers, ev.body, { nowSec })).not.toThrow();
    }
    const subject = (await dispatcher.getEvent(first))!.envelope.subject!;
    const listed = await dispatcher.subjectEvents('', subject);
    expect(listed).toEqual([await dispatcher.getEvent(first), await dispatcher.getEvent(prepared.eventId)]);
  });

  it('numbers an event once when its commit and a pass race for it, and not at all before it is stored', async () => {
    const { store, ops, receiver, dispatcher } = await setup();
    const prepared = await dispatcher.prepare(event('DATA_SYNC_STARTED'));
    await dispatcher.deliverDue();
    expect(puts(ops, NUMBERS)).toHaveLength(0);
    await store.batch(prepared.ops);
    prepared.commit();
    await Promise.all([dispatcher.deliverDue(), dispatcher.deliverDue()]);
    expect(puts(ops, NUMBERS)).toHaveLength(1);
    expect(receiver.received).toHaveLength(1);
  });

  it('reads and delivers an event stored numbered by an earlier version as it was stored', async () => {
    const { inner, receiver, clock, dispatcher, sub } = await setup();
    const envelope = { ...event('DATA_SYNC_STARTED'), occurredAt: new Date().toISOString(), subject: 'user:ada', sequence: 1 };
    const body = JSON.stringify(envelope);
    const old: StoredWebhookEvent = { id: 'old-1', envelope: envelope as StoredWebhookEvent['envelope'], body, createdAt: envelope.occurredAt };
    const at = clock.now();
    await inner.batch([
      { type: 'put', collection: EVENTS, key: 'old-1', value: old },
      { type: 'put', collection: SEQUENCES, key: '/user:ada|000000000001', value: 'old-1' },
      {
        type: 'put', collection: DELIVERIES, key: `old-1:${sub.id}`,
        value: { id: `old-1:${sub.id}`, eventId: 'old-1', subscriptionId: sub.id, url: sub.url, state: 'pending', attempts: [], roundStart: 0, nextAttemptAt: at, createdAt: old.createdAt },
      },
      { type: 'put', collection: DUE, key: `${timeKey(at)}|old-1:${sub.id}`, value: `old-1:${sub.id}` },
    ]);
    expect(await dispatcher.getEvent('old-1')).toEqual(old);
    expect(await dispatcher.subjectEvents(undefined, 'user:ada')).toEqual([old]);
    expect(await dispatcher.deliverDue()).toBe(1);
    expect(receiver.received.map((r) => r.body)).toEqual([body]);
  });
});
