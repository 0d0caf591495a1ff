// The standalone mediator's own DID: a did:peer:2 with an Ed25519 authentication key (V, key-1),
// an X25519 key agreement key (E, key-2) and two DIDCommMessaging services, HTTP first (what
// senders POST forwards to, and where the Identus SDK sends everything) and the WebSocket on the
// same path (live mode; the Identus SDK looks for a ws:// service). A peer DID resolves offline
// for every client, so a mobile wallet needs nothing but the DID. The keys are made once and kept
// in the store; the DID follows the public URL the mediator is started with.
import { didcommService, secretFor } from '../did/document.js';
import { encodePeerDid2, resolvePeerDid } from '../did/peer.js';
import type { DIDDocument, Secret } from '../did/types.js';
import { generateKeyPair, keyPairFromJwk, privateJwk, toMultikey, type PrivateJwk } from '../keys.js';
import type { Store } from '../store/store.js';

export interface MediatorIdentity {
  did: string;
  document: DIDDocument;
  /** The DIDComm secrets, ids `did#key-1` (authentication) and `did#key-2` (keyAgreement). */
  secrets: Secret[];
}

interface StoredKeys {
  authentication: PrivateJwk;
  keyAgreement: PrivateJwk;
}

const COLLECTION = 'med-identity';

/** http(s)://… → ws(s)://… of the same origin and path. */
export const wsUrlOf = (httpUrl: string): string => httpUrl.replace(/^http/, 'ws');

export async function loadMediatorIdentity(store: Store, publicUrl: string): Promise<MediatorIdentity> {
  const col = store.collection<StoredKeys>(COLLECTION);
  let stored = await col.get('keys');
  if (!stored) {
    stored = { authentication: privateJwk(generateKeyPair('Ed25519')), keyAgreement: privateJwk(generateKeyPair('X25519')) };
    await col.put('keys', stored);
  }
  const auth = keyPairFromJwk(stored.authentication);
  const agree = keyPairFromJwk(stored.keyAgreement);
  const base = publicUrl.replace(/\/+$/, '');
  const did = encodePeerDid2({
    keys: [
      { purpose: 'V', publicKeyMultibase: toMultikey(auth) },
      { purpose: 'E', publicKeyMultibase: toMultikey(agree) },
    ],
    services: [didcommService('#didcomm', `${base}/didcomm`), didcommService('#didcomm-ws', `${wsUrlOf(base)}/didcomm`)] as unknown as Record<string, unknown>[],
  });
  return { did, document: resolvePeerDid(did), secrets: [secretFor(`${did}#key-1`, auth), secretFor(`${did}#key-2`, agree)] };
}
