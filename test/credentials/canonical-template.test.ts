// The shape path must give jsonld's canonical N-Quads byte for byte, or nothing: each case
// compares it with jsonld.canonize on the same document (a loader of its own, so neither memo
// nor shape can answer for jsonld).
import jsonld from 'jsonld';
import { describe, expect, it, vi } from 'vitest';
import { canonizeByShape, shapeOf } from '../../src/credentials/canonical-template.js';
import { CREDENTIALS_V1_URL, DATA_INTEGRITY_V2_URL, createDocumentLoader } from '../../src/credentials/contexts.js';
import { canonize } from '../../src/credentials/data-integrity.js';
import { buildCredential } from '../../src/credentials/issue.js';
import { createStatusList, statusListCredential, statusListEntry } from '../../src/credentials/status-list.js';
import { ManualClock } from '../../src/clock.js';

const clock = new ManualClock(Date.parse('2024-05-01T12:00:00Z'));
const jsonldLoader = createDocumentLoader();

async function byJsonld(doc: Record<string, unknown>): Promise<string | Error> {
  try {
    return await canonize(doc, jsonldLoader);
  } catch (err) {
    return err as Error;
  }
}

/** The shape path's answer, checked against jsonld's; returns whether the shape path answered. */
async function same(doc: Record<string, unknown>): Promise<boolean> {
  const shaped = await canonizeByShape(doc);
  if (shaped === undefined) return false;
  expect(shaped).toBe(await byJsonld(doc));
  return true;
}

const list = createStatusList({ id: 'https://issuer.example/status-lists/revocation-1', issuer: 'did:example:issuer', purpose: 'revocation' });

