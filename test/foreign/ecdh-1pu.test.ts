// The hand-made ECDH-1PU opener that test/foreign uses as evidence must itself follow the drafts:
// its draft-04 KDF unwraps the DIDComm v2.1 spec's authcrypt vector and its draft-03 KDF does not.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { unwrapEcdh1pu } from './ecdh-1pu.js';

const vector = (name: string) => readFileSync(new URL(`../../fixtures/didcomm-v2-spec/${name}`, import.meta.url), 'utf8');
// secrets-bob.json spells the key id member "kid " (fixtures/didcomm-v2-spec/README.md).
const bob = (JSON.parse(vector('secrets-bob.json')) as Record<string, string>[]).find((s) => s['kid '] === 'did:example:bob#key-x25519-1')!;
const alice = JSON.parse(vector('diddocs-alice.json')).keyAgreement.find((m: { id: string }) => m.id === 'did:example:alice#key-x25519-1');

describe('the ECDH-1PU opener of the foreign-agent tests', () => {
  const jwe = vector('authcrypt-x25519-a256cbc.json');
  const recipient = { kid: 'did:example:bob#key-x25519-1', privateJwk: { kty: 'OKP', crv: 'X25519', x: bob.x, d: bob.d } };

  it('unwraps the spec authcrypt vector (Appendix C.3, ECDH-1PU+A256KW / A256CBC-HS512) under the draft-04 KDF', () => {
    expect(unwrapEcdh1pu(jwe, recipient, alice.publicKeyJwk.x, 'draft-04')).toHaveLength(64);
  });

  it('fails to unwrap it under the draft-03 KDF (no content tag)', () => {
    expect(() => unwrapEcdh1pu(jwe, recipient, alice.publicKeyJwk.x, 'draft-03')).toThrow();
  });
});
