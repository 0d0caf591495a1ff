import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSyncOperations } from '../../src/service/didcomm-seam.js';
import { createQueueingAgent } from './queueing-agent.js';
import { findInvitation } from '../../src/service/users/invitations.js';
import { linkWallet, markSynced } from '../../src/service/users/users.js';
import { expectProblem, fakeIonDid, startService, type Harness } from './http-helpers.js';

const fixtures = JSON.parse(readFileSync(new URL('../../fixtures/service-fixtures.json', import.meta.url), 'utf8'));
const ACME = { clientId: 'acme-qa', clientSecret: 'acme-qa-secret-change-me' };

describe('Data Pipe: sync context, invitation, sync', () => {
  let h: Harness;
  let token: string;
  const ref = (userId: string) => ({ tenantId: 'acme', userId });
  beforeAll(async () => {
    // The REST state machine only: a stand-in agent that records syncs as queued (no wallet exists here).
    h = await startService({ fixtures, env: {}, agent: (deps) => createQueueingAgent(deps) });
    token = await h.token(undefined, ACME);
  });
  afterAll(() => h.close());

  const put = (id: string, isSyncOn = true) => h.call('PUT', `/api/v1/provider/users/${id}`, { token, body: { settings: { isSyncOn } } });

  it('lists the default project\'s data profile fields as PascalCase sync scopes', async () => {
    await put('s1');
    const res = await h.call('GET', '/api/v1/provider/users/s1/sync-context', { token });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      isSyncOn: true,
      isSessionEstablished: false,
      isLinked: false,
      datapoints: ['FirstName', 'LastName', 'BirthDate', 'Nationality'],
      issuerDIDs: [h.service.deps.serviceDid],
    });
    expectProblem(await h.call('GET', '/api/v1/provider/users/none/sync-context', { token }), 404, 'user_not_found');
  });

  it('makes an OOB 2.0 invitation URL from the service DID and remembers it for the user', async () => {
    await put('s2');
    const res = await h.call('POST', '/api/v1/provider/users/s2/invite', { token, body: {} });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ isSessionEstablished: false, isLinked: false });
    const url = new URL(res.json.invitationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${h.url}/connect`);
    const invitation = JSON.parse(Buffer.from(url.searchParams.get('_oob')!, 'base64url').toString('utf8'));
    expect(invitation).toMatchObject({
      type: 'https://didcomm.org/out-of-band/2.0/invitation',
      from: h.service.deps.serviceDid,
      body: { accept: ['didcomm/v2'] },
    });
    expect(await findInvitation(h.service.deps, invitation.id)).toMatchObject({ tenantId: 'acme', userId: 's2' });
  });

  it('accepts an invite without a body too', async () => {
    await put('s2b');
    const res = await h.call('POST', '/api/v1/provider/users/s2b/invite', { token });
    expect(res.status).toBe(200);
    expect(res.json.invitationUrl).toMatch(/\/connect\?_oob=/);
  });

  it('answers an established session with isSessionEstablished true and no invitationUrl', async () => {
    await put('s3');
    await linkWallet(h.service.deps, ref('s3'), fakeIonDid(3));
    const res = await h.call('POST', '/api/v1/provider/users/s3/invite', { token, body: {} });
    expect(res.json).toEqual({ isSessionEstablished: true, isLinked: false, isAlreadyConnected: true });
    const ctx = await h.call('GET', '/api/v1/provider/users/s3/sync-context', { token });
    expect(ctx.json.isSessionEstablished).toBe(true);
  });

  it('starts a manual sync with 202 on both path spellings, and 409 without a session or consent', async () => {
    await put('s4');
    expectProblem(await h.call('POST', '/api/v1/provider/users/s4/sync', { token }), 409, 'session_not_established');
    await linkWallet(h.service.deps, ref('s4'), fakeIonDid(4));
    const a = await h.call('POST', '/api/v1/provider/users/s4/sync', { token });
    expect(a.status).toBe(202);
    expect(a.json).toMatchObject({ status: 'queued' });
    const b = await h.call('POST', '/api/v1provider/users/s4/sync', { token, body: {} });
    expect(b.status).toBe(202);
    const ops = await listSyncOperations(h.store, ref('s4'));
    expect(ops.map((o) => o.id).sort()).toEqual([a.json.operationId, b.json.operationId].sort());
    expect(ops.every((o) => o.reason === 'manual' && o.status === 'queued')).toBe(true);

    await put('s4', false);
    expectProblem(await h.call('POST', '/api/v1/provider/users/s4/sync', { token }), 409, 'sync_disabled');
    expectProblem(await h.call('POST', '/api/v1/provider/users/ghost/sync', { token }), 404, 'user_not_found');
  });

  it('starts an owed sync when consent is given after the session exists', async () => {
    await put('s5', false);
    await linkWallet(h.service.deps, ref('s5'), fakeIonDid(5));
    await h.call('PUT', '/api/v1/provider/users/s5/datapoints', { token, body: { datapoints: { firstName: 'Zed' } } });
    expect(await listSyncOperations(h.store, ref('s5'))).toHaveLength(0);
    await put('s5', true);
    expect(await listSyncOperations(h.store, ref('s5'))).toHaveLength(1);
  });

  it('reflects a completed sync: isLinked and datapointsSynced', async () => {
    await put('s6');
    await linkWallet(h.service.deps, ref('s6'), fakeIonDid(6));
    await h.call('PUT', '/api/v1/provider/users/s6/datapoints', { token, body: { datapoints: { firstName: 'Ida', residentialAddressCountry: 'NL' } } });
    await markSynced(h.service.deps, ref('s6'), { firstName: 'Ida', residentialAddressCountry: 'NL' });
    const ctx = await h.call('GET', '/api/v1/provider/users/s6/sync-context', { token });
    expect(ctx.json.isLinked).toBe(true);
    expect(ctx.json.syncContext.datapointsSynced).toEqual({ firstName: 'Ida', residentialAddress: { country: 'NL' } });
  });

  it('finds a user by long or short wallet DID within a project', async () => {
    await put('s7');
    const did = fakeIonDid(7);
    await linkWallet(h.service.deps, ref('s7'), did);
    for (const d of [did.longDid, did.shortDid]) {
      const res = await h.call('GET', `/api/v1/provider/projects/onboarding/users-by-did/${encodeURIComponent(d)}`, { token });
      expect(res.status).toBe(200);
      expect(res.json.userId).toBe('s7');
    }
    expectProblem(await h.call('GET', `/api/v1/provider/projects/onboarding/users-by-did/${fakeIonDid(99).shortDid}`, { token }), 404, 'user_not_found');
    expectProblem(await h.call('GET', `/api/v1/provider/projects/nope/users-by-did/${did.shortDid}`, { token }), 404, 'project_not_found');
    expectProblem(await h.call('GET', '/api/v1/provider/projects/onboarding/users-by-did/not-a-did', { token }), 400, 'invalid_request');
  });
});

describe('GET /connect', () => {
  let h: Harness;
  let invitationUrl: string;
  beforeAll(async () => {
    h = await startService();
    const token = await h.token();
    await h.call('PUT', '/api/v1/provider/users/c1', { token, body: {} });
    invitationUrl = (await h.call('POST', '/api/v1/provider/users/c1/invite', { token, body: {} })).json.invitationUrl;
  });
  afterAll(() => h.close());

  const pathOf = (url: string) => url.slice(h.url.length);

  it('gives JSON clients the decoded invitation', async () => {
    const res = await h.call('GET', pathOf(invitationUrl), { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.json.type).toBe('https://didcomm.org/out-of-band/2.0/invitation');
  });

  it('gives browsers an HTML page with the URL and an inline SVG QR code', async () => {
    const res = await h.call('GET', pathOf(invitationUrl), { headers: { accept: 'text/html,application/xhtml+xml,*/*' } });
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('<svg');
    expect(res.text).toContain(invitationUrl.replace(/&/g, '&amp;'));
  });

  it('refuses a missing or undecodable _oob with 400 invalid_invitation', async () => {
    expectProblem(await h.call('GET', '/connect'), 400, 'invalid_invitation');
    expectProblem(await h.call('GET', '/connect?_oob=%%%'), 400, 'invalid_invitation');
    expectProblem(await h.call('GET', '/connect?_oob=bm90IGpzb24'), 400, 'invalid_invitation');
    expectProblem(await h.call('GET', `/connect?_oob=${Buffer.from('{"a":1}').toString('base64url')}`), 400, 'invalid_invitation');
  });
});