function kyc(o: { subject?: string; id?: string; claims?: Record<string, unknown>; status?: boolean; replaces?: string } = {}) {
  return buildCredential({
    format: 'ldp',
    issuerDid: 'did:example:issuer',
    subjectDid: o.subject ?? 'did:ion:EiDahaOGH-liLLdDtTxEAdc8i-cfCz-WUcQdRJheMVNn3A:eyJkZWx0YSI6e30',
    id: o.id ?? 'urn:uuid:0b1f6a52-8d1c-4a55-9d0e-6f0e1f6f7a01',
    claims: o.claims ?? { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10', nationality: 'GB', emailAddress: 'ada@example.com' },
    ...(o.status === false ? {} : { credentialStatus: statusListEntry(list, 4242) }),
    ...(o.replaces ? { replaces: o.replaces } : {}),
    clock,
  }) as unknown as Record<string, unknown>;
}

describe('canonical N-Quads by shape', () => {
  it('gives what jsonld gives for the credentials the service issues, with other values each time', async () => {
    expect(await same(kyc())).toBe(true);
    expect(await same(kyc({ id: 'urn:uuid:ffffffff-0000-4000-8000-000000000000', subject: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK' }))).toBe(true);
    expect(await same(kyc({ claims: { firstName: 'Zoë "the \\ best"', lastName: 'Line\nbreak\r\tand <angle> & emoji 🧪', birthDate: '2000-02-29', nationality: 'FR', emailAddress: 'z@example.org' } }))).toBe(true);
    expect(await same(kyc({ status: false }))).toBe(true);
    expect(await same(kyc({ replaces: 'urn:uuid:11111111-2222-4333-8444-555555555555' }))).toBe(true);
  });

  it('gives what jsonld gives with blank nodes (a nested address), whose labels RDFC-1.0 assigns', async () => {
    const address = { streetAddress: '1 Main St', locality: 'London', postalCode: 'N1', country: 'GB' };
    expect(await same(kyc({ claims: { firstName: 'Ada', residentialAddress: address } }))).toBe(true);
    expect(await same(kyc({ claims: { firstName: 'Bob', residentialAddress: { ...address, locality: 'Paris', country: 'FR' } } }))).toBe(true);
  });

  it('gives what jsonld gives for the status list credential and a proof configuration', async () => {
    const listCredential = statusListCredential(list, { format: 'ldp', clock }) as unknown as Record<string, unknown>;
    expect(await same(listCredential)).toBe(true);
    const proofConfig = { '@context': [CREDENTIALS_V1_URL, DATA_INTEGRITY_V2_URL], type: 'DataIntegrityProof', cryptosuite: 'eddsa-rdfc-2022', created: '2024-05-01T12:00:00Z', verificationMethod: 'did:example:issuer#key-3', proofPurpose: 'assertionMethod' };
    // proofPurpose is coerced to @vocab and its value is a term: no placeholder can stand for it,
    // so proof configurations are left to jsonld (and to the memo: they repeat within a second).
    expect(await canonizeByShape(proofConfig)).toBeUndefined();
    const { proofPurpose: _p, ...noPurpose } = proofConfig;
    expect(await same(noPurpose)).toBe(true);
    expect(await same({ ...noPurpose, created: '2024-05-01T12:00:01Z', verificationMethod: 'did:web:other.example#key-1' })).toBe(true);
  });

  it('leaves to jsonld what it cannot vouch for', async () => {
    // An IRI jsonld would not keep (whitespace): jsonld refuses the document in safe mode.
    expect(await canonizeByShape(kyc({ subject: 'did:example:a b' }))).toBeUndefined();
    expect(await byJsonld(kyc({ subject: 'did:example:a b' }))).toBeInstanceOf(Error);
    // A compact IRI whose prefix a context defines: expanded, not kept.
    expect(await canonizeByShape(kyc({ subject: 'kyc:someone' }))).toBeUndefined();
    // A blank node identifier, a keyword-like value, an unknown term (safe mode error).
    expect(await canonizeByShape(kyc({ id: '_:b0' }))).toBeUndefined();
    expect(await canonizeByShape(kyc({ id: '@id' }))).toBeUndefined();
    expect(await canonizeByShape({ ...kyc(), undefinedTerm: 'x' })).toBeUndefined();
    // Two equal values become one quad in jsonld's node map.
    const twice = { ...kyc(), credentialSubject: { id: 'did:example:s', firstName: ['Ada', 'Ada'] } };
    expect(await canonizeByShape(twice)).toBeUndefined();
    expect(await same({ ...twice, credentialSubject: { id: 'did:example:s', firstName: ['Ada', 'Bea'] } })).toBe(true);
    // An inline context may define terms the bundled ones lack, which jsonld would expand a
    // value into ("did:example:x" below is a term, mapped to null, under @type: @vocab).
    const inline = { ...kyc(), '@context': [...(kyc()['@context'] as string[]), { 'did:example:x': null, p: { '@id': 'https://ex.example/p', '@type': '@vocab' } }] };
    expect(await canonizeByShape({ ...inline, credentialSubject: { id: 'did:example:s', p: 'did:example:x' } })).toBeUndefined();
    // Not plain JSON.
    expect(shapeOf({ a: undefined })).toBeUndefined();
    expect(shapeOf({ a: new Date(0) })).toBeUndefined();
  });

  it('agrees with jsonld on many documents of one shape with awkward values (or leaves them to it)', async () => {
    const iris = [
      'did:example:x', 'did:example:y', 'did:ion:abc:def', 'did:example:x#frag', 'urn:uuid:1', 'urn:uuid:2', 'urn:', 'https://example.com/a#b',
      'https://example.com/c', 'HTTPS://EXAMPLE.COM', 'mailto:a@b.c', 'did:example:<>"{}',
      // …and values jsonld would expand, drop or refuse in an IRI's place.
      'http://example.com/ x', 'kyc:firstName', 'cred:issuer', 'VerifiableCredential', 'firstName', '_:b1', '@type', '', 'plain', 'a b:c', '//x',
    ];
    const texts = [...iris, 'Ada', '1815-12-10', 'x"y', 'back\\slash', 'nl\nx', 'tab\tx', '🧪', '\u0000', 'https:', 'ex:', 'a:b:c', 'idsync', ' '];
    let seed = 7;
    const from = (pool: string[]) => pool[(seed = (seed * 1103515245 + 12345) % 2147483648) % pool.length]!;
    let answered = 0;
    const good = iris.slice(0, 12);
    for (let i = 0; i < 150; i++) {
      // Two documents in three with IRIs that jsonld keeps as they are, every third with any.
      const iri = () => from(i % 3 === 2 ? iris : good);
      const doc = kyc({ id: iri() || 'urn:x', subject: iri(), replaces: iri() || 'urn:x', claims: { firstName: from(texts), lastName: from(texts), birthDate: from(texts), nationality: from(texts) } });
      (doc.credentialStatus as Record<string, unknown>).statusListCredential = iri();
      doc.issuer = iri();
      if (await same(doc)) answered++;
    }
    // Many are answered by shape; the rest are left to jsonld; none is answered otherwise than jsonld does.
    expect(answered).toBeGreaterThan(60);
  });

  it('builds a new shape once for the documents that arrive together', async () => {
    const toRDF = vi.spyOn(jsonld, 'toRDF');
    try {
      // A shape no other case has: a claim of its own.
      const docs = Array.from({ length: 8 }, (_, i) => kyc({ id: `urn:uuid:0b1f6a52-8d1c-4a55-9d0e-6f0e1f6f7b${10 + i}`, claims: { firstName: `A${i}`, lastName: 'L', birthDate: '1815-12-10', nationality: 'GB', phoneNumber: `+4412345678${i}` } }));
      const answers = await Promise.all(docs.map((d) => canonizeByShape(d)));
      expect(answers.every((a) => typeof a === 'string')).toBe(true);
      expect(toRDF).toHaveBeenCalledTimes(1);
      for (const [i, d] of docs.entries()) expect(answers[i]).toBe(await byJsonld(d));
    } finally {
      toRDF.mockRestore();
    }
  });
});

