import { describe, expect, it } from 'vitest';
import { joinHashes, proofValueOf, readProof } from '../../src/credentials/eddsa-proof.js';
import { multibaseDecode, multibaseEncode, sha256, utf8 } from '../../src/encoding.js';
import { generateKeyPair, verify } from '../../src/keys.js';

const SUITE = { cryptosuite: 'eddsa-jcs-2022', malformed: 'malformed_presentation', incomplete: 'the proof lacks proofValue or verificationMethod' } as const;
const proof = (extra: Record<string, unknown> = {}) => ({
  type: 'DataIntegrityProof',
  cryptosuite: 'eddsa-jcs-2022',
  verificationMethod: 'did:example:a#key-1',
  proofPurpose: 'authentication',
  proofValue: multibaseEncode(new Uint8Array(64).fill(7)),
  ...extra,
});

describe('shared EdDSA cryptosuite steps', () => {
  it('hashes the proof configuration first, then the document', () => {
    const data = joinHashes('config', 'document');
    expect(data.slice(0, 32)).toEqual(sha256(utf8.encode('config')));
    expect(data.slice(32)).toEqual(sha256(utf8.encode('document')));
  });

  it('signs hashData into a multibase proofValue that verifies', () => {
    const key = generateKeyPair('Ed25519');
    const data = joinHashes('c', 'd');
    expect(verify(key.publicKey, data, multibaseDecode(proofValueOf(key.privateKey, data)))).toBe(true);
  });

  it('reads a complete proof and returns the document without it', () => {
    const read = readProof({ name: 'x', proof: proof() }, SUITE);
    expect(read).toMatchObject({ ok: true, unsecured: { name: 'x' } });
    expect(read.ok && read.signature.length).toBe(64);
    expect(read.ok && 'proof' in read.unsecured).toBe(false);
  });

  it('refuses each broken proof with the code of its step', () => {
    const cases: Array<[unknown, string, string]> = [
      [undefined, 'malformed_presentation', 'exactly one proof object is expected'],
      [[proof()], 'malformed_presentation', 'exactly one proof object is expected'],
      [proof({ cryptosuite: 'eddsa-rdfc-2022' }), 'invalid_proof', 'unsupported proof DataIntegrityProof/eddsa-rdfc-2022'],
      [proof({ proofValue: undefined }), 'malformed_presentation', SUITE.incomplete],
      [proof({ proofValue: 'u-not-base58' }), 'invalid_proof', 'proofValue is not base58btc multibase'],
      [proof({ proofValue: multibaseEncode(new Uint8Array(63)) }), 'invalid_proof', 'an Ed25519 signature is 64 bytes'],
    ];
    for (const [p, code, detail] of cases) expect(readProof({ proof: p }, SUITE)).toEqual({ ok: false, code, detail });
  });
});
