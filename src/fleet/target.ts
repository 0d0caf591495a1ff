// The service a fleet loads: an embedded twin started for the run (HTTP on 127.0.0.1, port 0, a
// temporary store in memory, no rate limits), or any service at a URL that
// speaks the same REST API and protocols, reached with client credentials.
import type { EnvelopeEngine } from '../didcomm/types.js';
import { IdsyncError } from '../errors.js';
import { openStore } from '../store/store.js';
import { startServiceTwin } from '../testing/service-twin.js';
import type { ServiceCredentials, TargetInfo } from './target-info.js';

export { clientFor, type ServiceCredentials, type TargetInfo } from './target-info.js';

export interface FleetTarget extends TargetInfo {
  close(): Promise<void>;
}

/**
 * Starts the embedded twin on a temporary store in memory: a fleet measures the service's work,
 * and nothing of a run needs to outlive it.
 */
export async function startEmbeddedTarget(options: { envelopeEngine?: EnvelopeEngine; format?: 'ldp' | 'jwt' } = {}): Promise<FleetTarget> {
  const store = await openStore();
  const credentials = { clientId: 'fleet', clientSecret: 'fleet-secret-0123456789', projectId: 'fleet' };
  const twin = await startServiceTwin({
    store,
    transport: 'http',
    tenantId: 'fleet',
    ...credentials,
    ...(options.format ? { format: options.format } : {}),
    ...(options.envelopeEngine ? { envelopeEngine: options.envelopeEngine } : {}),
  }).catch(async (err) => {
    await store.close();
    throw err;
  });
  return {
    url: twin.url,
    did: twin.did,
    credentials,
    embedded: true,
    async close() {
      await twin.close();
      await store.close();
    },
  };
}

/** A service elsewhere: its DID from /.well-known/did.json, the credentials given. */
export async function remoteTarget(url: string, credentials: ServiceCredentials, fetchFn: typeof fetch = fetch): Promise<FleetTarget> {
  const base = url.replace(/\/+$/, '');
  let did: unknown;
  try {
    const res = await fetchFn(`${base}/.well-known/did.json`);
    if (!res.ok) throw new IdsyncError('service_unreachable', `${base}/.well-known/did.json answered ${res.status}`);
    did = ((await res.json()) as { id?: unknown }).id;
  } catch (err) {
    if (err instanceof IdsyncError) throw err;
    throw new IdsyncError('service_unreachable', `cannot reach ${base}: ${(err as Error).message}`, { cause: err });
  }
  if (typeof did !== 'string' || !did.startsWith('did:')) throw new IdsyncError('service_unreachable', `${base}/.well-known/did.json names no DID`);
  return { url: base, did, credentials, embedded: false, close: async () => {} };
}
