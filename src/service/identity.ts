// The service's own DID: did:web of its public URL, with an Ed25519 authentication key and an
// X25519 keyAgreement key for DIDComm, and a separate Ed25519 assertionMethod key for signing
// credentials. Keys are generated once and kept in the store; secrets are never served.
import type { Store } from '../store/store.js';
import { generateKeyPair, keyPairFromJwk, privateJwk, type KeyPair, type PrivateJwk } from '../keys.js';
import type { DIDDocument, Secret } from '../did/types.js';
import { buildDocument, didcommService, jwkMethod, JWS_2020_CONTEXT, secretFor } from '../did/document.js';
import { didWebFromUrl } from '../did/web.js';

export interface ServiceIdentity {
  did: string;
  /** The document served at /.well-known/did.json (public keys only). */
  document: DIDDocument;
  /** DIDComm secrets (authentication and keyAgreement), ids `did#key-1`, `did#key-2`. */
  secrets: Secret[];
  authenticationKid: string;
  keyAgreementKid: string;
  /** Key id for credential proofs (`did#key-3`) and its key pair. */
  assertionKid: string;
  assertionKey: KeyPair;
}

interface StoredKeys {
  authentication: PrivateJwk;
  keyAgreement: PrivateJwk;
  assertion: PrivateJwk;
}

const COLLECTION = 'svc-identity';

/** HTTP(S) base URL → WebSocket URL of the same origin and path. */
export function wsUrl(httpUrl: string): string {
  return httpUrl.replace(/^http/, 'ws');
}

/** Loads the service keys (creating them on first start) and builds the did:web document for publicUrl. */
export async function loadServiceIdentity(store: Store, publicUrl: string): Promise<ServiceIdentity> {
  const col = store.collection<StoredKeys>(COLLECTION);
  let stored = await col.get('keys');
  if (!stored) {
    stored = {
      authentication: privateJwk(generateKeyPair('Ed25519')),
      keyAgreement: privateJwk(generateKeyPair('X25519')),
      assertion: privateJwk(generateKeyPair('Ed25519')),
    };
    await col.put('keys', stored);
  }
  const auth = keyPairFromJwk(stored.authentication);
  const agreement = keyPairFromJwk(stored.keyAgreement);
  const assertion = keyPairFromJwk(stored.assertion);

  const did = didWebFromUrl(publicUrl);
  const [k1, k2, k3] = [`${did}#key-1`, `${did}#key-2`, `${did}#key-3`];
  const document = buildDocument({
    id: did,
    context: [JWS_2020_CONTEXT],
    keys: [
      { method: jwkMethod(did, k1, auth), purposes: ['authentication'] },
      { method: jwkMethod(did, k2, agreement), purposes: ['keyAgreement'] },
      { method: jwkMethod(did, k3, assertion), purposes: ['assertionMethod'] },
    ],
    // DIDComm v2 §9.12: HTTP first (preferred), then WebSocket on the same path.
    services: [
      didcommService(`${did}#didcomm`, `${publicUrl}/didcomm`),
      didcommService(`${did}#didcomm-ws`, `${wsUrl(publicUrl)}/didcomm`),
    ],
  });
  return {
    did,
    document,
    secrets: [secretFor(k1, auth), secretFor(k2, agreement)],
    authenticationKid: k1,
    keyAgreementKid: k2,
    assertionKid: k3,
    assertionKey: assertion,
  };
}
