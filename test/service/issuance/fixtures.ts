// Test deps for workflow tests: an in-memory store, a manual clock, a tenant with one project
// whose data profile is the default KYC profile.
import { ManualClock, sequentialIds } from '../../../src/clock.js';
import { defaultKycProfile } from '../../../src/credentials/manifest.js';
import { openStore } from '../../../src/store/store.js';
import { createServiceConfig, DEFAULT_ISSUANCE, type DataProfile } from '../../../src/service/config/config.js';
import type { ServiceEvent } from '../../../src/service/context.js';
import type { WorkflowDeps } from '../../../src/service/issuance/workflows.js';

export const TENANT = 'tenant-1';
export const PROJECT = 'project-1';

export async function workflowDeps(): Promise<WorkflowDeps & { clock: ManualClock; emitted: ServiceEvent[]; close(): Promise<void> }> {
  const store = await openStore();
  const clock = new ManualClock();
  const config = createServiceConfig(store);
  const now = new Date(clock.now()).toISOString();
  await config.putTenant({ id: TENANT, name: 'Tenant', createdAt: now });
  const profile = defaultKycProfile('did:web:127.0.0.1%3A8080');
  await config.putDataProfile(TENANT, profile as unknown as DataProfile);
  await config.putProject({ id: PROJECT, tenantId: TENANT, name: 'P', dataProfileId: profile.id, issuance: DEFAULT_ISSUANCE, createdAt: now, updatedAt: now });
  const emitted: ServiceEvent[] = [];
  return {
    store,
    clock,
    ids: sequentialIds('w'),
    config,
    publicUrl: 'http://127.0.0.1:8080',
    serviceDid: 'did:web:127.0.0.1%3A8080',
    events: { emit: async (e) => void emitted.push(e) },
    emitted,
    close: () => store.close(),
  };
}

export const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10', nationality: 'GB' };
