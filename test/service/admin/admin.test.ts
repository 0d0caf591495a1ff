import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import { markInProgress } from '../../../src/service/issuance/workflows.js';
import { CLIENT, expectProblem, startService, type Harness } from '../http-helpers.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

const OTHER = { clientId: 'other-client', clientSecret: 'other-secret-123' };
let h: Harness;
let admin: string;
let other: string;
let receiver: Receiver;

beforeAll(async () => {
  h = await startService({
    clock: new ManualClock(Date.now()),
    fixtures: { tenants: [{ id: 'other', name: 'Other Org', clients: [OTHER] }] },
  });
  admin = await h.token();
  other = await h.token(undefined, OTHER);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

const PROFILE = { id: 'names-only', name: 'Names', fields: [{ key: 'firstName', required: true }, { key: 'lastName', required: true }] };

describe('admin API', () => {
  it('needs the admin scope', async () => {
    const issuanceOnly = await h.token(['create:issuance-workflows']);
    expectProblem(await h.call('GET', '/admin/projects', { token: issuanceOnly }), 403, 'insufficient_scope');
    expectProblem(await h.call('GET', '/admin/projects'), 401, 'unauthorized');
  });

  it('manages data profiles and projects; workflows then follow the new profile', async () => {
    const created = await h.call('POST', '/admin/data-profiles', { token: admin, body: PROFILE });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ id: 'names-only', name: 'Names', version: '1.0.0', manifest: { issuer: { id: h.service.deps.serviceDid } } });
    expectProblem(await h.call('POST', '/admin/data-profiles', { token: admin, body: PROFILE }), 409, 'already_exists');
    expectProblem(await h.call('POST', '/admin/data-profiles', { token: admin, body: { ...PROFILE, id: 'x', fields: [{ key: 'shoeSize', required: true }] } }), 400, 'invalid_request');

    const project = await h.call('POST', '/admin/projects', { token: admin, body: { id: 'names', name: 'Names project', dataProfileId: 'names-only', issuance: { format: 'jwt' } } });
    expect(project.status).toBe(201);
    expect(project.json).toMatchObject({ id: 'names', dataProfileId: 'names-only', issuance: { format: 'jwt', statusList: true } });
    expect(project.json.tenantId).toBeUndefined();
    expectProblem(await h.call('POST', '/admin/projects', { token: admin, body: { id: 'bad', dataProfileId: 'missing' } }), 400, 'invalid_config');
    expect((await h.call('GET', '/admin/projects', { token: admin })).json.projects.map((p: { id: string }) => p.id).sort()).toEqual(['names', CLIENT.projectId]);

    const settings = await h.call('PUT', '/admin/projects/names/issuance-settings', { token: admin, body: { statusList: false } });
    expect(settings.json).toEqual({ format: 'jwt', validityMs: expect.any(Number), statusList: false });
    expect((await h.call('GET', '/admin/projects/names/issuance-settings', { token: admin })).json.statusList).toBe(false);
    expectProblem(await h.call('PUT', '/admin/projects/names/issuance-settings', { token: admin, body: { format: 'cbor' } }), 400, 'invalid_request');
    // A validity whose expirationDate would fall past the largest Date: refused, not stored to fail every issuance.
    expectProblem(await h.call('PUT', '/admin/projects/names/issuance-settings', { token: admin, body: { validityMs: 1e300 } }), 400, 'invalid_request');
    expect((await h.call('PUT', '/admin/projects/names/issuance-settings', { token: admin, body: { validityMs: 100 * 365 * 24 * 3600 * 1000 } })).status).toBe(200);

    const wf = await h.call('POST', '/api/v1/issuance-workflows', { token: admin, body: { projectId: 'names', datapoints: { firstName: 'Ada', lastName: 'L', nationality: 'GB' } } });
    expectProblem(wf, 400, 'invalid_datapoints');

    expectProblem(await h.call('DELETE', '/admin/data-profiles/names-only', { token: admin }), 409, 'conflict');
    // A PUT keeps what it does not name; the profile is let go by naming another.
    expect((await h.call('PUT', '/admin/projects/names', { token: admin, body: { name: 'Renamed' } })).json).toMatchObject({ name: 'Renamed', dataProfileId: 'names-only' });
    expect((await h.call('PUT', '/admin/projects/names', { token: admin, body: { dataProfileId: 'idsync-kyc-default' } })).json).toMatchObject({ name: 'Renamed', dataProfileId: 'idsync-kyc-default' });
    expect((await h.call('DELETE', '/admin/data-profiles/names-only', { token: admin })).status).toBe(204);
    expect((await h.call('DELETE', '/admin/projects/names', { token: admin })).status).toBe(204);
    expectProblem(await h.call('GET', '/admin/projects/names', { token: admin }), 404, 'project_not_found');
  });

  it('keeps tenants apart', async () => {
    expect((await h.call('GET', '/admin/projects', { token: other })).json.projects).toEqual([]);
    expectProblem(await h.call('GET', `/admin/projects/${CLIENT.projectId}`, { token: other }), 404, 'project_not_found');
    const sub = await h.call('POST', '/admin/webhooks', { token: admin, body: { url: 'http://127.0.0.1:9/x' } });
    expectProblem(await h.call('GET', `/admin/webhooks/${sub.json.id}`, { token: other }), 404, 'webhook_not_found');
    expect((await h.call('DELETE', `/admin/webhooks/${sub.json.id}`, { token: admin })).status).toBe(204);
  });

  it('refuses a webhook URL with a user name or password: fetch would refuse every delivery', async () => {
    const res = await h.call('POST', '/admin/webhooks', { token: admin, body: { url: 'http://hook:pw@127.0.0.1:9/h' } });
    const p = expectProblem(res, 400, 'invalid_request');
    expect(JSON.stringify(p.errors)).toContain('user name or password');
  });

  it('subscribes a webhook and delivers signed issuance events to it', async () => {
    const res = await h.call('POST', '/admin/webhooks', { token: admin, body: { url: receiver.url, events: ['CREDENTIAL_ISSUANCE'] } });
    expect(res.status).toBe(201);
    const { id, secret } = res.json;
    expect(secret).toMatch(/^whsec_/);
    expect((await h.call('GET', `/admin/webhooks/${id}`, { token: admin })).json.secret).toBeUndefined();
    expect((await h.call('GET', `/admin/webhooks/${id}/secret`, { token: admin })).json.secret).toBe(secret);
    expect((await h.call('GET', '/admin/webhooks', { token: admin })).json.webhooks.map((w: { id: string }) => w.id)).toContain(id);

    const wf = (await h.call('POST', '/api/v1/issuance-workflows', { token: admin, body: { projectId: CLIENT.projectId, userId: 'u-9', datapoints: { firstName: 'A', lastName: 'B', birthDate: '2000-01-01' } } })).json.issuanceWorkflow;
    const next = receiver.next();
    await markInProgress(h.service.deps, wf.id, { didcommThreadId: 'thid-9' });
    const got = await next;
    const payload = new Webhook(secret).verify(got.body, got.headers as Record<string, string>);
    expect(payload).toEqual({
      type: 'CREDENTIAL_ISSUANCE',
      action: null,
      event: 'CREDENTIAL_ISSUANCE_PENDING',
      params: { didcommThreadId: 'thid-9', userAccountId: 'u-9', issuanceWorkflowId: wf.id, projectId: CLIENT.projectId },
      occurredAt: expect.any(String),
      subject: `workflow:${wf.id}`,
      sequence: 1,
    });
    const deliveries = await h.call('GET', `/admin/webhooks/${id}/deliveries`, { token: admin });
    expect(deliveries.json.deliveries).toHaveLength(1);
    expect(deliveries.json.deliveries[0]).toMatchObject({ eventId: got.headers['webhook-id'], event: { event: 'CREDENTIAL_ISSUANCE_PENDING' } });

    const patched = await h.call('PATCH', `/admin/webhooks/${id}`, { token: admin, body: { enabled: false } });
    expect(patched.json.enabled).toBe(false);
    expectProblem(await h.call('POST', '/admin/webhooks', { token: admin, body: { url: 'ftp://x' } }), 400, 'invalid_request');
  });

  it('lists default partners and manages others', async () => {
    const list = await h.call('GET', '/admin/partners', { token: admin });
    expect(list.json.partners.map((p: { id: string; did: string; builtIn: string }) => [p.id, p.builtIn, p.did])).toEqual([
      ['service', 'service', h.service.deps.serviceDid],
      ['provider', 'provider', h.service.deps.serviceDid],
    ]);
    const p = await h.call('POST', '/admin/partners', { token: admin, body: { name: 'KYC Co', did: 'did:web:kyc.example', roles: ['Issuer'] } });
    expect(p.status).toBe(201);
    expect(p.json).toMatchObject({ name: 'KYC Co', status: 'Active', roles: ['Issuer'] });
    expect((await h.call('PATCH', `/admin/partners/${p.json.id}`, { token: admin, body: { status: 'Inactive' } })).json.status).toBe('Inactive');
    expect((await h.call('GET', '/admin/partners?status=Inactive', { token: admin })).json.partners.map((x: { id: string }) => x.id)).toEqual([p.json.id]);
    expectProblem(await h.call('DELETE', '/admin/partners/service', { token: admin }), 409, 'conflict');
    expectProblem(await h.call('POST', '/admin/partners', { token: admin, body: { name: 'X', did: 'nope', roles: ['Issuer'] } }), 400, 'invalid_request');
    expect((await h.call('DELETE', `/admin/partners/${p.json.id}`, { token: admin })).status).toBe(204);
    expectProblem(await h.call('GET', `/admin/partners/${p.json.id}`, { token: admin }), 404, 'partner_not_found');
    expect((await h.call('GET', '/admin/partners', { token: other })).json.partners[1]).toMatchObject({ id: 'provider', name: 'Other Org' });
  });

  it('documents its routes in the OpenAPI document', async () => {
    const doc = await h.call('GET', '/openapi.json');
    expect(doc.status).toBe(200);
    for (const path of ['/api/v1/issuance-workflows', '/api/v1/issuance-workflows/{issuanceWorkflowId}/send-invitation', '/admin/webhooks', '/admin/partners', '/dev/outbox']) {
      expect(Object.keys(doc.json.paths)).toContain(path);
    }
    expect(doc.json.paths['/api/v1/issuance-workflows'].post['x-required-scope']).toBe('create:issuance-workflows');
  });
});
