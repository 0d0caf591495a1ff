import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listSyncOperations } from '../../src/service/didcomm-seam.js';
import { createQueueingAgent } from './queueing-agent.js';
import { linkWallet } from '../../src/service/users/users.js';
import { expectProblem, fakeIonDid, startService, type Harness } from './http-helpers.js';

describe('user datapoints', () => {
  let h: Harness;
  let token: string;
  let n = 0;
  let userId: string;
  const ref = () => ({ tenantId: 'default', userId });
  const ops = () => listSyncOperations(h.store, ref());
  const path = (suffix = 'datapoints') => `/api/v1/provider/users/${userId}/${suffix}`;

  beforeAll(async () => {
    // The REST state machine only: a stand-in agent that records syncs as queued (no wallet exists here).
    h = await startService({ agent: (deps) => createQueueingAgent(deps) });
    token = await h.token();
  });
  afterAll(() => h.close());
  beforeEach(async () => {
    userId = `user-${++n}`;
    await h.call('PUT', `/api/v1/provider/users/${userId}`, { token, body: { settings: { isSyncOn: true } } });
  });

  async function establish(): Promise<void> {
    await linkWallet(h.service.deps, ref(), fakeIonDid(n));
  }

  it('merges with PUT and PATCH, normalises values, and null removes a key', async () => {
    const a = await h.call('PUT', path(), { token, body: { datapoints: { firstName: 'Ann', birthDate: '02/03/1990', nationality: 'de' } } });
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ firstName: 'Ann', birthDate: '1990-03-02', nationality: 'DE' });
    const b = await h.call('PATCH', path(), { token, body: { datapoints: { lastName: 'Lee', nationality: null } } });
    expect(b.json).toEqual({ firstName: 'Ann', lastName: 'Lee', birthDate: '1990-03-02' });
    const get = await h.call('GET', path(), { token });
    expect(get.json).toEqual(b.json);
  });

  it('accepts the bare flat object, the spec\'s residentialAddressountry spelling and a nested address', async () => {
    const a = await h.call('PUT', path(), { token, body: { firstName: 'Bo', residentialAddressountry: 'fr' } });
    expect(a.json).toEqual({ firstName: 'Bo', residentialAddressCountry: 'FR' });
    const b = await h.call('PUT', path(), { token, body: { datapoints: { residentialAddress: { locality: 'Lyon' } } } });
    expect(b.json).toMatchObject({ residentialAddressLocality: 'Lyon', residentialAddressCountry: 'FR' });
    const user = await h.call('GET', `/api/v1/provider/users/${userId}`, { token });
    expect(user.json.syncContext.datapointsLatest).toEqual({ firstName: 'Bo', residentialAddress: { locality: 'Lyon', country: 'FR' } });
  });

  it('serves the older /claims path the same way', async () => {
    const put = await h.call('PUT', path('claims'), { token, body: { datapoints: { emailAddress: 'A@Example.COM' } } });
    expect(put.json).toEqual({ emailAddress: 'A@example.com' });
    expect((await h.call('GET', path('claims'), { token })).json).toEqual({ emailAddress: 'A@example.com' });
  });

  it('GET datapoints adds userDID once the wallet is linked', async () => {
    await h.call('PUT', path(), { token, body: { datapoints: { firstName: 'Cy' } } });
    await establish();
    expect((await h.call('GET', path(), { token })).json).toEqual({ firstName: 'Cy', userDID: fakeIonDid(n).longDid });
  });

  it('refuses unknown keys, non-strings and bad formats with 400 invalid_datapoints and field errors', async () => {
    const unknown = expectProblem(await h.call('PUT', path(), { token, body: { datapoints: { shoeSize: '42' } } }), 400, 'invalid_datapoints');
    expect(unknown.errors).toContainEqual(expect.objectContaining({ field: 'body/datapoints/shoeSize' }));
    expectProblem(await h.call('PUT', path(), { token, body: { datapoints: { firstName: 42 } } }), 400, 'invalid_datapoints');
    const date = expectProblem(await h.call('PUT', path(), { token, body: { datapoints: { birthDate: '1990-02-30' } } }), 400, 'invalid_datapoints');
    expect(date.errors).toEqual([expect.objectContaining({ field: 'birthDate', code: 'invalid_date' })]);
    expect(date.detail).toBe('birthDate is not a calendar date');
    expectProblem(await h.call('PUT', path(), { token, body: { datapoints: { firstName: 'A' }, lastName: 'B' } }), 400, 'invalid_request');
    expect((await h.call('GET', path(), { token })).json).toEqual({});
  });

  it('answers 404 for datapoints of an unknown user', async () => {
    expectProblem(await h.call('PUT', '/api/v1/provider/users/ghost/datapoints', { token, body: { datapoints: { firstName: 'X' } } }), 404, 'user_not_found');
    expectProblem(await h.call('GET', '/api/v1/provider/users/ghost/datapoints', { token }), 404, 'user_not_found');
  });

  it('starts a sync on update over an established session (autoSync default true)', async () => {
    await establish();
    const res = await h.call('PUT', path(), { token, body: { datapoints: { firstName: 'Di' } } });
    const list = await ops();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ status: 'queued', reason: 'datapoints-updated' });
    expect(res.headers.get('idsync-sync-operation')).toBe(list[0].id);
  });

  it.each([
    ['query autoSync=false', '?autoSync=false', {}],
    ['bare query noAutoSync', '?noAutoSync', {}],
    ['query noAutoSync=true', '?noAutoSync=true', {}],
    ['body autoSync:false', '', { autoSync: false }],
    ['body noAutoSync:true', '', { noAutoSync: true }],
  ])('stores without syncing with %s', async (_name, query, extra) => {
    await establish();
    const res = await h.call('PATCH', path() + query, { token, body: { datapoints: { firstName: 'Ed' }, ...extra } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ firstName: 'Ed' });
    expect(await ops()).toHaveLength(0);
    expect(res.headers.get('idsync-sync-operation')).toBeNull();
  });

  it('owes the sync while no session exists and starts it when the wallet links', async () => {
    await h.call('PUT', path(), { token, body: { datapoints: { firstName: 'Fay' } } });
    expect(await ops()).toHaveLength(0);
    expect((await h.service.deps.users.get(ref()))?.pendingSync).toBe(true);
    await establish();
    const list = await ops();
    expect(list).toHaveLength(1);
    expect((await h.service.deps.users.get(ref()))?.pendingSync).toBe(false);
  });

  it('does not owe a sync for an update with autoSync=false before the session', async () => {
    await h.call('PUT', path() + '?autoSync=false', { token, body: { datapoints: { firstName: 'Gus' } } });
    await establish();
    expect(await ops()).toHaveLength(0);
  });
});
