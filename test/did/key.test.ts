import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { base58btcDecode } from '../../src/encoding.js';
import { createKeyDid, resolveKey, resolveKeyDid } from '../../src/did/key.js';
import { fromMultikey, keyPairFromJwk } from '../../src/keys.js';

const vectors = JSON.parse(readFileSync(new URL('../../fixtures/did/did-key-ed25519-x25519.json', import.meta.url), 'utf8'));
const hex = (s: string) => new Uint8Array(Buffer.from(s, 'hex'));

describe('did:key', () => {
  it('resolves the did:key spec example with its derived X25519 key agreement key', () => {
    const doc = resolveKeyDid(vectors.specExample.did);
    expect(doc.keyAgreement).toEqual([vectors.specExample.keyAgreementId]);
  });

  it.each(vectors.vectors as any[])('matches the CCG Ed25519/X25519 vector $did', (v) => {
    const doc = resolveKeyDid(v.did);
    const edId = `${v.did}#${v.did.slice('did:key:'.length)}`;
    const xId = `${v.did}${v.keyAgreementId}`;
    expect(doc.id).toBe(v.did);
    expect(doc.verificationMethod!.map((m) => [m.id, m.type, m.controller])).toEqual([
      [edId, 'Multikey', v.did],
      [xId, 'Multikey', v.did],
    ]);
    expect(fromMultikey(doc.verificationMethod![0].publicKeyMultibase!).publicKey).toEqual(base58btcDecode(v.ed25519PublicKeyBase58));
    expect(fromMultikey(doc.verificationMethod![1].publicKeyMultibase!).publicKey).toEqual(base58btcDecode(v.x25519PublicKeyBase58));
    for (const rel of ['authentication', 'assertionMethod', 'capabilityInvocation', 'capabilityDelegation'] as const) expect(doc[rel]).toEqual([edId]);
    expect(doc.keyAgreement).toEqual([xId]);
    expect(doc.service).toEqual([]);

    // Creating from the vector's seed gives the same DID, and the derived X25519 private key.
    const created = createKeyDid({ seed: hex(v.seed) });
    expect(created.did).toBe(v.did);
    expect(created.document).toEqual(doc);
    expect(created.secrets.map((s) => s.id)).toEqual([edId, xId]);
    const x = keyPairFromJwk(created.secrets[1].privateKeyJwk);
    expect(x.privateKey).toEqual(base58btcDecode(v.x25519PrivateKeyBase58));
    for (const s of created.secrets) expect(s.privateKeyJwk.kid).toBe(s.id);
  });

  it.each(vectors.x25519.vectors as any[])('resolves the X25519-only vector $did with just a key agreement key', (v) => {
    const doc = resolveKeyDid(v.did);
    const id = `${v.did}#${v.did.slice('did:key:'.length)}`;
    expect(doc.verificationMethod!.map((m) => m.id)).toEqual([id]);
    expect(fromMultikey(doc.verificationMethod![0].publicKeyMultibase!).publicKey).toEqual(base58btcDecode(v.publicKeyBase58));
    expect(doc.keyAgreement).toEqual([id]);
    expect(doc.authentication).toBeUndefined();
  });

  it('creates X25519-only DIDs whose one secret matches the key id', () => {
    const created = createKeyDid({ type: 'X25519' });
    expect(created.did).toMatch(/^did:key:z6LS/);
    expect(created.secrets.map((s) => s.id)).toEqual(created.document.keyAgreement);
  });

  it('answers invalidDid for malformed or unsupported keys', async () => {
    for (const bad of ['did:key:', 'did:key:abc', 'did:key:z0OIl', 'did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169']) {
      expect((await resolveKey(bad)).didResolutionMetadata.error, bad).toBe('invalidDid');
    }
  });
});
