// Where a message for a peer DID goes (router/peer-route.ts), shared by the wallet and the
// service twin: a service URI as written, a mediator's DID replaced by that mediator's URIs
// (DIDComm v2.1 §Using a DID as an endpoint), routing keys collected, one level only.
import { describe, expect, it } from 'vitest';
import { createPeerDid } from '../../src/did/peer.js';
import type { DIDDocument } from '../../src/did/types.js';
import { peerRoute, serviceUris } from '../../src/router/peer-route.js';

const mediator = createPeerDid({ endpoint: 'https://mediator.example/didcomm' });
const viaDid = createPeerDid({ endpoint: mediator.did });
const viaKeys = createPeerDid({ endpoint: 'https://mediator.example/didcomm', routingKeys: [`${mediator.did}#key-2`] });
const direct = createPeerDid({ endpoint: 'https://alice.example/didcomm' });
const none = createPeerDid({});
const docs = new Map<string, DIDDocument>([mediator, viaDid, viaKeys, direct, none].map((d) => [d.did, d.document]));
const resolve = async (did: string) => docs.get(did.split('#')[0]) ?? null;

describe('peerRoute', () => {
  it('gives a direct endpoint as written', async () => {
    expect(await peerRoute(direct.did, resolve)).toEqual({ endpoints: ['https://alice.example/didcomm'], routingKeys: [] });
  });

  it("replaces a mediator's DID as the endpoint by the mediator's URIs, and names the mediator", async () => {
    expect(await peerRoute(`${viaDid.did}#key-2`, resolve)).toEqual({ endpoints: ['https://mediator.example/didcomm'], routingKeys: [], mediator: mediator.did });
  });

  it('keeps the URI and collects the routing keys of the routing-keys form', async () => {
    expect(await peerRoute(viaKeys.did, resolve)).toEqual({ endpoints: ['https://mediator.example/didcomm'], routingKeys: [`${mediator.did}#key-2`] });
  });

  it('gives nothing for a DID without a service, or one that does not resolve', async () => {
    expect(await peerRoute(none.did, resolve)).toEqual({ endpoints: [], routingKeys: [] });
    // One that does not resolve says so: it may have an endpoint later, a document naming none never will.
    const unresolvable = 'did:peer:2.Vz6MkqRYqQiSgvZQdnBytw86Qbs2ZWUkGv22od935YF4s8M7V';
    expect(await peerRoute(unresolvable, resolve)).toEqual({ endpoints: [], routingKeys: [], unresolved: unresolvable });
  });

  it('lists service URIs, DIDs included, as written', () => {
    expect(serviceUris(viaDid.document)).toEqual([mediator.did]);
  });
});
