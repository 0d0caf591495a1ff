// createService runs the DIDComm agent by default: started at creation when a public URL is given
// (in-process users that never listen), else from listen() once the DID follows the bound port.
// Public credential resources (status lists, the KYC context) and invitation lifetimes.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { KYC_CONTEXT } from '../../src/credentials/contexts.js';
import { b64uDecodeText } from '../../src/encoding.js';
import { SYNC_OPERATIONS } from '../../src/service/didcomm-seam.js';
import { createService, type CreateServiceOptions, type Service } from '../../src/service/app.js';
import { COLLECTIONS } from '../../src/service/didcomm/collections.js';
import type { ServiceDidcommAgent } from '../../src/service/didcomm/agent.js';
import { openStore, type Store } from '../../src/store/store.js';
import { CLIENT, expectProblem, startService } from './http-helpers.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** A store holding one sync operation a previous run left queued (its user no longer exists: resuming it fails it). */
async function storeWithQueuedSync(): Promise<Store> {
  const store = await openStore();
  cleanup.push(() => store.close());
  const now = new Date(0).toISOString();
  const op = { id: 'op-1', tenantId: 'default', userId: 'gone', reason: 'manual', status: 'queued', phase: 'queued', createdAt: now, updatedAt: now };
  await store.collection(SYNC_OPERATIONS).put('default/gone/op-1', op);
  await store.collection(COLLECTIONS.userState).put('default/gone', { activeSyncId: 'op-1' });
  return store;
}

async function service(store: Store, extra: Partial<CreateServiceOptions> = {}): Promise<Service> {
  const s = await createService({ store, env: CLIENT, rateLimit: false, ...extra });
  cleanup.push(() => s.close());
  return s;
}

const opStatus = async (store: Store) => ((await store.collection<{ status: string }>(SYNC_OPERATIONS).get('default/gone/op-1')) ?? { status: '?' }).status;

describe('the default DIDComm agent', () => {
  it('is the real agent; with a public URL it starts without listen() (fastify inject users)', async () => {
    const store = await storeWithQueuedSync();
    const s = await service(store, { publicUrl: 'http://127.0.0.1:9' });
    const agent = s.deps.agent as ServiceDidcommAgent;
    expect(typeof agent.router?.receive).toBe('function');
    expect(typeof agent.deliverInvitation).toBe('function');
    await agent.idle();
    expect(await opStatus(store)).toBe('failed'); // resumed (and failed: no such user)
  });

  it('without a public URL it starts from listen(), once the DID follows the bound port', async () => {
    const store = await storeWithQueuedSync();
    const s = await service(store);
    const agent = s.deps.agent as ServiceDidcommAgent;
    await agent.idle();
    expect(await opStatus(store)).toBe('queued');
    const url = await s.listen({ port: 0, host: '127.0.0.1' });
    expect(s.deps.serviceDid).toBe(`did:web:${encodeURIComponent(new URL(url).host)}`);
    await agent.idle();
    expect(await opStatus(store)).toBe('failed');
    // Messages the router sends by default come from the bound DID (the router learns it at first use).
    expect(agent.router.dids()).not.toContain('did:web:127.0.0.1');
  });

  it('keeps the agent option: an object or a factory replaces it', async () => {
    const store = await storeWithQueuedSync();
    const s = await service(store, { publicUrl: 'http://127.0.0.1:9', agent: () => ({ requestSync: async () => ({ operationId: 'x' }) }) });
    expect((s.deps.agent as Partial<ServiceDidcommAgent>).router).toBeUndefined();
    expect(await opStatus(store)).toBe('queued');
  });
});

describe('public credential resources', () => {
  it('serves the status list credential without a token and documents it in the OpenAPI', async () => {
    const h = await startService();
    cleanup.push(() => h.close());
    expectProblem(await h.call('GET', '/status-lists/revocation-1'), 404, 'status_list_not_found');
    // No credential with a status was issued yet, so no list exists (didcomm/workflows.test.ts and
    // status-terms.test.ts fetch a populated one).
    const agent = h.service.deps.agent as ServiceDidcommAgent;
    expect(await agent.statusListCredential('revocation-1')).toBeUndefined();
    const doc = (await h.call('GET', '/openapi.json')).json;
    const op = doc.paths['/status-lists/{name}'].get;
    expect(op.security).toBeUndefined();
    expect(op['x-required-scope']).toBeUndefined();
    expect(op.responses).toHaveProperty('200');
    expect(doc.paths['/contexts/kyc/v1'].get.responses).toHaveProperty('200');
  });

  it('serves the KYC JSON-LD context at its path', async () => {
    const h = await startService();
    cleanup.push(() => h.close());
    const res = await h.call('GET', '/contexts/kyc/v1');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/ld\+json/);
    expect(res.json).toEqual(KYC_CONTEXT);
  });
});

describe('Data Pipe invitation lifetime', () => {
  it('gives each invitation expires_time 30 days out (configurable) and /connect answers 410 once it passed', async () => {
    const clock = new ManualClock(Date.UTC(2030, 0, 1));
    const h = await startService({ clock, invitationTtlMs: 3_600_000 });
    cleanup.push(() => h.close());
    const token = await h.token();
    await h.call('PUT', '/api/v1/provider/users/u1', { token, body: { settings: { isSyncOn: true } } });
    const res = await h.call('POST', '/api/v1/provider/users/u1/invite', { token, body: {} });
    expect(res.json.invitationExpiresAt).toBe(new Date(Date.UTC(2030, 0, 1) + 3_600_000).toISOString());
    const url = new URL(res.json.invitationUrl);
    const oob = JSON.parse(b64uDecodeText(url.searchParams.get('_oob')!));
    expect(oob.expires_time).toBe((Date.UTC(2030, 0, 1) + 3_600_000) / 1000);
    const path = `${url.pathname}${url.search}`;
    expect((await h.call('GET', path, { headers: { accept: 'application/json' } })).status).toBe(200);
    clock.advance(3_600_000);
    expectProblem(await h.call('GET', path, { headers: { accept: 'application/json' } }), 410, 'invitation_expired');

    const d = await startService();
    cleanup.push(() => d.close());
    const t2 = await d.token();
    await d.call('PUT', '/api/v1/provider/users/u1', { token: t2, body: {} });
    const def = await d.call('POST', '/api/v1/provider/users/u1/invite', { token: t2, body: {} });
    const lifetime = Date.parse(def.json.invitationExpiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan(30 * 24 * 3600 * 1000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(30 * 24 * 3600 * 1000);
  });
});
