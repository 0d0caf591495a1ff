import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { b64uDecodeText, base58btcEncode } from '../../src/encoding.js';
import { absoluteId } from '../../src/did/document.js';
import {
  abbreviateService, createPeerDid, encodePeerDid2, expandService, peerDid3, resolvePeer, resolvePeerDid,
} from '../../src/did/peer.js';
import { keyPairFromJwk, toMultikey } from '../../src/keys.js';

const spec = JSON.parse(readFileSync(new URL('../../fixtures/did/peer-did-spec.json', import.meta.url), 'utf8'));

/** The spec writes relative ids; we resolve to absolute ones and always set controller. */
function absolute(did: string, doc: any) {
  return {
    ...doc,
    id: did,
    verificationMethod: doc.verificationMethod.map((m: any) => ({ ...m, id: absoluteId(did, m.id), controller: did })),
    authentication: doc.authentication.map((r: string) => absoluteId(did, r)),
    keyAgreement: doc.keyAgreement.map((r: string) => absoluteId(did, r)),
    service: doc.service.map((s: any) => ({ ...s, id: absoluteId(did, s.id) })),
  };
}

describe('did:peer:2', () => {
  it('abbreviates a DIDComm service as the spec does (type→t, DIDCommMessaging→dm, serviceEndpoint→s, accept→a, routingKeys→r)', () => {
    const abbreviated = abbreviateService(spec.method2.inputService);
    expect(JSON.stringify(abbreviated)).toBe(spec.method2.abbreviatedService);
    expect(expandService(abbreviated)).toEqual(spec.method2.inputService);
  });

  it("expands a service's names by the spec's abbreviations only, never by what every object inherits", () => {
    // A did:peer:2 service is the DID author's JSON: "constructor" is no abbreviation, "__proto__" a member like any other.
    expect(expandService({ t: 'constructor', s: 'https://x.example', constructor: 1 })).toEqual({ type: 'constructor', serviceEndpoint: 'https://x.example', constructor: 1 });
    const expanded = expandService(JSON.parse('{"t":"dm","__proto__":{"s":"https://elsewhere.example"}}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(expanded)).toBe(Object.prototype);
    expect(Object.keys(expanded)).toEqual(['type', '__proto__']);
    expect((expanded as { serviceEndpoint?: unknown }).serviceEndpoint).toBeUndefined();
  });

  it('encodes the spec example DID from its keys and services', () => {
    const services = spec.method2.document.service.map(({ id: _id, ...s }: any) => s);
    const did = encodePeerDid2({
      keys: [
        { purpose: 'V', publicKeyMultibase: 'z6Mkj3PUd1WjvaDhNZhhhXQdz5UnZXmS7ehtx8bsPpD47kKc' },
        { purpose: 'E', publicKeyMultibase: 'z6LSg8zQom395jKLrGiBNruB9MM6V8PWuf2FpEy4uRFiqQBR' },
      ],
      services,
    });
    expect(did).toBe(spec.method2.did);
  });

  it('resolves the spec example to the spec document, ids made absolute (#key-1, #key-2, #service, #service-1)', () => {
    const doc = resolvePeerDid(spec.method2.did);
    expect(doc).toEqual(absolute(spec.method2.did, spec.method2.document));
  });

  it('round-trips a created DID: E before V, each key once, service with routing keys, secrets matching key ids', () => {
    const created = createPeerDid({ endpoint: 'https://agent.example/didcomm', routingKeys: ['did:example:mediator#key-2'] });
    const { did, document: doc } = created;
    expect(did).toMatch(/^did:peer:2\.Ez6LS[^.]+\.Vz6Mk[^.]+\.S[A-Za-z0-9_-]+$/);
    expect(resolvePeerDid(did)).toEqual(doc);
    expect(doc.verificationMethod!.map((m) => m.id)).toEqual([`${did}#key-1`, `${did}#key-2`]);
    expect(doc.keyAgreement).toEqual([`${did}#key-1`]);
    expect(doc.authentication).toEqual([`${did}#key-2`]);
    expect(doc.service).toEqual([{
      id: `${did}#didcomm`,
      type: 'DIDCommMessaging',
      serviceEndpoint: { uri: 'https://agent.example/didcomm', accept: ['didcomm/v2'], routingKeys: ['did:example:mediator#key-2'] },
    }]);
    const encoded = JSON.parse(b64uDecodeText(did.split('.S')[1]));
    expect(encoded).toEqual({ id: '#didcomm', t: 'dm', s: { uri: 'https://agent.example/didcomm', a: ['didcomm/v2'], r: ['did:example:mediator#key-2'] } });
    expect(created.secrets.map((s) => s.id)).toEqual([`${did}#key-1`, `${did}#key-2`]);
    for (const [i, s] of created.secrets.entries()) {
      expect(s.privateKeyJwk.kid).toBe(s.id);
      expect(toMultikey(keyPairFromJwk(s.privateKeyJwk))).toBe(doc.verificationMethod![i].publicKeyMultibase);
    }
  });

  it('still resolves the older V-before-E form and a key listed under two purposes, by the DIF numbering', () => {
    const v = 'z6Mkj3PUd1WjvaDhNZhhhXQdz5UnZXmS7ehtx8bsPpD47kKc';
    const e = 'z6LSg8zQom395jKLrGiBNruB9MM6V8PWuf2FpEy4uRFiqQBR';
    const did = encodePeerDid2({ keys: [{ purpose: 'V', publicKeyMultibase: v }, { purpose: 'A', publicKeyMultibase: v }, { purpose: 'E', publicKeyMultibase: e }] });
    const doc = resolvePeerDid(did);
    expect(doc.verificationMethod!.map((m) => [m.id.split('#')[1], m.publicKeyMultibase])).toEqual([['key-1', v], ['key-2', v], ['key-3', e]]);
    expect([doc.authentication, doc.assertionMethod, doc.keyAgreement]).toEqual([[`${did}#key-1`], [`${did}#key-2`], [`${did}#key-3`]]);
  });

  it('has an empty service list without an endpoint', () => {
    const { did, document } = createPeerDid();
    expect(did).not.toContain('.S');
    expect(document.service).toEqual([]);
  });

  it('gives DIDComm v2.0 services (string endpoint) the object endpoint form', () => {
    const doc = resolvePeerDid(spec.method3.peer2);
    expect(doc.verificationMethod!.map((m) => m.id.split('#')[1])).toEqual(['key-1', 'key-2', 'key-3']);
    expect(doc.keyAgreement).toEqual([`${spec.method3.peer2}#key-1`]);
    expect(doc.service).toEqual([{
      id: `${spec.method3.peer2}#service`,
      type: 'DIDCommMessaging',
      serviceEndpoint: { uri: 'https://example.com/endpoint', accept: ['didcomm/v2', 'didcomm/aip2;env=rfc587'], routingKeys: ['did:example:somemediator#somekey'] },
    }]);
  });

  it('rejects malformed did:peer:2 DIDs with invalidDid', async () => {
    // An X25519 (0xec01) or Ed25519 (0xed01) key of another length than 32 bytes, and a key longer than any.
    const wrongLength = (codec: number, n: number) => `z${base58btcEncode(new Uint8Array([codec, 0x01, ...new Uint8Array(n).fill(7)]))}`;
    const wrongKeys = [`did:peer:2.E${wrongLength(0xec, 40)}`, `did:peer:2.V${wrongLength(0xed, 31)}`, `did:peer:2.Ez6LS${'a'.repeat(5000)}`];
    for (const bad of ['did:peer:2', 'did:peer:2.X123', 'did:peer:2.Vnotbase58!', 'did:peer:2.S!!!', `did:peer:2.S${Buffer.from('[1]').toString('base64url')}`, ...wrongKeys]) {
      const result = await resolvePeer(bad);
      expect(result.didResolutionMetadata.error, bad).toBe('invalidDid');
      expect(result.didDocument).toBeNull();
    }
  });
});

describe('did:peer:0 and did:peer:3', () => {
  it('resolves did:peer:0 like the equivalent did:key', () => {
    const doc = resolvePeerDid('did:peer:0z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK');
    expect(doc.keyAgreement).toEqual(['did:peer:0z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK#z6LSj72tK8brWgZja8NLRwPigth2T9QRiG1uH9oKZuKjdh9p']);
  });

  it('computes did:peer:3 as in the spec', () => {
    expect(peerDid3(spec.method3.peer2)).toBe(spec.method3.peer3);
  });

  it('resolves did:peer:3 only when the registry holds its did:peer:2', async () => {
    const { peer2, peer3 } = spec.method3;
    expect((await resolvePeer(peer3)).didResolutionMetadata.error).toBe('notFound');
    const registry = { get: async (did: string) => (did === peer3 ? peer2 : undefined) };
    const result = await resolvePeer(peer3, registry);
    expect(result.didDocument?.id).toBe(peer3);
    expect(result.didDocument?.verificationMethod?.[0].id).toBe(`${peer3}#key-1`);
    expect(result.didDocumentMetadata.equivalentId).toEqual([peer2]);
    // A registry entry that does not hash to the did:peer:3 is ignored.
    const wrong = { get: async () => createPeerDid().did };
    expect((await resolvePeer(peer3, wrong)).didResolutionMetadata.error).toBe('notFound');
  });

  it('reports other numalgos as not supported', async () => {
    expect((await resolvePeer('did:peer:1zQmZMygzYqNwU6Uhmewx5Xepf2VLp5S4HLSwwgf2aiKZuwa')).didResolutionMetadata.error).toBe('methodNotSupported');
  });
});

describe('did:peer:2 as the Identus SDK writes it', () => {
  const identus = JSON.parse(readFileSync(new URL('../../fixtures/did/identus-castor.json', import.meta.url), 'utf8'));

  it('resolves a DID without services (`.SW10`, an empty JSON list) with a warning, not a failure', async () => {
    const result = await resolvePeer(identus.noService);
    expect(result.didResolutionMetadata.error).toBeUndefined();
    expect(result.didResolutionMetadata.warnings).toEqual([expect.objectContaining({ code: 'peer2_service_list', message: expect.stringContaining('MUST NOT be encoded as a JSON list') })]);
    const doc = result.didDocument!;
    expect(doc.service).toEqual([]);
    expect(doc.keyAgreement).toEqual([`${identus.noService}#key-1`]);
    expect(doc.authentication).toEqual([`${identus.noService}#key-2`]);
  });

  it('reads services Castor wrote as one JSON list, ids by the DIF defaults, with the same warning', async () => {
    const result = await resolvePeer(identus.twoServices);
    expect(result.didResolutionMetadata.warnings).toHaveLength(1);
    expect(result.didDocument!.service!.map((s) => [s.id.split('#')[1], (s.serviceEndpoint as { uri: string }).uri])).toEqual([['service', identus.twoServicesEndpoints[0]], ['service-1', identus.twoServicesEndpoints[1]]]);
  });

  it('gives a DID written per the spec no warning, and refuses a list holding something other than services', async () => {
    expect((await resolvePeer(createPeerDid({ endpoint: 'https://a.example' }).did)).didResolutionMetadata.warnings).toBeUndefined();
    const bad = `${identus.noService.slice(0, -4)}.S${Buffer.from('[1]').toString('base64url')}`;
    expect((await resolvePeer(bad)).didResolutionMetadata.error).toBe('invalidDid');
  });
});
