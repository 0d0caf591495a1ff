// Durable steps (docs/protocols.md "Durable steps", docs/service.md "Limits"): a sync whose wallet
// never answers ends FAILED with its webhook within the retry deadline (not 24 h later), a new
// request supersedes a stuck sync at once, and the webhooks of one user arrive in sequence order
// with their own event times. The testbed drops every request-presentation on its way, so the
// wallet never hears of the sync.
import { afterEach, describe, expect, it } from 'vitest';
import { connectUser, startTestbed, waitForWebhook, type Testbed } from '../../../src/testing/index.js';

let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const ADA = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' };
const lost = { seed: 1, rules: [{ fault: 'drop' as const, direction: 'to-wallet' as const, type: 'present-proof/3.0/request-presentation' }] };

describe('durable steps on the service side', () => {
  it('fails an unanswerable sync (unanswered) with DATA_SYNC_FAILED once the retry deadline passes', async () => {
    bed = await startTestbed({ faults: lost, retry: { baseDelayMs: 20, maxDelayMs: 60, deadlineMs: 400 } });
    const [wallet] = bed.wallets;
    await connectUser(bed, 'ada', wallet!);
    const failed = bed.service.agent.waitFor<{ reason: string; operationId: string }>('sync-failed');
    const { syncOperationId } = await bed.service.client.putDatapoints('ada', ADA);
    expect(await failed).toMatchObject({ reason: 'unanswered', operationId: syncOperationId });
    const hook = await waitForWebhook(bed.webhooks, { event: 'DATA_SYNC_FAILED', params: { dataSyncOperationId: syncOperationId } });
    expect(hook.event.params.userId).toBe('ada');
    // Sent more than once before giving up: the request was retried.
    expect(bed.faults!.applied.filter((f) => f.fault === 'drop').length).toBeGreaterThan(1);
  });

  it('lets a new request supersede a stuck sync, which fails at once; one user\'s webhooks come numbered, in order', async () => {
    bed = await startTestbed({ faults: lost, service: { agent: { syncStallMs: 0 } } });
    const [wallet] = bed.wallets;
    await connectUser(bed, 'ada', wallet!);
    const started = bed.service.agent.waitFor<{ operationId: string }>('sync-started');
    const first = await bed.service.client.putDatapoints('ada', ADA);
    expect((await started).operationId).toBe(first.syncOperationId);
    const failed = bed.service.agent.waitFor<{ reason: string; operationId: string }>('sync-failed');
    const second = await bed.service.agent.requestSync({ tenantId: bed.service.tenantId, userId: 'ada' }, 'manual');
    expect(second.operationId).not.toBe(first.syncOperationId);
    expect(await failed).toMatchObject({ reason: 'superseded', operationId: first.syncOperationId });
    await waitForWebhook(bed.webhooks, { event: 'DATA_SYNC_FAILED', params: { dataSyncOperationId: first.syncOperationId } });
    await waitForWebhook(bed.webhooks, { event: 'DATA_SYNC_STARTED', params: { dataSyncOperationId: second.operationId } });
    const ada = bed.webhooks.received
      .map((w) => JSON.parse(w.body) as { subject: string; sequence: number; occurredAt: string; event: string })
      .filter((b) => b.subject === 'user:ada');
    // Delivered in the order of their sequence numbers (1, 2, 3, … with no gap here), times not going back.
    expect(ada.map((b) => b.sequence)).toEqual(ada.map((_, i) => i + 1));
    for (let i = 1; i < ada.length; i++) expect(Date.parse(ada[i]!.occurredAt)).toBeGreaterThanOrEqual(Date.parse(ada[i - 1]!.occurredAt));
    expect(ada.map((b) => b.event)).toEqual(expect.arrayContaining(['DATA_PIPE_INITIATED', 'DATA_PIPE_ESTABLISHED', 'DATA_SYNC_STARTED', 'DATA_SYNC_FAILED']));
  });
});
