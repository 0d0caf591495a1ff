// Webhook sequence numbers per subject have no gaps, and a manual redelivery is held in its
// subject's order (docs/service.md "Webhooks"). An event is numbered once the write that stores it
// landed: a state change whose write failed spends no number, and one stored just before a crash
// is numbered by the next start. A redelivered event goes out before the later events of its
// subject that are not delivered yet.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../../src/clock.js';
import { openStore, type Store } from '../../../src/store/store.js';
import { createWebhookDispatcher, type WebhookDelivery } from '../../../src/service/webhooks/dispatcher.js';
import { dataSyncEvent } from '../../../src/service/webhooks/events.js';
import { startReceiver } from './receiver.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function setup(script: number[] = [], store?: Store) {
  const s = store ?? (await openStore());
  if (!store) cleanup.push(() => s.close());
  const clock = new ManualClock(Date.now());
  const receiver = await startReceiver(script);
  cleanup.push(() => receiver.close());
  const dispatcher = createWebhookDispatcher({ store: s, clock, ids: sequentialIds(`evt-${Math.random()}`), backoff: { baseMs: 1_000, maxMs: 8_000, maxAttempts: 2 }, random: () => 0.5 });
  cleanup.push(() => dispatcher.stop());
  await dispatcher.subscribe({ url: receiver.url });
  return { store: s, clock, receiver, dispatcher };
}

const ada = (event: 'DATA_SYNC_STARTED' | 'DATA_SYNC_COMPLETED' | 'DATA_SYNC_FAILED') => dataSyncEvent(event, { cptyDID: 'did:x', dataSyncOperationId: 'op', userId: 'ada' });
const sequencesOf = (bodies: { body: string; status: number }[]) => bodies.filter((b) => b.status === 200).map((b) => (JSON.parse(b.body) as { sequence: number }).sequence);

describe('webhook sequence numbers', () => {
  it('spends no number on an event whose state change was never written', async () => {
    const { store, receiver, dispatcher } = await setup();
    await dispatcher.emit(ada('DATA_SYNC_STARTED'));
    // The state change fails to be written: its event is not stored, and no commit follows.
    const lost = await dispatcher.prepare(ada('DATA_SYNC_FAILED'));
    void lost;
    const kept = await dispatcher.prepare(ada('DATA_SYNC_COMPLETED'));
    await store.batch([{ type: 'put', collection: 'caller-state', key: 'k', value: {} }, ...kept.ops]);
    kept.commit();
    await dispatcher.deliverDue();
    await dispatcher.deliverDue();
    expect(sequencesOf(receiver.received)).toEqual([1, 2]);
  });

  it('numbers after a restart an event stored just before a crash, in order', async () => {
    const store = await openStore();
    cleanup.push(() => store.close());
    const first = await setup([], store);
    await first.dispatcher.emit(ada('DATA_SYNC_STARTED'));
    const stored = await first.dispatcher.prepare(ada('DATA_SYNC_COMPLETED'));
    await store.batch(stored.ops);
    // The process dies before commit() numbers it.
    await first.dispatcher.stop();
    const again = await setup([], store);
    await again.dispatcher.deliverDue();
    await again.dispatcher.deliverDue();
    expect(sequencesOf(first.receiver.received)).toEqual([1, 2]);
  });

  it('holds a manual redelivery in its subject order: a later event not delivered yet waits for it', async () => {
    // Event 1 delivered; event 2 refused twice (dead); event 3 refused once, then retried.
    const { clock, receiver, dispatcher } = await setup([200, 500, 500, 500]);
    await dispatcher.emit(ada('DATA_SYNC_STARTED'));
    await dispatcher.deliverDue();
    const dead = new Promise<WebhookDelivery>((resolve) => dispatcher.on('dead', resolve));
    await dispatcher.emit(ada('DATA_SYNC_FAILED'));
    await dispatcher.deliverDue();
    clock.advance(2_000);
    await dispatcher.deliverDue();
    const second = await dead;
    await dispatcher.emit(ada('DATA_SYNC_STARTED'));
    await dispatcher.deliverDue();
    // Event 3 is pending (its first attempt got 500) and due again; the user redelivers event 2.
    clock.advance(1_000);
    await dispatcher.redeliver(second.id);
    for (let i = 0; i < 8; i++) {
      await dispatcher.deliverDue();
      clock.advance(1_000);
    }
    expect(sequencesOf(receiver.received)).toEqual([1, 2, 3]);
  });
});
