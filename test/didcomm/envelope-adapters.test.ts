import { describe, expect, it } from 'vitest';
import { cachedLibraryDoc, libraryResolver, librarySecrets, toLibraryDoc } from '../../src/didcomm/envelope/adapters.js';
import { pack, unpack } from '../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import { createPeerDid } from '../../src/did/peer.js';
import type { DIDDocument, Secret } from '../../src/did/types.js';
import { base58btcEncode, multibaseEncode } from '../../src/encoding.js';
import { generateKeyPair, privateJwk, publicJwk, toMultikey } from '../../src/keys.js';
import { contextFor, makeParty, mapResolver, message } from './envelope-fixtures.js';

const ed = generateKeyPair('Ed25519');
const x = generateKeyPair('X25519');
const DID = 'did:example:zoe';

/** A document in the shapes other DID methods produce: Multikey, embedded, relative ids. */
function multikeyDoc(did = DID): DIDDocument {
  return {
    id: did,
    verificationMethod: [{ id: '#key-1', type: 'Multikey', controller: did, publicKeyMultibase: toMultikey(ed) }],
    authentication: ['#key-1'],
    keyAgreement: [{ id: '#key-2', type: 'Multikey', controller: did, publicKeyMultibase: toMultikey(x) }],
    service: [{ id: '#didcomm', type: 'DIDCommMessaging', serviceEndpoint: 'https://zoe.example' }],
  };
}

const zoeSecrets: Secret[] = [
  { id: `${DID}#key-1`, type: 'JsonWebKey2020', privateKeyJwk: privateJwk(ed) },
  { id: `${DID}#key-2`, type: 'JsonWebKey2020', privateKeyJwk: privateJwk(x) },
];

