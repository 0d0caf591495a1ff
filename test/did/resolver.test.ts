import { describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createIonDid } from '../../src/did/ion.js';
import { createKeyDid } from '../../src/did/key.js';
import { createPeerDid } from '../../src/did/peer.js';
import { createResolver, documentResolver, resolutionCache } from '../../src/did/resolver.js';
import type { DidRegistry } from '../../src/did/types.js';

function mapRegistry(entries: [string, string][] = []): DidRegistry & { map: Map<string, string> } {
  const map = new Map(entries);
  return { map, get: async (did) => map.get(did) };
}

describe('createResolver', () => {
  it('resolves ion long forms, peer and key DIDs through one Resolver', async () => {
    const resolver = createResolver();
    for (const created of [createIonDid({ endpoint: 'https://a.example' }), createPeerDid({ endpoint: 'https://a.example' }), createKeyDid()]) {
      const result = await resolver.resolve(created.did);
      expect(result.didResolutionMetadata).toEqual({ contentType: 'application/did+ld+json' });
      expect(result.didDocument).toEqual(created.document);
    }
  });

  it('answers invalidDid for strings that are not DIDs or are malformed for their method', async () => {
    const resolver = createResolver();
    for (const bad of ['', 'hello', 'did:', 'did:ion', 'did:ion:abc', 'did:key:abc', 'did:peer:2.Xabc', 'did:web:%ZZ', 'DID:key:z6Mk']) {
      const result = await resolver.resolve(bad);
      expect(result.didResolutionMetadata.error, bad).toBe('invalidDid');
      expect(result.didDocument, bad).toBeNull();
    }
  });

  it('answers methodNotSupported for an unknown method', async () => {
    const result = await createResolver().resolve('did:example:123');
    expect(result.didResolutionMetadata.error).toBe('methodNotSupported');
    expect(result.didDocument).toBeNull();
  });

  it('answers invalidDid for a tampered ion long form', async () => {
    const { did } = createIonDid();
    const parts = did.split(':');
    const other = createIonDid().did.split(':')[3];
    const result = await createResolver().resolve(`${parts.slice(0, 3).join(':')}:${other}`);
    expect(result.didResolutionMetadata).toMatchObject({ error: 'invalidDid', message: expect.stringContaining('suffix') });
  });
});

describe('did:ion short form and metadata', () => {
  it('gives the long form equivalentId = [short form] and no canonicalId while unregistered (Sidetree §DID Resolver Output)', async () => {
    const created = createIonDid();
    const result = await createResolver().resolve(created.did);
    expect(result.didDocumentMetadata).toMatchObject({ equivalentId: [created.shortDid], method: { published: false } });
    expect(result.didDocumentMetadata.canonicalId).toBeUndefined();
    expect(result.didDocumentMetadata.method.updateCommitment).toMatch(/^Ei[A-D][A-Za-z0-9_-]{43}$/);
  });

  it('answers notFound for a short form the registry does not know', async () => {
    const created = createIonDid();
    const result = await createResolver({ registry: mapRegistry() }).resolve(created.shortDid!);
    expect(result.didResolutionMetadata.error).toBe('notFound');
    expect((await createResolver().resolve(created.shortDid!)).didResolutionMetadata.error).toBe('notFound');
  });

  it('resolves a known short form with id = short DID and short key ids', async () => {
    const created = createIonDid({ endpoint: 'https://a.example' });
    const short = created.shortDid!;
    const resolver = createResolver({ registry: mapRegistry([[short, created.did]]) });
    const result = await resolver.resolve(`${short}#key-2`);
    const doc = result.didDocument!;
    expect(doc.id).toBe(short);
    expect(doc.verificationMethod!.map((m) => m.id)).toEqual([`${short}#key-1`, `${short}#key-2`]);
    expect(doc.keyAgreement).toEqual([`${short}#key-2`]);
    expect(doc.service![0].id).toBe(`${short}#didcomm`);
    expect(result.didDocumentMetadata).toMatchObject({ canonicalId: short, equivalentId: [created.did] });
    // Once registered, the long form names the short form as canonical.
    expect((await resolver.resolve(created.did)).didDocumentMetadata).toMatchObject({ canonicalId: short, equivalentId: [short] });
  });

  it('ignores a registry entry that is the long form of another DID', async () => {
    const a = createIonDid();
    const b = createIonDid();
    const result = await createResolver({ registry: mapRegistry([[a.shortDid!, b.did]]) }).resolve(a.shortDid!);
    expect(result.didResolutionMetadata.error).toBe('notFound');
  });

  it('answers notFound when the registry throws', async () => {
    const registry: DidRegistry = { get: async () => { throw new Error('store closed'); } };
    const result = await createResolver({ registry }).resolve(createIonDid().shortDid!);
    expect(result.didResolutionMetadata.error).toBe('notFound');
  });
});

