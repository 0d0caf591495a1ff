// Where a message for a peer DID goes on the network, read from its DID document: the URIs of its
// DIDCommMessaging services, and when a service names a mediator (DIDComm v2.1 §Using a DID as an
// endpoint: "it is possible to use a DID as the uri value in a serviceEndpoint"), that mediator's
// URIs instead. The sender wraps for the mediator in the envelope (didcomm/envelope/forward.ts
// wrapIfNeeded; §Sender Process to Enable Forwarding: "For each item X in that array ... Sender
// creates a new plaintext forward message, attaches the current N, and encrypts it for X"); this
// says which URL the wrapped message is then POSTed to. The wallet and the service twin both
// deliver through it, so both read a mediated DID the same way.
import type { DIDDocument, DocumentResolver } from '../did/types.js';
import { didOf } from '../didcomm/message.js';

export interface PeerRoute {
  /** Concrete URIs to deliver to, in document order (the mediator's, for a DID endpoint). */
  endpoints: string[];
  /** The mediator DID a service names as its endpoint, when one does. */
  mediator?: string;
  /** Routing keys the peer's service names (DIDComm v2.1 §Service Endpoint `routingKeys`). */
  routingKeys: string[];
  /**
   * A DID whose document did not resolve on the way (the peer's, or the mediator's it names): no
   * endpoint now, but maybe later, where a document that names none never will have one.
   */
  unresolved?: string;
}

const isDid = (s: string): boolean => /^did:[a-z0-9]+:/.test(s);

interface Entry {
  uri: string;
  routingKeys: string[];
}

function entries(doc: DIDDocument | null | undefined): Entry[] {
  const out: Entry[] = [];
  for (const s of doc?.service ?? []) {
    if (!([] as unknown[]).concat(s.type).includes('DIDCommMessaging')) continue;
    for (const e of ([] as unknown[]).concat(s.serviceEndpoint)) {
      const uri = typeof e === 'string' ? e : (e as { uri?: unknown })?.uri;
      const keys = typeof e === 'object' && e !== null ? (e as { routingKeys?: unknown }).routingKeys : undefined;
      if (typeof uri === 'string' && uri.length > 0) out.push({ uri, routingKeys: Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [] });
    }
  }
  return out;
}

/** The URIs of every DIDCommMessaging service in `doc`, in document order (DIDs included, as written). */
export function serviceUris(doc: DIDDocument | null | undefined): string[] {
  return entries(doc).map((e) => e.uri);
}

/**
 * The route to `did`: its services' URIs; a service whose endpoint is a DID is replaced by that
 * mediator's URIs. Only one level: §Using a DID as an endpoint allows the mediator's own service
 * to name further hops, which the envelope refuses (it would loop), so they are not followed here.
 */
export async function peerRoute(did: string, resolve: DocumentResolver): Promise<PeerRoute> {
  const doc = await resolve(didOf(did));
  let unresolved = doc ? undefined : didOf(did);
  const endpoints: string[] = [];
  const routingKeys: string[] = [];
  let mediator: string | undefined;
  for (const e of entries(doc)) {
    routingKeys.push(...e.routingKeys);
    if (!isDid(e.uri)) {
      endpoints.push(e.uri);
      continue;
    }
    mediator ??= e.uri;
    const theirs = await resolve(didOf(e.uri));
    if (!theirs) unresolved ??= didOf(e.uri);
    for (const m of entries(theirs)) if (!isDid(m.uri)) endpoints.push(m.uri);
  }
  return { endpoints: [...new Set(endpoints)], routingKeys, ...(mediator ? { mediator } : {}), ...(unresolved ? { unresolved } : {}) };
}