describe('toLibraryDoc', () => {
  it('puts every key in verificationMethod as a JsonWebKey2020 and references them by absolute id', () => {
    const lib = toLibraryDoc(multikeyDoc());
    expect(lib).toEqual({
      id: DID,
      authentication: [`${DID}#key-1`],
      keyAgreement: [`${DID}#key-2`],
      verificationMethod: [
        { id: `${DID}#key-1`, type: 'JsonWebKey2020', controller: DID, publicKeyJwk: publicJwk(ed) },
        { id: `${DID}#key-2`, type: 'JsonWebKey2020', controller: DID, publicKeyJwk: publicJwk(x) },
      ],
      service: [{ id: `${DID}#didcomm`, type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://zoe.example', routingKeys: [] } }],
    });
  });

  it('maps the 2018/2019/2020 Ed25519 and X25519 suites to JWKs', () => {
    const doc: DIDDocument = {
      id: DID,
      verificationMethod: [
        { id: `${DID}#a`, type: 'Ed25519VerificationKey2020', controller: DID, publicKeyMultibase: toMultikey(ed) },
        { id: `${DID}#b`, type: 'X25519KeyAgreementKey2020', controller: DID, publicKeyMultibase: toMultikey(x) },
        { id: `${DID}#c`, type: 'Ed25519VerificationKey2018', controller: DID, publicKeyBase58: base58btcEncode(ed.publicKey) },
        { id: `${DID}#d`, type: 'X25519KeyAgreementKey2019', controller: DID, publicKeyBase58: base58btcEncode(x.publicKey) },
        { id: `${DID}#e`, type: 'X25519KeyAgreementKey2019', controller: DID, publicKeyMultibase: multibaseEncode(x.publicKey) },
      ],
      authentication: [`${DID}#a`, `${DID}#c`],
      keyAgreement: [`${DID}#b`, `${DID}#d`, `${DID}#e`],
    };
    const lib = toLibraryDoc(doc);
    const jwks = Object.fromEntries(lib.verificationMethod.map((m) => [m.id.split('#')[1], m.publicKeyJwk]));
    expect(jwks).toEqual({ a: publicJwk(ed), b: publicJwk(x), c: publicJwk(ed), d: publicJwk(x), e: publicJwk(x) });
    expect(lib.verificationMethod.every((m) => m.type === 'JsonWebKey2020')).toBe(true);
    expect(lib.service).toEqual([]);
  });

  it('leaves out keys it cannot express and the references to them; keeps other curves for the library to judge', () => {
    const p256 = { kty: 'EC', crv: 'P-256', x: 'FQVaTOksf-XsCUrt4J1L2UGvtWaDwpboVlqbKBY2AIo', y: '6XFB9PYo7dyC5ViJSO9uXNYkxTJWn0d_mqJ__ZYhcNY' };
    const doc: DIDDocument = {
      id: DID,
      verificationMethod: [
        { id: `${DID}#p256`, type: 'JsonWebKey2020', controller: DID, publicKeyJwk: { ...p256, d: 'must-not-pass' } as never },
        { id: `${DID}#bls`, type: 'Multikey', controller: DID, publicKeyMultibase: 'zUC7EK3ZakmukHhuncwkbySmomv3FmrkmS36E4Ks5rsb6VQSRpoCrx6Hb8e2Nk6UvJFSdyw9NK1scFXJp21gNNYFjVWNgaqyGnkyhtagagCpQb5B7tagJu3HDbjQ8h5ypoHjwBb' },
        { id: `${DID}#none`, type: 'JsonWebKey2020', controller: DID },
      ],
      keyAgreement: [`${DID}#p256`, `${DID}#bls`, `${DID}#none`, 'did:example:other#key-1'],
    };
    const lib = toLibraryDoc(doc);
    expect(lib.verificationMethod.map((m) => m.id)).toEqual([`${DID}#p256`]);
    expect(lib.verificationMethod[0].publicKeyJwk).toEqual(p256);
    expect(lib.keyAgreement).toEqual([`${DID}#p256`]);
  });

  it('reads service endpoints as a string, an object (routingKeys or routing_keys) or DIDComm v2.0 service-level fields', () => {
    const doc: DIDDocument = {
      id: DID,
      service: [
        { id: '#a', type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://a', accept: ['didcomm/v2'], routingKeys: ['did:example:m#key-2'] } },
        { id: '#b', type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://b', routing_keys: ['did:example:m#key-2'] } },
        { id: '#c', type: 'DIDCommMessaging', serviceEndpoint: 'https://c', routingKeys: ['did:example:m#key-2'], accept: ['didcomm/v2'] },
        { id: '#d', type: ['DIDCommMessaging'], serviceEndpoint: [{ uri: 'https://d' }] } as never,
        { id: '#web', type: 'LinkedDomains', serviceEndpoint: 'https://zoe.example' },
        { type: 'DIDCommMessaging', serviceEndpoint: 'https://e' } as never,
      ],
    };
    expect(toLibraryDoc(doc).service).toEqual([
      { id: `${DID}#a`, type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://a', accept: ['didcomm/v2'], routingKeys: ['did:example:m#key-2'] } },
      { id: `${DID}#b`, type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://b', routingKeys: ['did:example:m#key-2'] } },
      { id: `${DID}#c`, type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://c', accept: ['didcomm/v2'], routingKeys: ['did:example:m#key-2'] } },
      { id: `${DID}#d`, type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://d', routingKeys: [] } },
      { id: `${DID}#service-5`, type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://e', routingKeys: [] } },
    ]);
  });

  it('rewrites ids to the ion form (long or short) the library asked for', () => {
    const suffix = 'EiDahaOGH-liLLdDtTxEAdc8i-cfCz-WUcQdRJheMVNn3A';
    const long = `did:ion:${suffix}:eyJkZWx0YSI6eyJwYXRjaGVzIjpbXX19`;
    const short = `did:ion:${suffix}`;
    const lib = toLibraryDoc({ ...multikeyDoc(long), verificationMethod: [{ id: `${long}#key-1`, type: 'Multikey', controller: long, publicKeyMultibase: toMultikey(ed) }] }, short);
    expect(lib.id).toBe(short);
    expect(lib.authentication).toEqual([`${short}#key-1`]);
    expect(lib.verificationMethod.map((m) => [m.id, m.controller])).toEqual([
      [`${short}#key-1`, short],
      [`${short}#key-2`, short],
    ]);
  });

  it('converts a document once and reuses the result', () => {
    const doc = multikeyDoc();
    expect(cachedLibraryDoc(doc)).toBe(cachedLibraryDoc(doc));
    expect(cachedLibraryDoc(multikeyDoc())).not.toBe(cachedLibraryDoc(doc));
  });
});

describe('library resolver and secrets adapters', () => {
  it('resolves each DID once per call, and answers null for a document of another DID', async () => {
    const other = { ...multikeyDoc(), id: 'did:example:someone-else' };
    const resolve = mapResolver(new Map([[DID, multikeyDoc()], ['did:example:liar', other]]));
    const lib = libraryResolver(resolve, {});
    const [a, b] = await Promise.all([lib.resolve(DID), lib.resolve(DID)]);
    expect(a).toBe(b);
    expect(resolve.calls).toEqual([DID]);
    await expect(lib.resolve('did:example:liar')).resolves.toBeNull();
    await expect(lib.resolve('did:example:nobody')).resolves.toBeNull();
  });

  it('asks the resolver once for a did:peer:2 or did:key DID (fixed by the DID), every call for others', async () => {
    const peer = createPeerDid();
    const alice = makeParty('alice');
    const resolve = mapResolver([peer.document, alice.doc]);
    for (let i = 0; i < 3; i++) {
      const lib = libraryResolver(resolve, {});
      expect((await lib.resolve(peer.did))?.keyAgreement).toEqual([`${peer.did}#key-1`]);
      await lib.resolve(alice.did);
    }
    expect(resolve.calls.filter((d) => d === peer.did)).toHaveLength(1);
    expect(resolve.calls.filter((d) => d === alice.did)).toHaveLength(3);
    // Another resolver is asked afresh.
    const other = mapResolver([peer.document]);
    await libraryResolver(other, {}).resolve(peer.did);
    expect(other.calls).toEqual([peer.did]);
  });

  it('returns Promises and the secret under the kid asked for', async () => {
    const lib = librarySecrets(memorySecrets(zoeSecrets), {});
    const found = lib.find_secrets([`${DID}#key-2`, `${DID}#key-9`]);
    expect(found).toBeInstanceOf(Promise);
    expect(await found).toEqual([`${DID}#key-2`]);
    const got = lib.get_secret(`${DID}#key-2`);
    expect(got).toBeInstanceOf(Promise);
    expect(await got).toMatchObject({ id: `${DID}#key-2`, type: 'JsonWebKey2020' });
    expect(await lib.get_secret(`${DID}#key-9`)).toBeNull();
  });

  it('memorySecrets finds a key by the short-form or the long-form ion kid', async () => {
    const suffix = 'EiDahaOGH-liLLdDtTxEAdc8i-cfCz-WUcQdRJheMVNn3A';
    const long = `did:ion:${suffix}:eyJkZWx0YSI6eyJwYXRjaGVzIjpbXX19`;
    const short = `did:ion:${suffix}`;
    const held = memorySecrets([{ id: `${long}#key-2`, type: 'JsonWebKey2020', privateKeyJwk: privateJwk(x) }]);
    expect(await held.find([`${short}#key-2`, `${long}#key-2`, `${short}#key-1`])).toEqual([`${short}#key-2`, `${long}#key-2`]);
    expect((await held.get(`${short}#key-2`))?.id).toBe(`${short}#key-2`);
    const byShort = memorySecrets([{ id: `${short}#key-2`, type: 'JsonWebKey2020', privateKeyJwk: privateJwk(x) }]);
    expect((await byShort.get(`${long}#key-2`))?.privateKeyJwk.x).toBe(publicJwk(x).x);
  });
});

describe('envelopes with converted documents', () => {
  it('packs and unpacks for a party whose document uses Multikey, embedded and relative keys', async () => {
    const alice = makeParty('alice');
    const resolve = mapResolver([alice.doc, multikeyDoc()]);
    const zoe = { resolve, secrets: memorySecrets(zoeSecrets) };
    const toZoe = { ...message(alice, undefined), to: [DID] };
    for (const mode of ['authcrypt', 'authcrypt-signed', 'anoncrypt'] as const) {
      const p = await pack(toZoe, { mode }, contextFor(alice, resolve));
      expect(p.serviceEndpoint).toBe('https://zoe.example');
      expect((await unpack(p.packed, zoe)).metadata.mode).toBe(mode);
    }
    const fromZoe = { ...message(undefined, alice), from: DID };
    for (const mode of ['signed', 'authcrypt-signed'] as const) {
      const p = await pack(fromZoe, { mode }, zoe);
      expect((await unpack(p.packed, contextFor(alice, resolve))).metadata).toMatchObject({ mode, signFrom: `${DID}#key-1` });
    }
  });

  it('round-trips between an ion long-form party and a peer who only knows the short form', async () => {
    const suffix = 'EiDahaOGH-liLLdDtTxEAdc8i-cfCz-WUcQdRJheMVNn3A';
    const long = `did:ion:${suffix}:eyJkZWx0YSI6eyJwYXRjaGVzIjpbXX19`;
    const short = `did:ion:${suffix}`;
    const ion = makeParty('ion', { did: long });
    const alice = makeParty('alice');
    // The resolver knows the short form (as a registry would) and returns the long-form document.
    const resolve = mapResolver(new Map([[alice.did, alice.doc], [long, ion.doc], [short, ion.doc]]));
    const ionCtx = contextFor(ion, resolve);
    const toShort = { ...message(alice, undefined), to: [short] };
    const p = await pack(toShort, { mode: 'authcrypt' }, contextFor(alice, resolve));
    expect(p.toKids).toEqual([`${short}#key-2`]);
    expect((await unpack(p.packed, ionCtx)).message.to).toEqual([short]);
    const reply = await pack({ ...message(undefined, alice), from: short }, { mode: 'authcrypt-signed' }, ionCtx);
    expect((await unpack(reply.packed, contextFor(alice, resolve))).metadata).toMatchObject({ signFrom: `${short}#key-1`, encryptedFromKid: `${short}#key-2` });
  });
});