describe('documentResolver', () => {
  it('returns the document, or null when resolution fails, and refuses a DID that never will resolve', async () => {
    const resolve = documentResolver(createResolver());
    const created = createPeerDid();
    expect(await resolve(created.did)).toEqual(created.document);
    expect(await resolve('did:example:1')).toBeNull();
    expect(await resolve(createIonDid().shortDid!)).toBeNull();
    // DID Resolution §7.1.2 invalidDid: no later attempt can succeed, so it is an error of its own.
    for (const bad of ['not a did', 'did:key:zzz', 'did:peer:2.garbage']) {
      await expect(resolve(bad), bad).rejects.toMatchObject({ code: 'invalid_did', details: { did: bad } });
    }
  });
});

describe('resolutionCache', () => {
  it('caches successes until the TTL passes, never errors, and hands out frozen results', async () => {
    const clock = new ManualClock();
    const created = createIonDid();
    const registry = mapRegistry();
    let lookups = 0;
    const counting: DidRegistry = { get: async (did) => { lookups++; return registry.get(did); } };
    const resolver = createResolver({ registry: counting, cache: resolutionCache({ ttlMs: 1000, clock, max: 10 }) });

    expect((await resolver.resolve(created.shortDid!)).didResolutionMetadata.error).toBe('notFound');
    registry.map.set(created.shortDid!, created.did);
    const first = await resolver.resolve(created.shortDid!); // the notFound was not cached
    expect(first.didDocument?.id).toBe(created.shortDid);
    expect(lookups).toBe(2);

    expect(() => {
      first.didDocument!.id = 'changed by a caller';
    }).toThrow(TypeError);
    const second = await resolver.resolve(`${created.shortDid}#key-1`);
    expect(second.didDocument?.id).toBe(created.shortDid);
    expect(lookups).toBe(2);

    clock.advance(1000);
    await resolver.resolve(created.shortDid!);
    expect(lookups).toBe(3);
    await resolver.resolve(created.shortDid!, { cache: false });
    expect(lookups).toBe(4);
  });

  it('answers a cached DID asked for by itself from the cache, the same frozen result, until the TTL passes', async () => {
    const clock = new ManualClock();
    const created = createIonDid();
    const cache = resolutionCache({ ttlMs: 1000, clock }) as ReturnType<typeof resolutionCache> & { peek(did: string): unknown };
    const resolver = createResolver({ cache });
    expect(cache.peek(created.did)).toBeUndefined();
    const first = await resolver.resolve(created.did);
    expect(cache.peek(created.did)).toBe(first);
    expect(await resolver.resolve(created.did)).toBe(first);
    expect(cache.peek(`${created.did}#key-1`)).toBeUndefined(); // only DIDs are keys: a DID URL takes the full path
    expect((await resolver.resolve(`${created.did}#key-1`)).didDocument).toBe(first.didDocument);
    clock.advance(1000);
    expect(cache.peek(created.did)).toBeUndefined();
    expect(await resolver.resolve(created.did)).not.toBe(first);
  });

  it('evicts the least recently used entry beyond max', async () => {
    let calls = 0;
    const cache = resolutionCache({ max: 2 });
    const resolve = (did: string) => cache({ did, method: 'key', id: '', didUrl: did }, async () => {
      calls++;
      return { didResolutionMetadata: {}, didDocument: { id: did }, didDocumentMetadata: {} };
    });
    await resolve('did:key:a');
    await resolve('did:key:b');
    await resolve('did:key:a');
    await resolve('did:key:c'); // evicts b
    expect(calls).toBe(3);
    await resolve('did:key:a');
    expect(calls).toBe(3);
    await resolve('did:key:b');
    expect(calls).toBe(4);
  });

  it("freezes a did:ion or did:key result its method resolver built for the call as it is, and a copy of anyone else's", async () => {
    const clone = vi.spyOn(globalThis, 'structuredClone');
    try {
      const resolver = createResolver();
      for (const created of [createIonDid({ endpoint: 'https://a.example' }), createKeyDid()]) {
        const result = await resolver.resolve(created.did);
        expect(Object.isFrozen(result.didDocument!.verificationMethod![0])).toBe(true);
        expect(result.didDocument).toEqual(created.document);
      }
      expect(clone).not.toHaveBeenCalled();
      // A result the cache did not see being made may be held by its maker: frozen is a copy.
      const shared = { didResolutionMetadata: {}, didDocument: { id: 'did:key:x', service: [] }, didDocumentMetadata: {} };
      const got = await resolutionCache()({ did: 'did:key:x', method: 'key', id: 'x', didUrl: 'did:key:x' }, async () => shared);
      expect(clone).toHaveBeenCalledTimes(1);
      expect(Object.isFrozen(got.didDocument)).toBe(true);
      expect(Object.isFrozen(shared.didDocument)).toBe(false);
    } finally {
      clone.mockRestore();
    }
  });
});
