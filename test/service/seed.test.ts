import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { createService } from '../../src/service/app.js';
import { isIdsyncError } from '../../src/errors.js';
import { ALL_SCOPES } from '../../src/service/auth/scopes.js';
import { DATAPOINT_KEYS } from '../../src/credentials/datapoints.js';
import { startService } from './http-helpers.js';

const fixtures = JSON.parse(readFileSync(new URL('../../fixtures/service-fixtures.json', import.meta.url), 'utf8'));

describe('configuration seeding', () => {
  it('loads the example fixtures: tenant, clients with their scopes, profiles, projects and issuance settings', async () => {
    const h = await startService({ fixtures, env: {} });
    try {
      const { config } = h.service.deps;
      expect(await config.getTenant('acme')).toMatchObject({ name: 'Acme Bank', defaultProjectId: 'onboarding' });
      expect((await config.getClient('acme-readonly'))?.scopes).toEqual(['read:provider-users', 'read:provider-user-sync-sessions']);
      expect((await config.getClient('acme-qa'))?.scopes.sort()).toEqual([...ALL_SCOPES].sort());
      expect((await config.profileOfProject('acme', 'onboarding')).fields.map((f) => f.key)).toEqual(['firstName', 'lastName', 'birthDate', 'nationality']);
      expect((await config.profileOfProject('acme', 'full-kyc')).fields.map((f) => f.key)).toEqual([...DATAPOINT_KEYS]);
      expect((await config.getProject('acme', 'full-kyc'))?.issuance).toEqual({ format: 'jwt', validityMs: null, statusList: false });
      expect(h.service.demoCredentials).toBeUndefined();
      const res = await h.call('POST', '/api/v1/auth/token', { body: { clientId: 'acme-readonly', clientSecret: 'acme-readonly-secret-change-me', scopes: ['upsert:provider-users'] } });
      expect(res.json.code).toBe('invalid_scope');
      // The secret is stored hashed only.
      expect(JSON.stringify(await config.getClient('acme-qa'))).not.toContain('acme-qa-secret-change-me');
    } finally {
      await h.close();
    }
  });

  it('refuses invalid fixtures with invalid_config before serving', async () => {
    for (const bad of [
      { tenants: [{ id: 'x', projects: [{ id: 'p', dataProfileId: 'missing' }] }] },
      { tenants: [{ id: 'x', dataProfiles: [{ id: 'd', name: 'D', fields: [{ key: 'shoeSize', required: true }] }] }] },
      { tenants: [{ id: 'x', clients: [{ clientId: 'c', clientSecret: 'longenough', scopes: ['fly'] }] }] },
      { tenants: 'nope' },
    ]) {
      const store = await openStore();
      const err = await createService({ store, fixtures: bad }).catch((e: unknown) => e);
      expect(isIdsyncError(err) && err.code).toBe('invalid_config');
      await store.close();
    }
  });

  it('names the allowed values of a field that takes one of a list', async () => {
    const store = await openStore();
    const bad = { tenants: [{ id: 'x', dataProfiles: [{ id: 'd', name: 'D', fields: [{ key: 'email', required: true }] }] }] };
    const err = await createService({ store, fixtures: bad }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'invalid_config' });
    expect((err as Error).message).toBe(`invalid fixtures: /tenants/0/dataProfiles/0/fields/0/key must be one of ${DATAPOINT_KEYS.map((k) => `"${k}"`).join(', ')}`);
    await store.close();
  });

  it('seeds the environment client idempotently and follows a changed secret', async () => {
    const store = await openStore();
    const env = { clientId: 'env-client', clientSecret: 'first-secret', projectId: 'env-project' };
    const a = await createService({ store, env });
    const hash = (await a.deps.config.getClient('env-client'))?.secretHash;
    await a.close();
    const b = await createService({ store, env });
    expect((await b.deps.config.getClient('env-client'))?.secretHash).toBe(hash);
    expect(b.demoCredentials).toBeUndefined();
    await b.close();
    const c = await createService({ store, env: { ...env, clientSecret: 'second-secret' } });
    const url = await c.listen();
    const old = await fetch(`${url}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientId: 'env-client', clientSecret: 'first-secret' }) });
    expect(old.status).toBe(401);
    const project = await c.deps.config.getProject('default', 'env-project');
    expect(project?.dataProfileId).toBe('idsync-kyc-default');
    expect((await c.deps.config.getTenant('default'))?.defaultProjectId).toBe('env-project');
    await c.close();
    await store.close();
  });

  it('creates a demo tenant on an empty store only', async () => {
    const store = await openStore();
    const a = await createService({ store });
    expect(a.demoCredentials).toMatchObject({ tenantId: 'demo', projectId: 'demo-project' });
    await a.close();
    const b = await createService({ store });
    expect(b.demoCredentials).toBeUndefined();
    await b.close();
    await store.close();
  });
});
