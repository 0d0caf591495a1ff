// Our DID types are the W3C DID Core ones as did-resolver defines them.
import type { DIDDocument, DIDResolutionResult, Service, VerificationMethod } from 'did-resolver';
import type { PrivateJwk } from '../keys.js';
export type { DIDDocument, DIDResolutionResult, Service, VerificationMethod };

/** Resolves a DID to a W3C DID document, or null when it cannot be resolved. */
export type DocumentResolver = (did: string) => Promise<DIDDocument | null>;

/**
 * A private key as the DIDComm layer needs it: `id` is the full key id (`did#fragment`),
 * exactly the verification method id in the DID document.
 */
export interface Secret {
  id: string;
  type: 'JsonWebKey2020';
  privateKeyJwk: PrivateJwk;
}

/** What creating a DID gives back: the DID, its document, and the private keys to keep. */
export interface CreatedDid {
  did: string;
  /** ion: the short form `did:ion:<suffix>`; did:peer:4: `did:peer:4<hash>`. */
  shortDid?: string;
  document: DIDDocument;
  secrets: Secret[];
  /** ion only: recovery and update private keys (secp256k1 JWKs); never logged. */
  controlKeys?: { recovery: Record<string, unknown>; update: Record<string, unknown> };
}

/**
 * Where the resolver learns long forms of short `did:ion` and `did:peer:4` DIDs, the did:peer:2
 * forms of did:peer:3 DIDs, and any DIDs registered locally. The store implements it; tests may use a Map.
 */
export interface DidRegistry {
  get(did: string): Promise<string | undefined>;
}
