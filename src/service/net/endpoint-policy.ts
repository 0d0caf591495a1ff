// Which URLs the service may send to on someone else's say-so: DIDComm endpoints named in a
// peer's DID document (didcomm/outbound.ts), did:web hosts (the DID names its own host) and
// webhook subscription URLs (webhooks/). The service's configuration of src/net: host names are
// resolved once, every address they resolve to is checked, and the connection goes to a checked
// address (src/net/connect-guard.ts). Link-local (169.254/16, fe80::/10) and cloud metadata
// addresses are refused always, in any disguise (IPv4-mapped, NAT64, 6to4, names that embed
// them); loopback and private ranges only when the policy allows them.
import { connectGuard, systemResolver, type ConnectGuard, type HostResolver } from '../../net/connect-guard.js';
import type { AddressPolicy } from '../../net/address-policy.js';
import { guardedFetch, type GuardedFetch } from '../../net/guarded-fetch.js';

export type EndpointPolicy = AddressPolicy;

/** Loopback allowed (wallets of this local twin run there), private ranges refused. */
export const DEFAULT_ENDPOINT_POLICY: Required<EndpointPolicy> = { allowLoopback: true, allowPrivate: false };

/** Webhook URLs: only link-local, metadata and special-purpose addresses are refused (subscribers are configured by an admin). */
export const WEBHOOK_ENDPOINT_POLICY: Required<EndpointPolicy> = { allowLoopback: true, allowPrivate: true };

const NETWORK_SCHEMES = /^(https?|wss?):/i;

/**
 * Why `url` may not be sent to under `policy`, judged without a lookup (scheme, IP literals and
 * names that say what they are), or undefined. Non-network schemes (memory:) pass. Names that
 * need a lookup are judged when connecting (endpointGuard).
 */
export function endpointRefusal(url: string, policy: EndpointPolicy = DEFAULT_ENDPOINT_POLICY): string | undefined {
  if (!NETWORK_SCHEMES.test(url)) {
    try {
      new URL(url);
      return undefined;
    } catch {
      return 'not a URL';
    }
  }
  return connectGuard({ ...DEFAULT_ENDPOINT_POLICY, ...policy }).staticRefusal(url);
}

/** The guard for outbound connections under `policy` (read at every connection). */
export function endpointGuard(policy: () => EndpointPolicy, resolver: HostResolver = systemResolver): ConnectGuard {
  return connectGuard(() => ({ ...DEFAULT_ENDPOINT_POLICY, ...policy() }), resolver);
}

/** A fetch whose every connection (redirects included) is checked by endpointGuard. */
export function endpointFetch(policy: () => EndpointPolicy, resolver?: HostResolver): GuardedFetch {
  return guardedFetch(endpointGuard(policy, resolver));
}

/**
 * Why `url` is refused, looking its host name up (for configuration such as webhook URLs, checked
 * when they are stored). A name that does not resolve now is not refused here: no connection to
 * it can be made, and every connection is checked again.
 */
export function resolvedEndpointRefusal(url: string, policy: EndpointPolicy, resolver?: HostResolver): Promise<string | undefined> {
  return endpointGuard(() => policy, resolver).check(url);
}
