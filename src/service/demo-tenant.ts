// The demo tenant of `idsync service` on a folder with no tenant: its client secret is stored
// hashed only, so the start that makes it must show it, and a start that did not get to show it
// (the listen failed, the process died) must not leave a tenant nobody can sign in to.
//
// A record in the store says whose credentials are owed. It is written before anything of the
// tenant, says `shown: false` until the credentials were printed, and `shown: true` after. A start
// that finds `shown: false` gives the demo client a fresh secret (the one made before was perhaps
// never seen) and prints that. So whatever point a start dies at, the next start either prints
// working credentials or finds them shown: between the secret stored and printed, the next start
// replaces it; between printed and recorded, the next start replaces the printed secret with one
// it prints too (only the last printed secret works).
import { isoNow } from '../clock.js';
import { randomId } from '../encoding.js';
import type { CrashPoint } from '../crash-point.js';
import type { ServiceBase } from './context.js';
import { putDemoTenant, type DemoCredentials } from './seed.js';

type DemoDeps = Pick<ServiceBase, 'store' | 'config' | 'clock' | 'serviceDid'>;

export const DEMO_COLLECTION = 'svc-demo';
const KEY = 'credentials';
const TENANT_ID = 'demo';
const PROJECT_ID = 'demo-project';

export interface DemoRecord {
  clientId: string;
  /** Whether the credentials of the client's current secret were printed. */
  shown: boolean;
  createdAt: string;
}

/** What `printDemoCredentials` printed, and whether the tenant was made on an earlier start. */
export interface ShownDemo extends DemoCredentials {
  /** The tenant was made by an earlier start that did not show its credentials: this is a new secret. */
  renewed: boolean;
}

/**
 * On a store without tenants (or with a demo tenant whose credentials were never shown): makes
 * the demo tenant and a fresh client secret, hands them to `print`, then records them as shown.
 * Returns undefined when there is nothing to show. `crashPoint` (tests) is called with
 * `demo:stored` before printing and `demo:printed` before the record says shown.
 */
export async function printDemoCredentials(deps: DemoDeps, print: (creds: ShownDemo) => void | Promise<void>, crashPoint?: CrashPoint): Promise<ShownDemo | undefined> {
  const records = deps.store.collection<DemoRecord>(DEMO_COLLECTION);
  let record = await records.get(KEY);
  if (record?.shown) return undefined;
  const renewed = record !== undefined;
  if (!record) {
    // Tenants made otherwise (fixtures, the environment, the admin API, a demo tenant of a store
    // older than this record) mean no demo tenant is owed.
    if ((await deps.config.listTenants()).length > 0) return undefined;
    record = { clientId: `demo-${randomId(6)}`, shown: false, createdAt: isoNow(deps.clock) };
    await records.put(KEY, record);
  }
  const creds: ShownDemo = { tenantId: TENANT_ID, clientId: record.clientId, clientSecret: randomId(24), projectId: PROJECT_ID, renewed };
  await putDemoTenant(deps, creds);
  crashPoint?.('demo:stored');
  await print(creds);
  crashPoint?.('demo:printed');
  await records.put(KEY, { ...record, shown: true });
  return creds;
}
