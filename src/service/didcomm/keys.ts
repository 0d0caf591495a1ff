// The service's DIDComm keys and DID resolution. The secrets are the ones the service's identity
// (identity.ts) keeps in the store (did:web of the public URL, `#key-1` authentication, `#key-2` keyAgreement);
// they are read through `deps.identity` on every use because the DID follows the URL bound by
// listen(). The service's own document is answered locally (no HTTP round trip to itself), and
// short did:ion forms resolve through the DID registry once a Data Pipe recorded their long form.
import { createResolver, documentResolver, resolutionCache } from '../../did/resolver.js';
import { memorySecrets } from '../../didcomm/secrets.js';
import { sameDid } from '../../didcomm/message.js';
import type { EnvelopeContext, SecretsSource } from '../../didcomm/types.js';
import type { DocumentResolver } from '../../did/types.js';
import type { StoredDidRegistry } from '../../store/dids.js';
import type { ServiceDeps } from '../deps.js';
import type { ServiceIdentity } from '../identity.js';
import type { IssuerKey } from '../../credentials/types.js';

/** A SecretsSource over the current service identity (rebuilt when listen() changes the DID). */
export function serviceSecrets(deps: Pick<ServiceDeps, 'identity'>): SecretsSource {
  let seen: ServiceIdentity | undefined;
  let source: SecretsSource = memorySecrets([]);
  const current = (): SecretsSource => {
    if (deps.identity !== seen) {
      seen = deps.identity;
      source = memorySecrets(deps.identity.secrets);
    }
    return source;
  };
  return {
    get: (kid) => current().get(kid),
    find: (kids) => current().find(kids),
  };
}

// The service resolves the DID of every holder it talks to, on every message, each in its long
// and its short form: its cache holds the working set of live relationships, not a wallet's
// handful. At the default 500 entries, 1,000 wallets syncing at once evicted each DID before its
// next message and every envelope paid the ion long-form decoding (and the envelope layer's key
// conversions, which are cached by document) again: 1,000 wallets sync in ~17 s instead of ~22 s.
// The cost is memory: an entry is ~0.6 KB, but what stays reachable from a cached document (those
// conversions) comes to ~45 KB of heap per holder seen in the last 5 minutes (the TTL). Bounded
// at 4,096 (two entries per holder: ~2,000 live holders, at most ~180 MB), since anyone can mint
// did:ion long forms that resolve offline and fill it.
const SERVICE_RESOLUTION_CACHE_MAX = 4_096;

/** Resolves the service DID locally and everything else with the project resolver (ion long forms offline, short forms by registry). */
export function serviceResolver(deps: Pick<ServiceDeps, 'identity'>, registry: StoredDidRegistry, fetchFn?: typeof fetch): DocumentResolver {
  const cache = resolutionCache({ max: SERVICE_RESOLUTION_CACHE_MAX });
  const others = documentResolver(createResolver({ registry, cache, ...(fetchFn ? { fetch: fetchFn } : {}) }));
  return async (did) => (sameDid(did, deps.identity.did) ? deps.identity.document : others(did));
}

export function serviceEnvelope(deps: Pick<ServiceDeps, 'identity' | 'envelopeEngine'>, registry: StoredDidRegistry, fetchFn?: typeof fetch): EnvelopeContext {
  const ctx: EnvelopeContext = { resolve: serviceResolver(deps, registry, fetchFn), secrets: serviceSecrets(deps) };
  if (deps.envelopeEngine) ctx.engine = deps.envelopeEngine;
  return ctx;
}

/** The assertionMethod key credentials are signed with (`#key-3`); never logged. */
export function credentialIssuer(deps: Pick<ServiceDeps, 'identity'>): IssuerKey {
  const id = deps.identity;
  return { did: id.did, kid: id.assertionKid, privateKey: id.assertionKey.privateKey };
}
