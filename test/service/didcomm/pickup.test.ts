// Wallets without an inbound endpoint: the service queues durably and the wallet collects with
// Message Pickup 3.0 (request/response with return_route "all", or live mode); a restart of the
// agent mid-flow loses nothing; syncs requested meanwhile coalesce.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listSyncOperations } from '../../../src/service/didcomm-seam.js';
import { messageLog } from '../../../src/store/messages.js';
import { memoryHarness, type MemoryHarness } from './harness.js';
import type { Holder } from './holder.js';

let h: MemoryHarness;
beforeEach(async () => {
  h = await memoryHarness();
});
afterEach(async () => {
  await h.close();
});

async function offlineLinked(userId = 'u1') {
  const ref = await h.user(userId);
  const holder = h.holder({ offline: true });
  // The request asks for return_route "all": `established` comes back on the same connection.
  await holder.acceptDataPipe(await h.invitation(ref));
  return { ref, holder };
}

/** Pickup rounds until `until` settles (each round delivers what is queued now). */
async function collect(holder: Holder, until: Promise<unknown>, rounds = 6): Promise<number> {
  let settled = false;
  void until.then(() => (settled = true));
  let total = 0;
  for (let i = 0; i < rounds && !settled; i++) {
    total += await holder.pickup();
    await h.agent.idle();
  }
  await until;
  return total;
}

