import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import {
  BUNDLED_CONTEXTS,
  CREDENTIALS_V1_URL,
  CREDENTIALS_V2_URL,
  DATA_INTEGRITY_V2_URL,
  KYC_CONTEXT_URL,
  STATUS_LIST_V1_URL,
  createDocumentLoader,
  documentLoader,
} from '../../src/credentials/contexts.js';
import { addDataIntegrityProof, canonicalDigest, canonize, hashData, verifyDataIntegrityProof } from '../../src/credentials/data-integrity.js';
import { multibaseDecode } from '../../src/encoding.js';

const dir = new URL('../../fixtures/vc-di-eddsa/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, dir), 'utf8');
const signed = JSON.parse(read('eddsa-rdfc-2022-signed.json'));
const keyPair = JSON.parse(read('key-pair.json'));
// Multikey: 0xed 0x01 ‖ public key; private: 0x80 0x26 (ed25519-priv) ‖ seed.
const publicKey = multibaseDecode(keyPair.publicKeyMultibase).slice(2);
const privateKey = multibaseDecode(keyPair.privateKeyMultibase).slice(2);
const vectorLoader = createDocumentLoader(new Map([['https://www.w3.org/ns/credentials/examples/v2', JSON.parse(read('examples-v2-context.json'))]]));

describe('eddsa-rdfc-2022 (vc-di-eddsa Appendix A.1 vector)', () => {
  const { proof, ...unsigned } = signed;

  it('canonicalizes the proof configuration as published', async () => {
    expect(await canonize(JSON.parse(read('proof-config.json')), vectorLoader)).toBe(read('proof-canonical.nq'));
  });

  it('computes the published combined hash', async () => {
    const { proofValue: _pv, ...options } = proof;
    const data = await hashData(unsigned, { ...options, '@context': unsigned['@context'] }, vectorLoader);
    expect(Buffer.from(data).toString('hex')).toBe(read('combined-hash.hex'));
  });

  it('re-signing gives the published proofValue', async () => {
    const again = await addDataIntegrityProof(unsigned, {
      privateKey,
      verificationMethod: proof.verificationMethod,
      created: proof.created,
      loader: vectorLoader,
    });
    expect(again.proof).toEqual(proof);
  });

  it('verifies the published credential', async () => {
    expect(await verifyDataIntegrityProof(signed, publicKey, vectorLoader)).toMatchObject({ ok: true });
  });

  it('rejects the published credential with one claim changed', async () => {
    const tampered = { ...signed, credentialSubject: { ...signed.credentialSubject, alumniOf: 'Another School' } };
    expect(await verifyDataIntegrityProof(tampered, publicKey, vectorLoader)).toMatchObject({ ok: false, code: 'invalid_proof' });
  });

  it('rejects a changed proof option (created)', async () => {
    const tampered = { ...signed, proof: { ...proof, created: '2024-02-24T23:36:38Z' } };
    expect(await verifyDataIntegrityProof(tampered, publicKey, vectorLoader)).toMatchObject({ ok: false, code: 'invalid_proof' });
  });
});

describe('proofs verified before', () => {
  it('a document verified once and then changed does not verify (the memo is by content and key)', async () => {
    const doc = { '@context': [CREDENTIALS_V1_URL, DATA_INTEGRITY_V2_URL], id: 'urn:uuid:memo', type: ['VerifiableCredential'], issuer: 'did:example:i', issuanceDate: '2024-01-01T00:00:00Z', credentialSubject: { id: 'did:example:s' } };
    const secured = await addDataIntegrityProof(doc, { privateKey, verificationMethod: 'did:example:i#k' });
    expect(await verifyDataIntegrityProof(secured, publicKey)).toMatchObject({ ok: true });
    expect(await verifyDataIntegrityProof(secured, publicKey)).toMatchObject({ ok: true });
    expect(await verifyDataIntegrityProof({ ...secured, issuanceDate: '2024-01-02T00:00:00Z' }, publicKey)).toMatchObject({ ok: false, code: 'invalid_proof' });
    const other = new Uint8Array(publicKey);
    other[0] ^= 1;
    expect(await verifyDataIntegrityProof(secured, other)).toMatchObject({ ok: false, code: 'invalid_proof' });
  });
});

describe('canonical forms computed before', () => {
  // Both ways to a canonical form end in rdf-canonize (jsonld.canonize, and the shape path of
  // canonical-template.ts that documents of a shape seen before take): counting its calls shows
  // whether the memo answered, whichever way the document would have gone.
  const rdfCanonize = createRequire(import.meta.url)('rdf-canonize') as { canonize(...args: unknown[]): Promise<string> };
  const doc = () => ({ '@context': [CREDENTIALS_V1_URL, DATA_INTEGRITY_V2_URL], id: 'urn:uuid:canon-memo', type: ['VerifiableCredential'], issuer: 'did:example:i', issuanceDate: '2024-01-01T00:00:00Z', credentialSubject: { id: 'did:example:s' } });
  const digestOf = (nquads: string) => Buffer.from(createHash('sha256').update(nquads, 'utf8').digest()).toString('hex');
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

  it('the same JSON (any key order) with the bundled contexts is canonicalized once, to the digest of what a fresh loader gives', async () => {
    const spy = vi.spyOn(rdfCanonize, 'canonize');
    try {
      const first = await canonicalDigest(doc());
      const calls = spy.mock.calls.length;
      const { credentialSubject, issuer, ...rest } = doc();
      expect(hex(await canonicalDigest({ credentialSubject, ...rest, issuer }))).toBe(hex(first));
      expect(spy.mock.calls.length).toBe(calls);
      // A loader of its own is never served from the memo (its contexts may differ).
      expect(hex(await canonicalDigest(doc(), createDocumentLoader()))).toBe(hex(first));
      expect(spy.mock.calls.length).toBe(calls + 1);
      expect(hex(first)).toBe(digestOf(await canonize(doc(), createDocumentLoader())));
    } finally {
      spy.mockRestore();
    }
  });

  it('a changed document is canonicalized again (the memo is by content)', async () => {
    const first = await canonicalDigest(doc());
    const changed = { ...doc(), issuanceDate: '2024-01-02T00:00:00Z' };
    const digest = await canonicalDigest(changed);
    expect(hex(digest)).not.toBe(hex(first));
    expect(hex(digest)).toBe(digestOf(await canonize(changed, createDocumentLoader())));
  });

  it('keeps a fleet burst: the first of 1,000 documents is still known after the other 999', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => ({ ...doc(), id: `urn:uuid:burst-${i}` }));
    const spy = vi.spyOn(rdfCanonize, 'canonize');
    try {
      for (const d of many) await canonicalDigest(d);
      const calls = spy.mock.calls.length;
      await canonicalDigest(many[0]!);
      expect(spy.mock.calls.length).toBe(calls);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('offline document loader', () => {
  it('bundles VC v1/v2, data integrity, status list and KYC contexts', async () => {
    for (const url of [CREDENTIALS_V1_URL, CREDENTIALS_V2_URL, DATA_INTEGRITY_V2_URL, STATUS_LIST_V1_URL, KYC_CONTEXT_URL]) {
      expect(BUNDLED_CONTEXTS.has(url)).toBe(true);
      const r = await documentLoader(url);
      expect(r.documentUrl).toBe(url);
      expect(r.document['@context']).toBeDefined();
    }
  });

  it('refuses a URL that is not bundled, without fetching it', async () => {
    await expect(documentLoader('https://www.w3.org/ns/credentials/examples/v2')).rejects.toMatchObject({ code: 'context_not_bundled' });
    await expect(documentLoader('http://127.0.0.1:1/context.json')).rejects.toMatchObject({ code: 'context_not_bundled' });
  });

  it('canonicalization of a document with an unbundled context fails with context_not_bundled', async () => {
    await expect(canonize(signed)).rejects.toMatchObject({ code: 'context_not_bundled' });
    // …and verification reports it as a malformed credential instead of throwing.
    expect(await verifyDataIntegrityProof(signed, publicKey)).toMatchObject({ ok: false, code: 'malformed_credential' });
  });

  it('safe mode refuses terms the contexts do not define (they would go unsigned)', async () => {
    const doc = { '@context': [CREDENTIALS_V1_URL], type: ['VerifiableCredential'], undefinedTerm: 'x' };
    await expect(canonize(doc)).rejects.toMatchObject({ code: 'canonicalization_failed' });
  });

  it('returns copies: jsonld cannot modify the bundled contexts', async () => {
    const a = await documentLoader(KYC_CONTEXT_URL);
    (a.document['@context'] as Record<string, unknown>).firstName = 'tampered';
    const b = await documentLoader(KYC_CONTEXT_URL);
    expect((b.document['@context'] as Record<string, unknown>).firstName).toBe('kyc:firstName');
  });
});
