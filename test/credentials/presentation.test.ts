import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  addJcsProof,
  jcsHashData,
  signPresentation,
  verifyJcsProof,
  verifyPresentation,
  type VerifiablePresentation,
} from '../../src/credentials/presentation.js';
import { createIonDid } from '../../src/did/ion.js';
import { createPeerDid4 } from '../../src/did/peer4.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import type { CreatedDid, DIDDocument } from '../../src/did/types.js';
import { b64uDecode, jcs, multibaseDecode, sha256, utf8 } from '../../src/encoding.js';
import { fromMultikey, generateKeyPair, publicJwk } from '../../src/keys.js';

const dir = new URL('../../fixtures/vc-di-eddsa-jcs/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, dir), 'utf8');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('eddsa-jcs-2022 (vc-di-eddsa test vector)', () => {
  const signed = JSON.parse(read('signed.json'));
  const keyPair = JSON.parse(read('key-pair.json'));
  const publicKey = fromMultikey(keyPair.publicKeyMultibase).publicKey;
  // Multicodec ed25519-priv (0x8026, varint 0x80 0x26) + 32 bytes.
  const privateBytes = multibaseDecode(keyPair.privateKeyMultibase);
  const privateKey = privateBytes.slice(2);
  const { proof, ...unsigned } = signed;

  it('canonicalizes and hashes the document as the vector does', () => {
    expect([privateBytes[0], privateBytes[1]]).toEqual([0x80, 0x26]);
    expect(jcs(unsigned)).toBe(read('canonical-document.json'));
    expect(hex(sha256(utf8.encode(jcs(unsigned))))).toBe(read('document-hash.hex'));
    const { proofValue: _v, ...config } = proof;
    expect(config).toEqual(JSON.parse(read('proof-config.json')));
    expect(hex(jcsHashData(unsigned, config).slice(32))).toBe(read('document-hash.hex'));
  });

  it('re-signing the unsigned document gives the published proof', () => {
    const again = addJcsProof(unsigned, {
      verificationMethod: proof.verificationMethod,
      privateKey,
      proofPurpose: 'assertionMethod',
      created: proof.created,
    });
    expect(again.proof).toEqual(proof);
    expect(hex(multibaseDecode(again.proof.proofValue!))).toBe(read('signature.hex'));
  });

  it('verifies the published document and refuses a tampered one', () => {
    expect(verifyJcsProof(signed, publicKey)).toMatchObject({ ok: true });
    expect(verifyJcsProof({ ...signed, name: 'Other' }, publicKey)).toMatchObject({ ok: false, code: 'invalid_proof' });
    expect(verifyJcsProof({ ...signed, proof: { ...proof, created: '2024-01-01T00:00:00Z' } }, publicKey)).toMatchObject({ ok: false, code: 'invalid_proof' });
    // §3.3.2 step 4.1: the proof's @context must prefix the document's.
    expect(verifyJcsProof({ ...signed, '@context': ['https://www.w3.org/ns/credentials/v2'] }, publicKey)).toMatchObject({ ok: false, code: 'invalid_proof' });
    expect(verifyJcsProof({ ...signed, proof: { ...proof, cryptosuite: 'eddsa-rdfc-2022' } }, publicKey)).toMatchObject({ ok: false, code: 'invalid_proof' });
    expect(verifyJcsProof({ ...signed, proof: [proof] }, publicKey)).toMatchObject({ ok: false, code: 'malformed_presentation' });
  });
});

function authKey(created: CreatedDid): Uint8Array {
  return b64uDecode(created.secrets.find((s) => s.id.endsWith('#key-1'))!.privateKeyJwk.d);
}

function didAuthVp(holder: string): VerifiablePresentation {
  return {
    '@context': ['https://www.w3.org/2018/credentials/v1'],
    type: ['VerifiablePresentation'],
    holder,
    presentation_submission: { id: 'sub-1', definition_id: 'def-1', descriptor_map: [] },
  };
}