describe('message pickup', () => {
  it('queues a sync for an offline wallet and completes it through pickups', async () => {
    const { ref, holder } = await offlineLinked();
    const queued = h.agent.waitFor<{ type: string }>('message-queued');
    const done = h.agent.waitFor('sync-completed');
    await h.service.deps.users.startSync(ref);
    expect(await queued).toMatchObject({ type: 'https://didcomm.org/present-proof/3.0/request-presentation' });
    await h.agent.idle();
    expect(await h.agent.queue.count(holder.did.did)).toBe(1);

    const delivered = await collect(holder, done);
    expect(delivered).toBe(2); // request-presentation, then offer-credential (the rest came back return-routed)
    expect(holder.credentials).toHaveLength(1);
    expect(await h.agent.queue.count(holder.did.did)).toBe(0);
    expect((await h.service.deps.users.require(ref)).isLinked).toBe(true);
    const out = await messageLog(h.store, h.clock).list({ direction: 'out' });
    expect(out.filter((r) => r.result === 'queued').map((r) => r.type.split('/').pop())).toEqual(['request-presentation', 'offer-credential']);
  });

  it('answers a status request with the queue size, and delivers only the sender\'s own messages', async () => {
    const a = await offlineLinked('u1');
    const b = await offlineLinked('u2');
    await h.service.deps.users.startSync(a.ref);
    await h.agent.idle();
    const status = new Promise<{ messageCount: number }>((resolve) => b.holder.events.once('pickup-status', resolve));
    expect(await b.holder.pickup()).toBe(0);
    expect((await status).messageCount).toBe(0);
    expect(await h.agent.queue.count(a.holder.did.did)).toBe(1);
  });

  it('in live mode pushes new messages on the socket; what was queued before is still collected by delivery-request', async () => {
    const { ref, holder } = await offlineLinked();
    const done = h.agent.waitFor('sync-completed');
    await h.service.deps.users.startSync(ref);
    await h.agent.idle();
    expect(await h.agent.queue.count(holder.did.did)).toBe(1);
    const status = new Promise<{ liveDelivery?: boolean }>((resolve) => holder.events.once('pickup-status', resolve));
    await holder.goLive();
    expect(await status).toMatchObject({ messageCount: 1, liveDelivery: true });
    await h.agent.idle();
    expect(await h.agent.queue.count(holder.did.did)).toBe(1);
    const pushed = h.agent.waitFor<{ type: string; via: string }>('message-delivered', (e) => e.via === 'live');
    // The queued request-presentation by pickup; the offer that follows comes pushed.
    expect(await holder.pickup()).toBe(1);
    expect(await pushed).toMatchObject({ type: 'https://didcomm.org/issue-credential/3.0/offer-credential' });
    await done;
    expect(holder.credentials).toHaveLength(1);
    await h.agent.idle();
    expect(await h.agent.queue.count(holder.did.did)).toBe(0);
  });

  it('continues after a restart of the agent: queue, sync operation and thread survive', async () => {
    const { ref, holder } = await offlineLinked();
    const { operationId } = await h.service.deps.users.startSync(ref);
    await h.agent.idle();
    await h.restart();
    expect(await h.agent.queue.count(holder.did.did)).toBe(1);
    const done = h.agent.waitFor('sync-completed');
    await collect(holder, done);
    expect((await listSyncOperations(h.store, ref)).map((o) => [o.id, o.status])).toEqual([[operationId, 'completed']]);
  });

  it('coalesces syncs requested while one runs: one follow-up, started when the first ends', async () => {
    const { ref, holder } = await offlineLinked();
    const first = await h.agent.requestSync(ref, 'manual');
    expect((await h.agent.requestSync(ref, 'manual')).operationId).toBe(first.operationId);
    await h.agent.idle();
    await holder.pickup(); // presentation → ack; the offer is queued: the first sync is issuing now
    await h.agent.idle();
    const second = await h.agent.requestSync(ref, 'datapoints-updated');
    expect(second.operationId).not.toBe(first.operationId);
    expect((await h.agent.requestSync(ref, 'manual')).operationId).toBe(second.operationId);
    const both = h.agent.waitFor('sync-completed', (e: { operationId: string }) => e.operationId === second.operationId);
    await collect(holder, both, 10);
    const ops = await listSyncOperations(h.store, ref);
    expect(ops.map((o) => o.status)).toEqual(['completed', 'completed']);
    expect(holder.credentials[1].replacementId).toBe(holder.credentials[0].id);
  });

  it('queues for a wallet whose endpoint is unreachable', async () => {
    const ref = await h.user('u1');
    const holder = h.holder({ name: 'flaky' });
    await holder.acceptDataPipe(await h.invitation(ref));
    h.network.endpoint('memory://flaky', async () => undefined).close(); // the wallet goes away
    const queued = h.agent.waitFor<{ reason: string }>('message-queued');
    await h.service.deps.users.startSync(ref);
    expect((await queued).reason).toMatch(/^unreachable/);
    expect(await h.agent.queue.count(holder.did.did)).toBe(1);
  });

  it('fails a sync the wallet never answers once the next request comes after the timeout, and takes back its queued request', async () => {
    const { ref, holder } = await offlineLinked();
    const first = await h.agent.requestSync(ref, 'manual');
    await h.agent.idle();
    const [stale] = await h.agent.queue.list(holder.did.did);
    expect(stale.type).toMatch(/\/request-presentation$/);
    h.clock.advance(24 * 3600 * 1000);
    const failed = h.agent.waitFor('sync-failed');
    const second = await h.agent.requestSync(ref, 'manual');
    expect(second.operationId).not.toBe(first.operationId);
    expect(await failed).toMatchObject({ operationId: first.operationId, reason: 'timeout' });
    await h.agent.idle();
    const ops = await listSyncOperations(h.store, ref);
    expect(ops.map((o) => o.status)).toEqual(['failed', 'started']);
    // Only the new sync's request waits for the wallet; the timed-out one's was removed.
    const queued = await h.agent.queue.list(holder.did.did);
    expect(queued.map((q) => q.thid)).toEqual([(ops[1] as { authThid?: string }).authThid]);
    expect(queued.map((q) => q.id)).not.toContain(stale.id);

    // The wallet collects and completes the new sync only.
    const done = h.agent.waitFor('sync-completed');
    await collect(holder, done);
    expect(holder.credentials).toHaveLength(1);
    expect((await listSyncOperations(h.store, ref)).map((o) => o.status)).toEqual(['failed', 'completed']);
  });

  it('takes back the queued offer of a sync that failed', async () => {
    const { ref, holder } = await offlineLinked();
    await h.agent.requestSync(ref, 'manual');
    await h.agent.idle();
    await holder.pickup(); // presentation → ack; the offer is queued now
    await h.agent.idle();
    const [offer] = await h.agent.queue.list(holder.did.did);
    expect(offer.type).toMatch(/\/offer-credential$/);
    // A problem report on the issue thread (before the wallet collected the offer) fails the sync.
    const op = (await listSyncOperations(h.store, ref))[0] as { issueThid?: string; id: string };
    const withdrawn = h.agent.waitFor('sync-withdrawn');
    const failed = h.agent.waitFor('sync-failed');
    await holder.send({ type: 'https://didcomm.org/report-problem/2.0/problem-report', pthid: op.issueThid, body: { code: 'e.p.msg.credential-invalid', comment: 'test' } });
    expect(await failed).toMatchObject({ operationId: op.id });
    expect(await withdrawn).toMatchObject({ operationId: op.id, removed: 1 });
    expect(await h.agent.queue.count(holder.did.did)).toBe(0);
  });
});
