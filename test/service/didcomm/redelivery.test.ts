// A wallet endpoint that answers 503/429 ("not now, send it again") does not lose the service's
// message: it is kept in the pickup queue and sent again after the wallet's Retry-After, by the
// agent's one retry scheduler: as the protocol step it is when it waits for an answer
// (router/steps), as a redelivery otherwise (redelivery.ts, docs/service.md "Outbound
// endpoints"). Time is the harness's ManualClock; the test runs what is due itself
// (agent.retryDue()) instead of waiting for the timer.
import { afterEach, describe, expect, it } from 'vitest';
import type { MemoryInboundHandler } from '../../../src/didcomm/transport/memory.js';
import { COLLECTIONS } from '../../../src/service/didcomm/collections.js';
import { CLIENT, memoryHarness, type MemoryHarness } from './harness.js';

const PING = 'https://didcomm.org/trust-ping/2.0/ping';

let m: MemoryHarness | undefined;
afterEach(async () => {
  await m?.close();
  m = undefined;
});

/** GET with an admin token of the harness's client, through the app (no socket). */
async function adminGet(h: MemoryHarness, url: string): Promise<{ status: number; json: unknown }> {
  const token = await h.service.app.inject({ method: 'POST', url: '/api/v1/auth/token', payload: { clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret } });
  const res = await h.service.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${(token.json() as { accessToken: string }).accessToken}` } });
  return { status: res.statusCode, json: res.json() };
}

/**
 * A linked wallet whose endpoint then answers like an HTTP 503 with Retry-After while `busy`
 * (the memory transport's `transport_retry_later`), and hands messages to the wallet otherwise.
 */
async function busyWallet(h: MemoryHarness, retryAfterSeconds?: number) {
  const ref = await h.user('u1');
  const wallet = h.holder({ name: 'busy' });
  await wallet.acceptDataPipe(await h.invitation(ref));
  const state = { busy: true, refused: 0, delivered: 0 };
  const handler: MemoryInboundHandler = async (packed, info) => {
    if (state.busy) {
      state.refused++;
      return { retryable: true, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) };
    }
    state.delivered++;
    return wallet.router.inbound(packed, info);
  };
  h.network.endpoint('memory://busy', handler);
  return { ref, wallet, state };
}

describe('retries after 503/429, one scheduler', () => {
  it('keeps a sync step the endpoint refused for now and retries it as that step, not before its Retry-After, once', async () => {
    m = await memoryHarness();
    const { ref, wallet, state } = await busyWallet(m, 30);
    const queued = m.agent.waitFor<{ reason: string; retryAfterSeconds: number; relationship: string; type: string }>('message-queued', (e) => e.type.endsWith('/request-presentation'));
    let redeliveries = 0;
    m.agent.events.on('redelivery-scheduled', () => redeliveries++);
    await m.service.deps.users.startSync(ref);
    expect(await queued).toMatchObject({ reason: expect.stringMatching(/retry later \(503\)/), retryAfterSeconds: 30, relationship: 'service-initiated' });
    await m.agent.idle();
    expect(state.refused).toBe(1);
    // One job, the step's: no second mechanism sends it too.
    expect(redeliveries).toBe(0);
    expect(m.agent.retries().byKind.step).toMatchObject({ scheduled: 1, due: 0, retrying: 0 });
    expect(m.agent.retries().byKind.redeliver).toMatchObject({ scheduled: 0, due: 0 });
    // The same counts on the admin API.
    const admin = await adminGet(m, '/admin/retries');
    expect(admin.status).toBe(200);
    expect(admin.json).toMatchObject({ scheduled: 1, due: 0, retrying: 0, abandoned: 0, byKind: { step: { scheduled: 1 }, redeliver: { scheduled: 0 } } });

    m.clock.advance(29_000);
    expect(await m.agent.retryDue()).toBe(0);
    expect(state.refused).toBe(1);

    m.clock.advance(1_000);
    expect(m.agent.retries()).toMatchObject({ due: 1, scheduled: 0 });
    state.busy = false;
    const completed = m.agent.waitFor('sync-completed');
    expect(await m.agent.retryDue()).toBe(1);
    await completed;
    expect(wallet.credentials).toHaveLength(1);
    // Delivered by the retry: its queued copy is gone.
    expect(await m.agent.queue.count(wallet.did.did)).toBe(0);
    expect(await m.store.collection(COLLECTIONS.redelivery).count()).toBe(0);
  });

  it('sends a message that waits for no answer (the Data Pipe close) again after the Retry-After, as a redelivery', async () => {
    m = await memoryHarness();
    const { ref, wallet, state } = await busyWallet(m, 30);
    const scheduled = m.agent.waitFor<{ dueAt: number; attempts: number }>('redelivery-scheduled');
    await m.agent.closeDataPipe(ref, 'test');
    expect(await scheduled).toMatchObject({ attempts: 1, dueAt: m.clock.now() + 30_000 });
    expect(m.agent.retries().byKind.redeliver).toMatchObject({ scheduled: 1 });
    expect(await m.agent.queue.count(wallet.did.did)).toBe(1);

    m.clock.advance(29_000);
    expect(await m.agent.retryDue()).toBe(0);
    expect(state.refused).toBe(1);

    m.clock.advance(1_000);
    state.busy = false;
    const delivered = m.agent.waitFor<{ redelivery?: boolean }>('message-delivered', (e) => e.redelivery === true);
    expect(await m.agent.retryDue()).toBe(1);
    await delivered;
    expect(state.delivered).toBe(1);
    expect(await m.agent.queue.count(wallet.did.did)).toBe(0);
    expect(await m.store.collection(COLLECTIONS.redelivery).count()).toBe(0);
    expect(m.agent.retries()).toMatchObject({ scheduled: 0, due: 0, retrying: 0 });
  });

  it('backs off while the endpoint stays busy and leaves the message for pickup after maxAttempts', async () => {
    m = await memoryHarness();
    const agent = await m.restart({ redelivery: { maxAttempts: 3 } });
    const { ref, wallet, state } = await busyWallet(m, 10);
    const first = agent.waitFor<{ dueAt: number }>('redelivery-scheduled');
    await agent.closeDataPipe(ref);
    expect((await first).dueAt).toBe(m.clock.now() + 10_000);

    m.clock.advance(10_000);
    const second = agent.waitFor<{ attempts: number; reason: string }>('redelivery-scheduled');
    expect(await agent.retryDue()).toBe(0);
    expect(await second).toMatchObject({ attempts: 2, reason: 'transport_retry_later' });

    m.clock.advance(10_000);
    const givenUp = agent.waitFor<{ attempts: number }>('redelivery-given-up');
    expect(await agent.retryDue()).toBe(0);
    expect((await givenUp).attempts).toBe(3);
    expect(state.refused).toBe(3);
    expect(agent.retries().byKind.redeliver).toMatchObject({ scheduled: 0, abandoned: 1 });
    m.clock.advance(3_600_000);
    expect(await agent.retryDue()).toBe(0);
    expect(state.refused).toBe(3);
    // Still waiting for pickup.
    expect(await agent.queue.count(wallet.did.did)).toBe(1);
  });

  it('does not send again what the wallet collected by pickup meanwhile', async () => {
    m = await memoryHarness();
    const { ref, wallet, state } = await busyWallet(m, 5);
    const scheduled = m.agent.waitFor('redelivery-scheduled');
    await m.agent.closeDataPipe(ref);
    await scheduled;
    state.busy = false;
    expect(await wallet.pickup()).toBe(1);
    await m.agent.idle();
    const deliveredBefore = state.delivered;
    m.clock.advance(5_000);
    expect(await m.agent.retryDue()).toBe(0);
    expect(state.delivered).toBe(deliveredBefore);
    expect(m.agent.retries()).toMatchObject({ scheduled: 0, due: 0 });
  });

  it('resumes stored schedules after a restart, still not before the peer\'s Retry-After', async () => {
    m = await memoryHarness();
    const { ref, state } = await busyWallet(m, 60);
    const scheduled = m.agent.waitFor('redelivery-scheduled');
    await m.agent.closeDataPipe(ref);
    await scheduled;
    const agent = await m.restart();
    await agent.idle();
    expect(await agent.retryDue()).toBe(0);
    expect(state.refused).toBe(1);
    m.clock.advance(60_000);
    state.busy = false;
    expect(await agent.retryDue()).toBe(1);
    expect(state.delivered).toBe(1);
  });

  it('drops, and does not schedule, an answer to a stranger whose endpoint answers 503', async () => {
    m = await memoryHarness();
    const stranger = m.holder({ name: 'stranger' });
    m.network.endpoint('memory://stranger', async () => ({ retryable: true, retryAfterSeconds: 5 }));
    const dropped = m.agent.waitFor<{ reason: string }>('message-dropped');
    let scheduled = 0;
    m.agent.events.on('redelivery-scheduled', () => scheduled++);
    await stranger.router.send({ type: PING, to: [m.service.deps.serviceDid], from: stranger.from(), body: { response_requested: true } });
    expect((await dropped).reason).toMatch(/no relationship with the recipient \(endpoint asked to retry later \(503\)\)/);
    await m.agent.idle();
    expect(scheduled).toBe(0);
    expect(await m.agent.queue.count(stranger.did.did)).toBe(0);
  });
});
