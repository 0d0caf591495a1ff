// Hand-built did:example documents and a Map resolver for credential tests (no src/did needed).
import type { DIDDocument, DocumentResolver } from '../../src/did/types.js';
import { generateKeyPair, publicJwk, toMultikey, type KeyPair } from '../../src/keys.js';
import type { IssuerKey } from '../../src/credentials/types.js';

export interface TestDid {
  did: string;
  document: DIDDocument;
  /** #key-1: Ed25519 in assertionMethod (JsonWebKey2020). */
  assertionKey: KeyPair;
  /** #key-2: Ed25519 in authentication only (Multikey). */
  authKey: KeyPair;
  issuer: IssuerKey;
}

export function exampleDid(name: string, seedByte = 1): TestDid {
  const did = `did:example:${name}`;
  const assertionKey = generateKeyPair('Ed25519', new Uint8Array(32).fill(seedByte));
  const authKey = generateKeyPair('Ed25519', new Uint8Array(32).fill(seedByte + 100));
  const document: DIDDocument = {
    '@context': ['https://www.w3.org/ns/did/v1'],
    id: did,
    verificationMethod: [
      { id: `${did}#key-1`, type: 'JsonWebKey2020', controller: did, publicKeyJwk: publicJwk(assertionKey) },
      { id: `${did}#key-2`, type: 'Multikey', controller: did, publicKeyMultibase: toMultikey(authKey) },
    ],
    authentication: [`${did}#key-1`, '#key-2'],
    assertionMethod: ['#key-1'],
  };
  return { did, document, assertionKey, authKey, issuer: { did, kid: `${did}#key-1`, privateKey: assertionKey.privateKey } };
}

export function mapResolver(...dids: Array<{ did: string; document: DIDDocument }>): DocumentResolver {
  const map = new Map(dids.map((d) => [d.did, d.document]));
  return async (did: string) => map.get(did.split('#')[0]) ?? null;
}
