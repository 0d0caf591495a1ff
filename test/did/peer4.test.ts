import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { absoluteId } from '../../src/did/document.js';
import { resolvePeerDid } from '../../src/did/peer.js';
import { createPeerDid4, decodePeerDid4, encodePeerDid4, peer4ShortForm, resolvePeer4 } from '../../src/did/peer4.js';
import { createResolver } from '../../src/did/resolver.js';
import { base58btcEncode, multibaseEncode, sha256Multihash } from '../../src/encoding.js';
import { keyPairFromJwk, toMultikey } from '../../src/keys.js';

// DIF Peer DID Method Specification §Method 4, its example (fixtures/did/README.md).
const spec = JSON.parse(readFileSync(new URL('../../fixtures/did/peer4-spec.json', import.meta.url), 'utf8'));

/** The spec keeps relative ids; ours are absolute (§Method 4 "Long form" allows either). */
function absolute(did: string, doc: any) {
  const abs = (r: string) => absoluteId(did, r);
  return {
    ...doc,
    verificationMethod: doc.verificationMethod.map((m: any) => ({ ...m, id: abs(m.id) })),
    service: doc.service.map((s: any) => ({ ...s, id: abs(s.id) })),
    ...Object.fromEntries(['authentication', 'keyAgreement', 'assertionMethod', 'capabilityDelegation', 'capabilityInvocation'].map((r) => [r, doc[r].map(abs)])),
  };
}

const registry = (long: string) => ({ get: async (did: string) => (did === peer4ShortForm(long) ? long : undefined) });

describe('did:peer:4', () => {
  it('resolves the spec example long form to the spec document', async () => {
    const result = await resolvePeer4(spec.long);
    expect(result.didResolutionMetadata.error).toBeUndefined();
    expect(result.didDocument).toEqual(absolute(spec.long, spec.longDocument));
    expect(result.didDocumentMetadata.equivalentId).toEqual([spec.short]);
    expect(resolvePeerDid(spec.long)).toEqual(result.didDocument);
  });

  it('re-encodes the decoded spec input document to the same long form and short form', () => {
    expect(peer4ShortForm(spec.long)).toBe(spec.short);
    expect(encodePeerDid4(decodePeerDid4(spec.long))).toEqual({ long: spec.long, short: spec.short });
  });

  it('resolves the short form only once its long form is known, to the spec short-form document', async () => {
    expect((await resolvePeer4(spec.short)).didResolutionMetadata.error).toBe('notFound');
    const result = await resolvePeer4(spec.short, registry(spec.long));
    expect(result.didDocument).toEqual(absolute(spec.short, spec.shortDocument));
    expect(result.didDocumentMetadata.equivalentId).toEqual([spec.long]);
    // A registry entry that is not this short form's long form is not taken.
    const other = createPeerDid4().did;
    expect((await resolvePeer4(spec.short, { get: async () => other })).didResolutionMetadata.error).toBe('notFound');
  });

  it('refuses a long form whose hash does not match its document, and malformed ones, with invalidDid', async () => {
    const [, encoded] = spec.long.split(/:(?=z[^:]*$)/);
    const wrongHash = `did:peer:4zQmS19jtYDvGtKVrJhQnRFpBQAx3pJ9omx2HpNrcXFuRCz9:${encoded}`;
    // A well-hashed long form whose document has a root id (§Method 4: "MUST NOT include an id at the root").
    const encodedWithId = `z${base58btcEncode(Uint8Array.from([0x80, 0x04, ...Buffer.from('{"id":"did:example:1"}')]))}`;
    const withId = `did:peer:4${multibaseEncode(sha256Multihash(encodedWithId))}:${encodedWithId}`;
    for (const bad of [wrongHash, 'did:peer:4', 'did:peer:4zQm123', `${spec.short}:z0OIl`, withId]) {
      const result = await resolvePeer4(bad);
      expect(result.didResolutionMetadata.error, bad).toBe('invalidDid');
      expect(result.didDocument).toBeNull();
    }
    expect(() => encodePeerDid4({ id: 'did:example:1' })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('creates a long form whose keys, service and secrets match, and which the resolver registry maps from its short form', async () => {
    const created = createPeerDid4({ endpoint: 'https://agent.example/didcomm' });
    const { did, shortDid, document: doc } = created;
    expect(shortDid).toBe(peer4ShortForm(did));
    expect(doc.keyAgreement).toEqual([`${did}#key-1`]);
    expect(doc.authentication).toEqual([`${did}#key-2`]);
    expect(doc.alsoKnownAs).toEqual([shortDid]);
    expect(doc.service).toEqual([{ id: `${did}#didcomm`, type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://agent.example/didcomm', accept: ['didcomm/v2'], routingKeys: [] } }]);
    for (const [i, s] of created.secrets.entries()) expect(toMultikey(keyPairFromJwk(s.privateKeyJwk))).toBe(doc.verificationMethod![i].publicKeyMultibase);
    const resolver = createResolver({ registry: registry(did), cache: false });
    expect((await resolver.resolve(did)).didDocument).toEqual(doc);
    expect((await resolver.resolve(shortDid!)).didDocument?.verificationMethod?.[0].id).toBe(`${shortDid}#key-1`);
  });
});
