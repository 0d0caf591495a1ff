// The service a fleet loads: an embedded twin started for the run (HTTP on 127.0.0.1, port 0, a
// temporary store in memory or, for runs too big to keep in memory, in a temporary folder; no
// rate limits), or any service at a URL that
// speaks the same REST API and protocols, reached with client credentials. The embedded twin can
// also be reached over the fleet's link (link.ts): requests and messages without sockets.
import type { EnvelopeEngine } from '../didcomm/types.js';
import { IdsyncError } from '../errors.js';
import { networkError, readBounded } from '../http-fetch.js';
import { openRunStore } from '../store/temporary.js';
import { appExchange } from '../testing/inject-fetch.js';
import { startServiceTwin } from '../testing/service-twin.js';
import { createServiceClient } from '../testing/rest-client.js';
import type { ServiceCredentials, TargetInfo } from './target-info.js';
import type { LinkHandler } from './link.js';
import { walletLinks, type WalletLinks } from './link-service.js';

export { clientFor, type ServiceCredentials, type TargetInfo } from './target-info.js';

export interface FleetTarget extends TargetInfo {
  /** The embedded twin's end of the link: its server without the socket, and its routes to the wallets. */
  link?: { serve: LinkHandler; wallets: WalletLinks };
  close(): Promise<void>;
}

/**
 * Where the embedded twin keeps its state: in memory (plain Maps, the cheapest), or on disk in
 * a temporary LevelDB: a service keeps every user, message and credential (some 70 KB of records
 * per sync flow), which 100,000 flows would make ~7 GB of heap.
 */
export type ServiceStoreKind = 'memory' | 'disk';

/** Runs of more flows than this keep the twin's state on disk unless told otherwise. */
export const SERVICE_STORE_MEMORY_FLOWS = 20_000;

/**
 * Starts the embedded twin on a temporary store: a fleet measures the service's work, and
 * nothing of a run needs to outlive it (a folder on disk is removed at close).
 */
export async function startEmbeddedTarget(options: { envelopeEngine?: EnvelopeEngine; format?: 'ldp' | 'jwt'; link?: boolean; store?: ServiceStoreKind } = {}): Promise<FleetTarget> {
  const { store, close: closeStore } = await openRunStore(options.store ?? 'memory', 'idsync-fleet-service-');
  const credentials = { clientId: 'fleet', clientSecret: 'fleet-secret-0123456789', projectId: 'fleet' };
  const wallets = options.link ? walletLinks() : undefined;
  const twin = await startServiceTwin({
    store,
    transport: 'http',
    tenantId: 'fleet',
    ...credentials,
    ...(options.format ? { format: options.format } : {}),
    ...(options.envelopeEngine ? { envelopeEngine: options.envelopeEngine } : {}),
    // Its HTTP transport, wrapped: messages to linked wallets take the link, others the network.
    ...(wallets ? { agent: { wrapTransport: wallets.wrap } } : {}),
  }).catch(async (err) => {
    await closeStore();
    throw err;
  });
  return {
    url: twin.url,
    did: twin.did,
    credentials,
    embedded: true,
    ...(wallets ? { link: { serve: appExchange(twin.service.app), wallets } } : {}),
    async close() {
      await twin.close();
      await closeStore();
    },
  };
}

/** A service elsewhere: its DID from /.well-known/did.json, the credentials given. */
/** How long the service's DID document may take, and how large it may be (the did:web resolver's 256 KiB). */
const SERVICE_DID_TIMEOUT_MS = 10_000;
const SERVICE_DID_MAX_BYTES = 256 * 1024;

export async function remoteTarget(url: string, credentials: ServiceCredentials, fetchFn: typeof fetch = fetch, timeoutMs = SERVICE_DID_TIMEOUT_MS): Promise<FleetTarget> {
  const base = url.replace(/\/+$/, '');
  let did: unknown;
  try {
    // Bounded in time and in size: a host that never answers, or answers a stream without end,
    // would otherwise hold the run before it starts (no --timeout applies yet) or fill memory.
    const res = await fetchFn(`${base}/.well-known/did.json`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new IdsyncError('service_unreachable', `${base}/.well-known/did.json answered ${res.status}`);
    const text = await readBounded(res, SERVICE_DID_MAX_BYTES, () => new IdsyncError('service_unreachable', `${base}/.well-known/did.json is larger than ${SERVICE_DID_MAX_BYTES} bytes: not a DID document`));
    did = (JSON.parse(text.toString('utf8')) as { id?: unknown } | null)?.id;
  } catch (err) {
    if (err instanceof IdsyncError) throw err;
    // What was wrong with the answer, or the socket's reason (ECONNREFUSED, ENOTFOUND, …).
    const why = err instanceof SyntaxError ? `${base}/.well-known/did.json is not JSON (${err.message})` : networkError(err, base).message;
    throw new IdsyncError('service_unreachable', why, { cause: err });
  }
  if (typeof did !== 'string' || !did.startsWith('did:')) throw new IdsyncError('service_unreachable', `${base}/.well-known/did.json names no DID`);
  // The credentials too, once, before any wallet is made: a wrong secret would otherwise fail
  // every flow of the run, one by one, with the same invalid_client.
  // Bounded in time as the DID's fetch is: no --timeout applies yet.
  const bounded: typeof fetch = (input, init) => fetchFn(input, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  await createServiceClient({ url: base, ...credentials, fetch: bounded }).token();
  return { url: base, did, credentials, embedded: false, close: async () => {} };
}
