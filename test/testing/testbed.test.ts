import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import {
  connectUser, nextOutboxEntry, startTestbed, syncDatapoints, waitForCredential, waitForSyncContext, waitForWebhook, waitForWorkflowStatus,
  type Testbed,
} from '../../src/testing/index.js';

const ADA = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' };

let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe('startTestbed', () => {
  it('syncs ten wallets concurrently in one process', async () => {
    bed = await startTestbed({ wallets: 10 });
    const b = bed;
    const results = await Promise.all(
      b.wallets.map(async (wallet, i) => {
        const userId = `user-${i}`;
        const connected = await connectUser(b, userId, wallet);
        const synced = await syncDatapoints(b, userId, wallet, { ...ADA, firstName: `Ada ${i}` });
        return { wallet, connected, synced };
      }),
    );
    for (const [i, r] of results.entries()) {
      expect(r.connected.userDID).toBe(r.wallet.did);
      expect(r.synced.credential.claims.firstName).toBe(`Ada ${i}`);
      expect(r.synced.credential.subject).toBe(r.wallet.did);
      expect(r.synced.syncContext).toMatchObject({ isSessionEstablished: true, isLinked: true });
    }
    // One signed DATA_SYNC_COMPLETED per wallet, none with a bad signature.
    const completed = await Promise.all(b.wallets.map((w) => waitForWebhook(b.webhooks, { event: 'DATA_SYNC_COMPLETED', params: { cptyDID: w.did } })));
    expect(new Set(completed.map((w) => w.id)).size).toBe(10);
    expect(b.webhooks.rejected).toEqual([]);
    expect(b.errors).toEqual([]);
  });

  it('runs over real sockets on 127.0.0.1 with the http transport', async () => {
    bed = await startTestbed({ transport: 'http' });
    const [wallet] = bed.wallets;
    expect(bed.service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(bed.service.did).toBe(`did:web:127.0.0.1%3A${new URL(bed.service.url).port}`);
    expect(wallet.endpoints?.http).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/didcomm$/);

    await connectUser(bed, 'alice', wallet);
    const { credential } = await syncDatapoints(bed, 'alice', wallet, ADA);
    expect(credential).toMatchObject({ verified: true, status: 'valid', issuer: bed.service.did });
    const established = await waitForWebhook(bed.webhooks, { event: 'DATA_PIPE_ESTABLISHED', params: { userId: 'alice' } });
    expect(established.verified).toBe(true);
  });

  it('lets pickup-mode wallets (no endpoint) collect what the service queued', async () => {
    bed = await startTestbed({ walletMode: 'pickup' });
    const [wallet] = bed.wallets;
    expect(wallet.identity.endpoint).toBeUndefined();
    const queued = bed.service.agent.waitFor<{ to: string }>('message-queued', (e) => e.to === wallet.shortDid);

    await connectUser(bed, 'bob', wallet);
    const { credential } = await syncDatapoints(bed, 'bob', wallet, ADA);
    await queued;
    expect(credential.claims.lastName).toBe('Lovelace');
    expect(bed.errors).toEqual([]);
  });

  it('lets live-mode wallets receive on a WebSocket', async () => {
    bed = await startTestbed({ transport: 'http', walletMode: 'live' });
    const [wallet] = bed.wallets;
    const pushed = bed.service.agent.waitFor<{ to: string; via: string }>('message-delivered', (e) => e.to === wallet.shortDid && e.via === 'live');

    await connectUser(bed, 'carol', wallet);
    const { credential } = await syncDatapoints(bed, 'carol', wallet, ADA);
    await pushed;
    expect(credential.verified).toBe(true);
  });

  it('refuses live mode without sockets', async () => {
    await expect(startTestbed({ walletMode: 'live' })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('keeps temp storage in LevelDB folders that close() removes', async () => {
    bed = await startTestbed({ storage: 'temp', wallets: 2 });
    const folders = [bed.service.deps.store.location, ...bed.wallets.map((w) => w.options.store.location)];
    for (const f of folders) expect(f && existsSync(f)).toBe(true);
    await connectUser(bed, 'dan', bed.wallets[1]);
    await bed.close();
    bed = undefined;
    for (const f of folders) expect(existsSync(f!)).toBe(false);
  });

  it('issues VC-JWT credentials when the project is configured for jwt, and replaces them on the next sync', async () => {
    bed = await startTestbed({ service: { format: 'jwt' } });
    const [wallet] = bed.wallets;
    await connectUser(bed, 'erin', wallet);
    const first = await syncDatapoints(bed, 'erin', wallet, ADA);
    expect(first.credential.format).toBe('jwt');
    expect(typeof first.credential.raw).toBe('string');

    const second = await syncDatapoints(bed, 'erin', wallet, { lastName: 'King' });
    expect(second.credential.replaces).toBe(first.credential.id);
    expect(second.syncContext.syncContext.datapointsSynced).toMatchObject({ lastName: 'King' });
    const old = await waitForCredential(wallet, (c) => c.id === first.credential.id && c.status === 'replaced');
    expect(old.replacedBy).toBe(second.credential.id);
  });

  it('runs on an injected clock', async () => {
    const clock = new ManualClock(Date.UTC(2030, 0, 1));
    bed = await startTestbed({ clock });
    const [wallet] = bed.wallets;
    await connectUser(bed, 'fay', wallet);
    const { credential } = await syncDatapoints(bed, 'fay', wallet, ADA);
    expect(credential.receivedAt).toBe('2030-01-01T00:00:00.000Z');
    // Webhook signatures carry the injected time and verify against it.
    await waitForWebhook(bed.webhooks, { event: 'DATA_SYNC_COMPLETED' });
  });
});

describe('waiting helpers', () => {
  it('name what they awaited and the last state seen when they time out', async () => {
    bed = await startTestbed();
    const { client } = bed.service;
    await client.putUser('gil');

    const ctx = waitForSyncContext(client, 'gil', (c) => c.isLinked, { timeoutMs: 150 });
    await expect(ctx).rejects.toMatchObject({ code: 'wait_timeout' });
    await expect(ctx).rejects.toThrow(/sync context of gil.*last seen: \{isSyncOn: true, isSessionEstablished: false, isLinked: false/);

    await expect(waitForSyncContext(client, 'nobody', () => true, { timeoutMs: 150 })).rejects.toThrow(/last seen: error user_not_found/);
    await expect(waitForCredential(bed.wallets[0], () => true, { timeoutMs: 150 })).rejects.toThrow(/a credential in the wallet.*last seen: 0 credential\(s\), 0 refused/);
    await expect(waitForWebhook(bed.webhooks, { event: 'DATA_SYNC_COMPLETED' }, { timeoutMs: 150 })).rejects.toThrow(/webhook DATA_SYNC_COMPLETED.*last: DATA_PIPE_INITIATED|webhook DATA_SYNC_COMPLETED.*received/);
  });

  it('stop at once when an issuance workflow ends otherwise than awaited', async () => {
    bed = await startTestbed({ policy: 'manual' });
    const { client } = bed.service;
    const [wallet] = bed.wallets;
    const workflow = await client.createWorkflow({ datapoints: ADA });
    await client.sendInvitation(workflow.id, [{ channel: 'EMAIL', target: 'ada@example.com' }]);
    await wallet.acceptInvitation((await nextOutboxEntry(bed.service, { to: 'ada@example.com' })).invitationUrl);
    const offer = await wallet.waitForPending({ kind: 'credential-offer' });
    await wallet.decline(offer.id);

    await expect(waitForWorkflowStatus(client, workflow.id, 'COMPLETED')).rejects.toMatchObject({ code: 'workflow_ended' });
    const failed = await waitForWorkflowStatus(client, workflow.id, 'FAILED');
    expect(failed.failure?.code).toBe('offer_declined');
  });

  it('hand out each outbox entry once, oldest first, from the service or over REST', async () => {
    bed = await startTestbed();
    const { client } = bed.service;
    const workflow = await client.createWorkflow({ datapoints: ADA });
    // Waiting first: the entry that arrives later resolves it.
    const next = nextOutboxEntry(bed.service, { to: 'x@example.com' });
    await client.sendInvitation(workflow.id, [{ channel: 'EMAIL', target: 'x@example.com' }, { channel: 'SMS', target: '+15550100' }]);
    await client.sendInvitation(workflow.id, [{ channel: 'EMAIL', target: 'X@example.com' }]);
    const first = await next;
    const second = await nextOutboxEntry(bed.service, { to: 'x@example.com' });
    expect(second.id).not.toBe(first.id);
    expect(first.invitationUrl).toBe(workflow.invitationUrl);
    const sms = await nextOutboxEntry({ client }, { channel: 'SMS' });
    expect(sms).toMatchObject({ to: '+15550100', workflowId: workflow.id });
    await expect(nextOutboxEntry(bed.service, { to: 'x@example.com' }, { timeoutMs: 100 })).rejects.toMatchObject({ code: 'wait_timeout' });
  });
});

describe('the webhook receiver', () => {
  it('answers 401 to a bad signature and never hands such a webhook out', async () => {
    bed = await startTestbed();
    const body = JSON.stringify({ type: 'DATA_SYNC', action: null, event: 'DATA_SYNC_COMPLETED', params: {} });
    const res = await fetch(bed.webhooks.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
      body,
    });
    expect(res.status).toBe(401);
    expect(bed.webhooks.rejected).toHaveLength(1);
    await expect(waitForWebhook(bed.webhooks, { event: 'DATA_SYNC_COMPLETED' }, { timeoutMs: 100 })).rejects.toThrow(/1 with a bad signature/);
  });
});

describe('the REST client', () => {
  it('turns problem details into errors with the problem code and status', async () => {
    bed = await startTestbed();
    await expect(bed.service.client.getUser('nobody')).rejects.toMatchObject({ code: 'user_not_found', details: { status: 404 } });
    await expect(bed.service.client.createWorkflow({ datapoints: { firstName: 'X' } })).rejects.toMatchObject({ code: 'invalid_datapoints' });
  });

  it('reports started syncs and invitations the way the API does', async () => {
    bed = await startTestbed();
    const { client } = bed.service;
    const put = await client.putUser('hal');
    expect(put.settings.isSyncOn).toBe(true);
    const invite = await client.invite('hal');
    expect(invite.invitationUrl).toMatch(/\/connect\?_oob=/);
    await bed.wallets[0].acceptInvitation(invite.invitationUrl!);
    await waitForSyncContext(client, 'hal', (c) => c.isSessionEstablished);
    expect((await client.invite('hal')).invitationUrl).toBeUndefined();
    await client.putDatapoints('hal', ADA, { autoSync: false });
    const started = await client.sync('hal');
    expect(started.operationId).toEqual(expect.any(String));
    await waitForWebhook(bed.webhooks, { event: 'DATA_SYNC_COMPLETED', params: { dataSyncOperationId: started.operationId } });
  });
});
