import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { openStore, type Store } from '../../src/store/store.js';
import { partnerRepo, type PartnerRepo } from '../../src/service/issuance/partners.js';

let store: Store;
let repo: PartnerRepo;
beforeEach(async () => {
  store = await openStore();
  repo = partnerRepo({
    store,
    clock: new ManualClock(),
    ids: sequentialIds('p'),
    serviceDid: 'did:web:service.example',
    provider: async (t) => (t === 't1' ? { name: 'Acme Bank', did: 'did:web:acme.example' } : undefined),
  });
});
afterEach(() => store.close());

describe('ecosystem partners', () => {
  it('has the service and the provider organisation as default partners', async () => {
    const list = await repo.list('t1');
    expect(list.map((p) => [p.id, p.name, p.did, p.status, p.roles, p.builtIn])).toEqual([
      ['service', 'idsync service', 'did:web:service.example', 'Active', ['Issuer', 'Verifier'], 'service'],
      ['provider', 'Acme Bank', 'did:web:acme.example', 'Active', ['Issuer', 'Verifier'], 'provider'],
    ]);
    // Without provider details the provider partner falls back to the tenant id and the service DID.
    expect((await repo.get('t2', 'provider')).did).toBe('did:web:service.example');
  });

  it('creates, filters, updates and deletes partners', async () => {
    const p = await repo.create('t1', { name: 'KYC Co', did: 'did:key:z6MkKyc', roles: ['Verifier', 'Issuer', 'Issuer'] });
    expect(p).toMatchObject({ id: 'p-1', status: 'Active', roles: ['Issuer', 'Verifier'] });
    await repo.create('t1', { id: 'verif', name: 'Checker', did: 'did:web:checker.example', roles: ['Verifier'], status: 'Inactive' });
    expect((await repo.list('t1', { status: 'Inactive' })).map((x) => x.id)).toEqual(['verif']);
    expect((await repo.list('t1', { role: 'Verifier' })).map((x) => x.id)).toEqual(['service', 'provider', 'p-1', 'verif']);
    expect((await repo.update('t1', 'verif', { status: 'Active' })).status).toBe('Active');
    expect((await repo.findByDid('t1', 'did:key:z6MkKyc')).map((x) => x.id)).toEqual(['p-1']);
    await repo.remove('t1', 'p-1');
    await expect(repo.get('t1', 'p-1')).rejects.toMatchObject({ code: 'partner_not_found' });
    expect((await repo.list('t2')).map((x) => x.id)).toEqual(['service', 'provider']);
  });

  it('validates input with field errors', async () => {
    const err = await repo.create('t1', { name: '', did: 'acme', roles: ['Admin'], status: 'Maybe' }).catch((e) => e);
    expect(err.code).toBe('invalid_request');
    expect(err.details.errors.map((e: { field: string }) => e.field)).toEqual(['body/name', 'body/did', 'body/status', 'body/roles']);
    await repo.create('t1', { name: 'A', did: 'did:key:z6MkA', roles: ['Issuer'] });
    await expect(repo.create('t1', { name: 'B', did: 'did:key:z6MkA', roles: ['Issuer'] })).rejects.toMatchObject({ code: 'already_exists' });
  });

  it('keeps the default partners: edit yes, delete no', async () => {
    await expect(repo.remove('t1', 'service')).rejects.toMatchObject({ code: 'conflict' });
    expect((await repo.update('t1', 'provider', { status: 'Inactive' })).status).toBe('Inactive');
    expect((await repo.get('t1', 'provider')).status).toBe('Inactive');
  });
});
