// Where the wallet's messages go: to an explicit route for the peer when one is set (a live
// WebSocket, an in-process endpoint), else to a DIDCommMessaging endpoint of the peer's DID
// document (DIDComm v2 §9.12) that one of our transports speaks, HTTP(S) first; for a peer behind
// a mediator, the mediator's endpoint (router/peer-route.ts, shared with the service twin).
import type { DIDDocument, DocumentResolver } from '../did/types.js';
import { shortForm } from '../did/short-form.js';
import { didOf } from '../didcomm/message.js';
import type { Outbound } from '../router/router.js';
import type { Transport } from '../didcomm/types.js';
import { schemeOf } from '../didcomm/transport/media-type.js';
import { IdsyncError } from '../errors.js';
import { peerRoute, serviceUris } from '../router/peer-route.js';

/** The URIs of every DIDCommMessaging service in `doc`, in document order (string or {uri} endpoints). */
export function didcommEndpoints(doc: DIDDocument | null | undefined): string[] {
  return serviceUris(doc);
}

const SCHEME_ORDER = ['https', 'http', 'wss', 'ws', 'memory'];

/** The endpoint to use among `endpoints` for transports speaking `schemes`; `prefer` lists schemes to try first. */
export function chooseEndpoint(endpoints: string[], schemes: string[], prefer: string[] = []): string | undefined {
  const usable = endpoints.filter((e) => {
    try {
      return schemes.includes(schemeOf(e));
    } catch {
      return false;
    }
  });
  const rank = (e: string) => {
    const s = schemeOf(e);
    const p = prefer.indexOf(s);
    return p >= 0 ? p : prefer.length + (SCHEME_ORDER.indexOf(s) >= 0 ? SCHEME_ORDER.indexOf(s) : SCHEME_ORDER.length);
  };
  return usable.sort((a, b) => rank(a) - rank(b))[0];
}

/** Explicit endpoints by peer DID (the long and short forms of a did:ion or did:peer:4 share one entry: DID Peer §Method 4). */
export class Routes {
  private readonly map = new Map<string, string>();
  constructor(initial: Record<string, string> = {}) {
    for (const [did, url] of Object.entries(initial)) this.set(did, url);
  }
  set(did: string, endpoint: string): void {
    this.map.set(shortForm(didOf(did)), endpoint);
  }
  get(did: string): string | undefined {
    return this.map.get(shortForm(didOf(did)));
  }
  delete(did: string, endpoint?: string): void {
    const key = shortForm(didOf(did));
    if (endpoint === undefined || this.map.get(key) === endpoint) this.map.delete(key);
  }
}

/** The router's delivery function for the wallet. */
export function walletOutbound(o: { resolve: DocumentResolver; transport: Transport; routes: Routes }): Outbound {
  return async (packed, target) => {
    // target.endpoint is the router's `via`, else the first service of the peer's document.
    const given = target.endpoint && chooseEndpoint([target.endpoint], o.transport.schemes);
    const known = o.routes.get(target.to) ?? given;
    const route = known ? undefined : await peerRoute(target.to, o.resolve);
    const endpoint = known ?? chooseEndpoint(route!.endpoints, o.transport.schemes);
    if (!endpoint && route?.unresolved) throw new IdsyncError('did_not_resolved', `${route.unresolved.slice(0, 120)} did not resolve: no endpoint to deliver to for now`, { details: { did: route.unresolved } });
    if (!endpoint) throw new IdsyncError('no_endpoint', `${target.to} names no DIDComm endpoint the wallet can reach`, { details: { to: target.to } });
    return o.transport.send(endpoint, packed, { returnRoute: target.returnRoute, messageType: target.message.type, ...(target.mediaType ? { mediaType: target.mediaType } : {}) });
  };
}
