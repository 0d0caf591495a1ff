import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds, systemClock } from '../../../src/clock.js';
import { openStore, type Store } from '../../../src/store/store.js';
import { backoffDelay } from '../../../src/service/webhooks/backoff.js';
import { createWebhookDispatcher, type WebhookDelivery } from '../../../src/service/webhooks/dispatcher.js';
import { credentialIssuanceEvent, dataPipeStatusUpdate, dataSyncEvent } from '../../../src/service/webhooks/events.js';
import { startReceiver } from './receiver.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function setup(script: number[] = [], opts: { store?: Store; clock?: ManualClock } = {}) {
  const store = opts.store ?? (await openStore());
  if (!opts.store) cleanup.push(() => store.close());
  const clock = opts.clock ?? new ManualClock(Date.now());
  const receiver = await startReceiver(script);
  cleanup.push(() => receiver.close());
  const dispatcher = createWebhookDispatcher({
    store,
    clock,
    ids: sequentialIds('evt'),
    backoff: { baseMs: 1_000, maxMs: 8_000, maxAttempts: 4 },
    random: () => 0.5,
  });
  cleanup.push(() => dispatcher.stop());
  return { store, clock, receiver, dispatcher };
}

describe('webhook dispatcher', () => {
  it('delivers the vendor envelope signed with Standard Webhooks headers', async () => {
    const { clock, receiver, dispatcher } = await setup();
    const sub = await dispatcher.subscribe({ url: receiver.url });
    const id = await dispatcher.emit(dataPipeStatusUpdate('DATA_PIPE_ESTABLISHED', { thid: 't-1', userId: 'u-1' }));
    expect(await dispatcher.deliverDue()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0];
    expect(got.headers['webhook-id']).toBe(id);
    expect(got.headers['content-type']).toBe('application/json');
    const payload = new Webhook(sub.secret).verify(got.body, got.headers as Record<string, string>);
    expect(payload).toEqual({
      type: 'SSI_AGENT',
      action: 'DATA_PIPE_STATUS_UPDATE',
      event: 'DATA_PIPE_ESTABLISHED',
      params: { thid: 't-1', userId: 'u-1' },
      // Ordering members: the event's own time (not the attempt's), its subject and number in it.
      occurredAt: new Date(clock.now()).toISOString(),
      subject: 'user:u-1',
      sequence: 1,
    });
    const [d] = await dispatcher.attempts(id);
    expect(d.state).toBe('delivered');
    expect(d.attempts).toHaveLength(1);
    expect(await dispatcher.deliverDue()).toBe(0);
  });

  it('writes the delivery to the store before emit resolves', async () => {
    const { store, receiver, dispatcher } = await setup();
    await dispatcher.subscribe({ url: receiver.url });
    const id = await dispatcher.emit(dataSyncEvent('DATA_SYNC_STARTED', { cptyDID: 'did:x', dataSyncOperationId: 'op' }));
    const stored = await store.collection<WebhookDelivery>('webhook-deliveries').list({ prefix: `${id}:` });
    expect(stored.map((e) => e.value.state)).toEqual(['pending']);
    expect(receiver.received).toHaveLength(0);
  });

  it('retries with back-off under the same webhook-id, then delivers', async () => {
    const { clock, receiver, dispatcher } = await setup([500, 503]);
    const sub = await dispatcher.subscribe({ url: receiver.url });
    const id = await dispatcher.emit(credentialIssuanceEvent('CREDENTIAL_ISSUANCE_COMPLETED', { didcommThreadId: 'th', userAccountId: 'u' }));
    const retries: WebhookDelivery[] = [];
    dispatcher.on('retry', (d) => retries.push(d));
    expect(await dispatcher.deliverDue()).toBe(1);
    // random 0.5 with equal jitter: 1000 → 750 ms, then 2000 → 1500 ms.
    expect(backoffDelay(1, { baseMs: 1_000, maxMs: 8_000, maxAttempts: 4 }, () => 0.5)).toBe(750);
    clock.advance(749);
    expect(await dispatcher.deliverDue()).toBe(0);
    clock.advance(1);
    expect(await dispatcher.deliverDue()).toBe(1);
    clock.advance(1_499);
    expect(await dispatcher.deliverDue()).toBe(0);
    clock.advance(1);
    expect(await dispatcher.deliverDue()).toBe(1);
    expect(receiver.received.map((r) => r.status)).toEqual([500, 503, 200]);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([id]));
    // Each attempt is signed afresh with its own timestamp and still verifies.
    for (const r of receiver.received) expect(() => new Webhook(sub.secret).verify(r.body, r.headers as Record<string, string>)).not.toThrow();
    expect(retries).toHaveLength(2);
    const [d] = await dispatcher.attempts(id);
    expect(d.state).toBe('delivered');
    expect(d.attempts.map((a) => a.status)).toEqual([500, 503, 200]);
  });

  it('numbers each subject\'s events and delivers them in order: a later one waits for an earlier one\'s retries', async () => {
    // The first attempt fails (500); the user's second event must not overtake it.
    const { clock, receiver, dispatcher } = await setup([500]);
    await dispatcher.subscribe({ url: receiver.url });
    const first = await dispatcher.emit(dataSyncEvent('DATA_SYNC_STARTED', { cptyDID: 'did:x', dataSyncOperationId: 'op', userId: 'ada' }));
    clock.advance(10);
    const second = await dispatcher.emit(dataSyncEvent('DATA_SYNC_COMPLETED', { cptyDID: 'did:x', dataSyncOperationId: 'op', userId: 'ada' }));
    // Another user's event is not held up by ada's.
    const other = await dispatcher.emit(dataSyncEvent('DATA_SYNC_STARTED', { cptyDID: 'did:y', dataSyncOperationId: 'op2', userId: 'bob' }));
    await dispatcher.deliverDue();
    clock.advance(750);
    await dispatcher.deliverDue();
    // The second waits; once the first is delivered it goes next.
    clock.advance(10);
    await dispatcher.deliverDue();
    const delivered = receiver.received.filter((r) => r.status === 200).map((r) => r.headers['webhook-id']);
    expect(delivered.indexOf(first)).toBeLessThan(delivered.indexOf(second));
    expect(delivered).toContain(other);
    const bodies = receiver.received.filter((r) => r.status === 200).map((r) => JSON.parse(r.body) as { subject: string; sequence: number; occurredAt: string; event: string });
    const ada = bodies.filter((b) => b.subject === 'user:ada');
    expect(ada.map((b) => [b.event, b.sequence])).toEqual([['DATA_SYNC_STARTED', 1], ['DATA_SYNC_COMPLETED', 2]]);
    expect(Date.parse(ada[1]!.occurredAt) - Date.parse(ada[0]!.occurredAt)).toBe(10);
    expect(bodies.find((b) => b.subject === 'user:bob')?.sequence).toBe(1);
  });

  it('sends a subject\'s held-back events as soon as the one they waited for is delivered, not a recheck at a time', async () => {
    // Real time, as the service runs it: the first POST fails (503), its retry comes after ~150 ms,
    // and the 49 events behind it go right after; the held-back ones do not keep the slots busy.
    const store = await openStore();
    cleanup.push(() => store.close());
    const receiver = await startReceiver([503]);
    cleanup.push(() => receiver.close());
    const dispatcher = createWebhookDispatcher({ store, clock: systemClock, ids: sequentialIds('evt'), backoff: { baseMs: 200, maxMs: 200, maxAttempts: 4 }, random: () => 0.5, pollMs: 1_000 });
    cleanup.push(() => dispatcher.stop());
    await dispatcher.subscribe({ url: receiver.url });
    for (let i = 0; i < 50; i++) await dispatcher.emit(dataPipeStatusUpdate('DATA_PIPE_INITIATED', { thid: `t-${i}`, userId: 'ada' }));
    const started = Date.now();
    const all = new Promise<void>((resolve) => {
      let n = 0;
      dispatcher.on('delivered', () => {
        if (++n === 50) resolve();
      });
    });
    dispatcher.start();
    await all;
    // One event a poll (1 s) would take 50 s; a recheck every few seconds, minutes.
    expect(Date.now() - started).toBeLessThan(10_000);
    const seq = receiver.received.filter((r) => r.status === 200).map((r) => (JSON.parse(r.body) as { sequence: number }).sequence);
    expect(seq).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  }, 30_000);

  it("lists one subject's events of one tenant in sequence order, subscribers or not", async () => {
    const { clock, dispatcher } = await setup();
    const ada = (event: 'DATA_SYNC_STARTED' | 'DATA_SYNC_COMPLETED', tenantId = 't1') =>
      dispatcher.emit({ ...dataSyncEvent(event, { cptyDID: 'did:x', dataSyncOperationId: 'op', userId: 'ada' }), tenantId });
    const first = await ada('DATA_SYNC_STARTED');
    clock.advance(5);
    const second = await ada('DATA_SYNC_COMPLETED');
    await ada('DATA_SYNC_STARTED', 't2');
    await dispatcher.emit({ ...dataSyncEvent('DATA_SYNC_STARTED', { cptyDID: 'did:y', dataSyncOperationId: 'op2', userId: 'bob' }), tenantId: 't1' });
    const listed = await dispatcher.subjectEvents('t1', 'user:ada');
    expect(listed.map((e) => [e.id, e.envelope.event, e.envelope.sequence])).toEqual([[first, 'DATA_SYNC_STARTED', 1], [second, 'DATA_SYNC_COMPLETED', 2]]);
    expect(await dispatcher.subjectEvents('t1', 'user:nobody')).toEqual([]);
  });

  it('dead-letters after maxAttempts and can redeliver', async () => {
    const { clock, receiver, dispatcher } = await setup([500, 500, 500, 500]);
    await dispatcher.subscribe({ url: receiver.url });
    const dead = new Promise<WebhookDelivery>((resolve) => dispatcher.on('dead', resolve));
    const id = await dispatcher.emit(dataSyncEvent('DATA_SYNC_FAILED', { cptyDID: 'did:x', dataSyncOperationId: 'op' }));
    for (let i = 0; i < 6; i++) {
      await dispatcher.deliverDue();
      clock.advance(10_000);
    }
    const d = await dead;
    expect(d.state).toBe('dead');
    expect(d.attempts).toHaveLength(4);
    expect(d.lastError).toBe('HTTP 500');
    expect(receiver.received).toHaveLength(4);
    expect(await dispatcher.deliveries({ state: 'dead' })).toHaveLength(1);
    await dispatcher.redeliver(d.id);
    expect(await dispatcher.deliverDue()).toBe(1);
    expect((await dispatcher.attempts(id))[0].state).toBe('delivered');
  });

  it('treats a network error as a failure to retry', async () => {
    const { dispatcher } = await setup();
    await dispatcher.subscribe({ url: 'http://127.0.0.1:1/unreachable' });
    const id = await dispatcher.emit(dataSyncEvent('DATA_SYNC_STARTED', { cptyDID: 'd', dataSyncOperationId: 'o' }));
    await dispatcher.deliverDue();
    const [d] = await dispatcher.attempts(id);
    expect(d.state).toBe('pending');
    expect(d.attempts[0].error).toBeTruthy();
    expect(d.attempts[0].status).toBeUndefined();
  });

  it('resumes pending deliveries after a restart on the same store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idsync-wh-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const clock = new ManualClock(Date.now());
    let store = await openStore({ path: dir });
    const first = await setup([500], { store, clock });
    await first.dispatcher.subscribe({ url: first.receiver.url });
    const id = await first.dispatcher.emit(dataSyncEvent('DATA_SYNC_COMPLETED', { cptyDID: 'd', dataSyncOperationId: 'o' }));
    await first.dispatcher.deliverDue(); // 500: rescheduled
    await first.dispatcher.stop();
    await store.close();

    store = await openStore({ path: dir });
    cleanup.push(() => store.close());
    const second = createWebhookDispatcher({ store, clock, ids: sequentialIds('x') });
    clock.advance(60_000);
    expect(await second.deliverDue()).toBe(1);
    expect(first.receiver.received.map((r) => r.headers['webhook-id'])).toEqual([id, id]);
    expect((await second.attempts(id))[0].state).toBe('delivered');
  });

  it('filters by event name or type, skips disabled subscriptions and other tenants', async () => {
    const { receiver, dispatcher } = await setup();
    const onlySync = await dispatcher.subscribe({ url: receiver.url, events: ['DATA_SYNC'] });
    const onlyCompleted = await dispatcher.subscribe({ url: receiver.url, events: ['DATA_SYNC_COMPLETED'] });
    const disabled = await dispatcher.subscribe({ url: receiver.url, enabled: false });
    const tenantB = await dispatcher.subscribe({ url: receiver.url, tenantId: 'b' });
    const e1 = await dispatcher.emit({ tenantId: 'a', ...dataSyncEvent('DATA_SYNC_STARTED', { cptyDID: 'd', dataSyncOperationId: 'o' }) });
    const e2 = await dispatcher.emit({ tenantId: 'b', ...dataSyncEvent('DATA_SYNC_COMPLETED', { cptyDID: 'd', dataSyncOperationId: 'o' }) });
    const subsOf = async (id: string) => (await dispatcher.attempts(id)).map((d) => d.subscriptionId).sort();
    expect(await subsOf(e1)).toEqual([onlySync.id]);
    expect(await subsOf(e2)).toEqual([onlySync.id, onlyCompleted.id, tenantB.id].sort());
    expect(await subsOf(e2)).not.toContain(disabled.id);
  });

  it('rejects a subscription with a bad url or secret', async () => {
    const { dispatcher } = await setup();
    await expect(dispatcher.subscribe({ url: 'ftp://x' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(dispatcher.subscribe({ url: 'http://x', secret: 'plain' })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await dispatcher.unsubscribe('nope')).toBe(false);
  });

  it('start() delivers without being asked and stop() ends the loop', async () => {
    const { receiver, dispatcher } = await setup();
    await dispatcher.subscribe({ url: receiver.url });
    dispatcher.start();
    const next = receiver.next();
    const delivered = new Promise<WebhookDelivery>((resolve) => dispatcher.on('delivered', resolve));
    const id = await dispatcher.emit(dataSyncEvent('DATA_SYNC_STARTED', { cptyDID: 'd', dataSyncOperationId: 'o' }));
    expect((await next).headers['webhook-id']).toBe(id);
    expect((await delivered).eventId).toBe(id);
    await dispatcher.stop();
  });
});

describe('webhook dispatcher and a subscriber that never answers', () => {
  it("does not hold other subscribers' deliveries behind the broken one's attempts", async () => {
    const store = await openStore();
    cleanup.push(() => store.close());
    const healthy = await startReceiver();
    cleanup.push(() => healthy.close());
    // Takes the request and never answers: each attempt lasts the whole timeout.
    const { createServer } = await import('node:http');
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    cleanup.push(() => {
      silent.closeAllConnections();
      return new Promise<void>((r) => silent.close(() => r()));
    });
    const dispatcher = createWebhookDispatcher({ store, clock: new ManualClock(Date.now()), ids: sequentialIds('hol'), timeoutMs: 3_000, random: () => 0.5 });
    cleanup.push(() => dispatcher.stop());
    await dispatcher.subscribe({ url: `http://127.0.0.1:${(silent.address() as { port: number }).port}/never` });
    await dispatcher.subscribe({ url: healthy.url });
    // Sixteen users: sixteen subjects, each delivered to both subscriptions.
    for (let i = 1; i <= 16; i++) await dispatcher.emit(dataPipeStatusUpdate('DATA_PIPE_ESTABLISHED', { thid: `t-${i}`, userId: `u-${i}` }));
    const started = Date.now();
    dispatcher.start();
    while (healthy.received.length < 16 && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 20));
    expect(healthy.received).toHaveLength(16);
    // In chunks of eight, each waiting for its slowest attempt, this took a timeout per chunk.
    expect(Date.now() - started).toBeLessThan(2_500);
  }, 30_000);
});