describe('DID-auth presentations with a did:ion wallet', () => {
  const wallet = createIonDid();
  const resolve = documentResolver(createResolver({ cache: false }));
  const challenge = 'c0ffee00-0000-4000-8000-000000000001';
  const domain = 'did:web:127.0.0.1%3A8080';
  const kid = `${wallet.did}#key-1`;
  const signed = signPresentation(didAuthVp(wallet.did), { kid, privateKey: authKey(wallet), challenge, domain, created: '2025-01-01T00:00:00Z' });

  it('signs with an eddsa-jcs-2022 authentication proof that verifies', async () => {
    expect(signed.proof).toMatchObject({
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-jcs-2022',
      proofPurpose: 'authentication',
      verificationMethod: kid,
      challenge,
      domain,
      created: '2025-01-01T00:00:00Z',
      '@context': ['https://www.w3.org/2018/credentials/v1'],
    });
    expect(signed.proof.proofValue).toMatch(/^z/);
    expect(await verifyPresentation(signed, { resolve, challenge, domain, expectedHolder: wallet.did })).toEqual({ verified: true, holder: wallet.did, kid });
  });

  it('treats the long and short ion forms as the same holder', async () => {
    expect(await verifyPresentation(signed, { resolve, challenge, domain, expectedHolder: wallet.shortDid })).toMatchObject({ verified: true });
    // Holder written in short form, key id in long form: the long form is resolved offline.
    const short = signPresentation(didAuthVp(wallet.shortDid!), { kid, privateKey: authKey(wallet), challenge, domain });
    expect(await verifyPresentation(short, { resolve, challenge, domain, expectedHolder: wallet.did })).toMatchObject({ verified: true });
  });

  it('rejects a wrong challenge, a wrong domain and a wrong purpose', async () => {
    expect(await verifyPresentation(signed, { resolve, challenge: 'other', domain })).toMatchObject({ verified: false, code: 'challenge_mismatch' });
    expect(await verifyPresentation(signed, { resolve, challenge, domain: 'did:web:evil.example' })).toMatchObject({ verified: false, code: 'domain_mismatch' });
    const asAssertion = signPresentation(didAuthVp(wallet.did), { kid, privateKey: authKey(wallet), challenge, domain, proofPurpose: 'assertionMethod' });
    expect(await verifyPresentation(asAssertion, { resolve, challenge, domain })).toMatchObject({ verified: false, code: 'wrong_purpose' });
  });

  it('rejects a tampered presentation and one signed by another key', async () => {
    const tampered = { ...signed, presentation_submission: { id: 'sub-1', definition_id: 'def-2', descriptor_map: [] } };
    expect(await verifyPresentation(tampered, { resolve, challenge, domain })).toMatchObject({ verified: false, code: 'invalid_proof' });
    const forged = signPresentation(didAuthVp(wallet.did), { kid, privateKey: generateKeyPair('Ed25519').privateKey, challenge, domain });
    expect(await verifyPresentation(forged, { resolve, challenge, domain })).toMatchObject({ verified: false, code: 'invalid_proof' });
    const swappedChallenge = { ...signed, proof: { ...signed.proof, challenge: 'other' } };
    expect(await verifyPresentation(swappedChallenge, { resolve, challenge: 'other', domain })).toMatchObject({ verified: false, code: 'invalid_proof' });
  });

  it('rejects a holder other than the expected one or than the key owner', async () => {
    const other = createIonDid();
    expect(await verifyPresentation(signed, { resolve, challenge, domain, expectedHolder: other.did })).toMatchObject({ verified: false, code: 'holder_mismatch' });
    const claimed = { ...signed, holder: other.did };
    expect(await verifyPresentation(claimed, { resolve, challenge, domain })).toMatchObject({ verified: false, code: 'holder_mismatch' });
    expect(() => signPresentation(didAuthVp(other.did), { kid, privateKey: authKey(wallet), challenge, domain })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('rejects a key that is not in the holder’s authentication', async () => {
    // keyAgreement key id of the wallet: not an authentication key.
    const agreement = signPresentation(didAuthVp(wallet.did), { kid: `${wallet.did}#key-2`, privateKey: authKey(wallet), challenge, domain });
    expect(await verifyPresentation(agreement, { resolve, challenge, domain })).toMatchObject({ verified: false, code: 'key_not_authorized' });
    // A document whose Ed25519 key is only an assertion key.
    const k = generateKeyPair('Ed25519');
    const did = 'did:example:asserter';
    const doc: DIDDocument = {
      id: did,
      verificationMethod: [{ id: `${did}#k`, type: 'JsonWebKey2020', controller: did, publicKeyJwk: publicJwk(k) }],
      assertionMethod: [`${did}#k`],
    };
    const only = async (d: string) => (d === did ? doc : null);
    const vp = signPresentation(didAuthVp(did), { kid: `${did}#k`, privateKey: k.privateKey, challenge, domain });
    expect(await verifyPresentation(vp, { resolve: only, challenge, domain })).toMatchObject({ verified: false, code: 'key_not_authorized' });
    const asAssertion = signPresentation(didAuthVp(did), { kid: `${did}#k`, privateKey: k.privateKey, challenge, domain, proofPurpose: 'assertionMethod' });
    expect(await verifyPresentation(asAssertion, { resolve: only, challenge, domain, purpose: 'assertionMethod' })).toMatchObject({ verified: true });
  });

  it('rejects a holder that does not resolve and malformed input', async () => {
    const unknown = { ...signed, holder: wallet.shortDid!, proof: { ...signed.proof, verificationMethod: `${wallet.shortDid}#key-1` } };
    expect(await verifyPresentation(unknown, { resolve, challenge, domain })).toMatchObject({ verified: false, code: 'holder_not_resolved' });
    for (const bad of [null, 'vp', [], { ...signed, type: ['Other'] }, { ...signed, holder: 42 }, { ...signed, proof: undefined }]) {
      expect(await verifyPresentation(bad, { resolve, challenge, domain })).toMatchObject({ verified: false, code: 'malformed_presentation' });
    }
  });
});

// DID Peer §Method 4: a did:peer:4 holder may write its long form in one place and its short form
// in another; the short form resolves only where the long form was seen, so the long form is the
// one resolved.
describe('DID-auth presentations with a did:peer:4 holder, in either form', () => {
  const holder = createPeerDid4();
  const short = holder.shortDid!;
  const privateKey = b64uDecode(holder.secrets.find((s) => s.id.endsWith('#key-2'))!.privateKeyJwk.d);
  // Resolves long forms only: no short form was seen here.
  const resolve = documentResolver(createResolver({ cache: false }));
  const challenge = 'c0ffee00-0000-4000-8000-000000000004';
  const domain = 'did:web:127.0.0.1%3A8080';

  it('verifies a holder in one form with a key id in the other, resolving the long form', async () => {
    expect(await resolve(short)).toBeNull();
    for (const [written, kid] of [[short, `${holder.did}#key-2`], [holder.did, `${short}#key-2`]]) {
      const vp = signPresentation(didAuthVp(written), { kid, privateKey, challenge, domain });
      for (const expectedHolder of [short, holder.did]) {
        expect(await verifyPresentation(vp, { resolve, challenge, domain, expectedHolder })).toEqual({ verified: true, holder: written, kid });
      }
    }
  });

  it('still refuses the short form alone when its long form was never seen', async () => {
    const vp = signPresentation(didAuthVp(short), { kid: `${short}#key-2`, privateKey, challenge, domain });
    expect(await verifyPresentation(vp, { resolve, challenge, domain })).toMatchObject({ verified: false, code: 'holder_not_resolved' });
  });
});
