// Webhook subscriptions stay with the tenant that made them, and never point at link-local or
// cloud metadata addresses (service-security.md #2, #10).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionRepo, SUBSCRIPTIONS, type WebhookSubscription } from '../../../src/service/webhooks/subscriptions.js';
import { ManualClock, sequentialIds } from '../../../src/clock.js';
import { openStore } from '../../../src/store/store.js';
import { expectProblem, startService, type Harness } from '../http-helpers.js';

const OTHER = { clientId: 'other-client', clientSecret: 'other-secret-123' };
let h: Harness;
let admin: string;
let other: string;

beforeAll(async () => {
  h = await startService({ fixtures: { tenants: [{ id: 'other', name: 'Other Org', clients: [OTHER] }] } });
  admin = await h.token();
  other = await h.token(undefined, OTHER);
});
afterAll(async () => h.close());

async function stored(id: string): Promise<WebhookSubscription | undefined> {
  return h.store.collection<WebhookSubscription>(SUBSCRIPTIONS).get(id);
}

describe('webhook subscriptions across tenants', () => {
  it('refuses a PATCH that names tenantId and leaves the subscription with its tenant', async () => {
    const created = await h.call('POST', '/admin/webhooks', { token: admin, body: { url: 'http://127.0.0.1:1/hook' } });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    const before = (await stored(id))!.tenantId;

    expectProblem(await h.call('PATCH', `/admin/webhooks/${id}`, { token: admin, body: { tenantId: 'other' } }), 400, 'invalid_request');
    expectProblem(await h.call('PATCH', `/admin/webhooks/${id}`, { token: admin, body: { enabled: false, tenantId: 'other' } }), 400, 'invalid_request');
    expect((await stored(id))!.tenantId).toBe(before);
    expect((await stored(id))!.enabled).toBe(true);
    // Still the owner's, still invisible to the other tenant.
    expect((await h.call('GET', `/admin/webhooks/${id}`, { token: admin })).status).toBe(200);
    expectProblem(await h.call('GET', `/admin/webhooks/${id}`, { token: other }), 404, 'webhook_not_found');
    expect((await h.call('GET', '/admin/webhooks', { token: other })).json.webhooks).toEqual([]);

    const patched = await h.call('PATCH', `/admin/webhooks/${id}`, { token: admin, body: { enabled: false, description: 'paused' } });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ enabled: false, description: 'paused' });
    expect((await stored(id))!.tenantId).toBe(before);
  });

  it('never moves a subscription to another tenant, whatever update() is handed', async () => {
    const store = await openStore();
    const repo = subscriptionRepo({ store, clock: new ManualClock(), ids: sequentialIds('wh') });
    const sub = await repo.create({ url: 'https://example.com/hook', tenantId: 'a' });
    const next = await repo.update(sub.id, { enabled: false, tenantId: 'b' } as never);
    expect(next.tenantId).toBe('a');
    expect((await repo.get(sub.id))!.tenantId).toBe('a');
    await store.close();
  });
});

describe('webhook URLs', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data',
    'http://2852039166/latest/meta-data',
    'http://[fe80::1]/hook',
    'http://[::ffff:169.254.169.254]/hook',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://[fd00:ec2::254]/latest/meta-data',
    // Names that embed a metadata address (wildcard DNS services) and IPv6 translations of it.
    'http://169.254.169.254.nip.io/latest/meta-data',
    'http://169-254-169-254.sslip.io/latest/meta-data',
    'http://[64:ff9b::a9fe:a9fe]/latest/meta-data',
    'http://[64:ff9b::169.254.169.254]/latest/meta-data',
    'http://[2002:a9fe:a9fe::1]/latest/meta-data',
  ])('refuses %s on create and update', async (url) => {
    expectProblem(await h.call('POST', '/admin/webhooks', { token: admin, body: { url } }), 400, 'invalid_request');
    const ok = await h.call('POST', '/admin/webhooks', { token: admin, body: { url: 'https://example.com/hook' } });
    expectProblem(await h.call('PATCH', `/admin/webhooks/${ok.json.id}`, { token: admin, body: { url } }), 400, 'invalid_request');
    expect((await stored(ok.json.id))!.url).toBe('https://example.com/hook');
  });

  it('accepts loopback and private receivers (configured by an admin of the tenant)', async () => {
    for (const url of ['http://127.0.0.1:9999/hook', 'http://10.0.0.5/hook', 'https://hooks.example.com/x']) {
      expect((await h.call('POST', '/admin/webhooks', { token: admin, body: { url } })).status).toBe(201);
    }
  });
});
