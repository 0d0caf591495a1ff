// WebhookDispatcher.prepare (outbox pattern, service-security.md #8b) and delivery to stored URLs
// that the link-local / metadata rule refuses (#10).
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../../src/clock.js';
import { openStore, type Store } from '../../../src/store/store.js';
import { createWebhookDispatcher, DELIVERIES, EVENTS, type WebhookDelivery } from '../../../src/service/webhooks/dispatcher.js';
import { SUBSCRIPTIONS, type WebhookSubscription } from '../../../src/service/webhooks/subscriptions.js';
import { startReceiver } from './receiver.js';

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe('webhook dispatcher outbox', () => {
  it('prepare() writes nothing; the caller\'s batch stores the event and its deliveries', async () => {
    store = await openStore();
    const receiver = await startReceiver();
    const clock = new ManualClock(Date.now());
    const dispatcher = createWebhookDispatcher({ store, clock, ids: sequentialIds('evt') });
    await dispatcher.subscribe({ url: receiver.url });
    const prepared = await dispatcher.prepare({ type: 'SSI_AGENT', action: 'DATA_PIPE_STATUS_UPDATE', event: 'DATA_PIPE_ESTABLISHED', params: { userId: 'u1' } });
    expect(await store.collection(EVENTS).count()).toBe(0);
    expect(await dispatcher.deliverDue()).toBe(0);

    await store.batch([{ type: 'put', collection: 'caller-state', key: 'k', value: { linked: true } }, ...prepared.ops]);
    prepared.commit();
    expect((await dispatcher.getEvent(prepared.eventId))?.envelope.event).toBe('DATA_PIPE_ESTABLISHED');
    expect(await dispatcher.deliverDue()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    await receiver.close();
  });

  it('dead-letters, without calling it, a stored subscription whose URL is link-local', async () => {
    store = await openStore();
    const calls: string[] = [];
    const dispatcher = createWebhookDispatcher({
      store,
      clock: new ManualClock(Date.now()),
      ids: sequentialIds('evt'),
      fetch: (async (url: string) => {
        calls.push(String(url));
        return new Response(null, { status: 200 });
      }) as typeof fetch,
    });
    // As written before the rule existed (the repo would refuse it now).
    const at = new Date().toISOString();
    await store.collection<WebhookSubscription>(SUBSCRIPTIONS).put('old', { id: 'old', url: 'http://169.254.169.254/latest/meta-data', secret: 'whsec_' + Buffer.alloc(32, 1).toString('base64'), enabled: true, createdAt: at, updatedAt: at });
    await dispatcher.emit({ type: 'DATA_SYNC', event: 'DATA_SYNC_COMPLETED', params: {} });
    await dispatcher.deliverDue();
    expect(calls).toEqual([]);
    const [d] = (await store.collection<WebhookDelivery>(DELIVERIES).list()).map((e) => e.value);
    expect(d.state).toBe('dead');
    expect(d.lastError).toMatch(/url refused: cloud metadata/);
  });
});
