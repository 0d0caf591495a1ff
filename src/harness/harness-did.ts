// The harness's own DID, in the method the user picks (`--as`): the identity the agent under test
// answers. Each key is listed once, in the form other resolvers read: a did:peer:2 names its
// key-agreement key (E) first, then the authentication key (V), then a separate assertion key (A)
// that signs the credentials it issues as issuer (DIF Peer DID Method §Method 2; resolvers that
// merge a key listed twice renumber the keys and then miss the key-agreement one). A did:peer:4
// (§Method 4) holds the same three keys in its document and is used in its long form, which an
// agent can resolve without having seen it before. A did:web is served by the harness itself at
// /.well-known/did.json on its 127.0.0.1 server.
import { DID_CONTEXT, didcommService, MULTIKEY_CONTEXT, secretFor } from '../did/document.js';
import { encodePeerDid2, resolvePeerDid } from '../did/peer.js';
import { encodePeerDid4, peer4LongDocument } from '../did/peer4.js';
import type { DIDDocument, Secret } from '../did/types.js';
import { createWebDid, didWebFromUrl } from '../did/web.js';
import { generateKeyPair, toMultikey, type KeyPair } from '../keys.js';

export type HarnessDidMethod = 'did:peer:2' | 'did:peer:4' | 'did:web';
export const HARNESS_DID_METHODS: readonly HarnessDidMethod[] = ['did:peer:2', 'did:peer:4', 'did:web'];

export interface HarnessIdentity {
  did: string;
  document: DIDDocument;
  secrets: Secret[];
  /** The authentication key: signs messages (JWS) and presentations. */
  authentication: { kid: string; keys: KeyPair };
  /** The assertion key: signs the credentials the harness issues. */
  assertion: { kid: string; keys: KeyPair };
  /** The document to serve at /.well-known/did.json (did:web only). */
  wellKnown?: string;
}

/** The harness's identity for `method`; `baseUrl` is its HTTP server, `endpoint` its DIDComm endpoint there. */
export function harnessIdentity(method: HarnessDidMethod, baseUrl: string, endpoint: string): HarnessIdentity {
  if (method === 'did:web') return webIdentity(baseUrl, endpoint);
  if (method === 'did:peer:4') return peer4Identity(endpoint);
  const agree = generateKeyPair('X25519');
  const auth = generateKeyPair('Ed25519');
  const assert = generateKeyPair('Ed25519');
  const did = encodePeerDid2({
    keys: [
      { purpose: 'E', publicKeyMultibase: toMultikey(agree) },
      { purpose: 'V', publicKeyMultibase: toMultikey(auth) },
      { purpose: 'A', publicKeyMultibase: toMultikey(assert) },
    ],
    services: [didcommService('#didcomm', endpoint) as unknown as Record<string, unknown>],
  });
  // did:peer:2 resolution numbers the keys in DID order: key-1 E, key-2 V, key-3 A.
  const ids = { agree: `${did}#key-1`, auth: `${did}#key-2`, assert: `${did}#key-3` };
  return {
    did,
    document: resolvePeerDid(did),
    secrets: [secretFor(ids.agree, agree), secretFor(ids.auth, auth), secretFor(ids.assert, assert)],
    authentication: { kid: ids.auth, keys: auth },
    assertion: { kid: ids.assert, keys: assert },
  };
}

/** A did:peer:4 long form: key-1 X25519 (keyAgreement), key-2 Ed25519 (authentication), key-3 Ed25519 (assertionMethod). */
function peer4Identity(endpoint: string): HarnessIdentity {
  const agree = generateKeyPair('X25519');
  const auth = generateKeyPair('Ed25519');
  const assert = generateKeyPair('Ed25519');
  const { long: did } = encodePeerDid4({
    '@context': [DID_CONTEXT, MULTIKEY_CONTEXT],
    verificationMethod: [
      { id: '#key-1', type: 'Multikey', publicKeyMultibase: toMultikey(agree) },
      { id: '#key-2', type: 'Multikey', publicKeyMultibase: toMultikey(auth) },
      { id: '#key-3', type: 'Multikey', publicKeyMultibase: toMultikey(assert) },
    ],
    keyAgreement: ['#key-1'],
    authentication: ['#key-2'],
    assertionMethod: ['#key-3'],
    service: [didcommService('#didcomm', endpoint)],
  });
  const ids = { agree: `${did}#key-1`, auth: `${did}#key-2`, assert: `${did}#key-3` };
  return {
    did,
    document: peer4LongDocument(did),
    secrets: [secretFor(ids.agree, agree), secretFor(ids.auth, auth), secretFor(ids.assert, assert)],
    authentication: { kid: ids.auth, keys: auth },
    assertion: { kid: ids.assert, keys: assert },
  };
}

/** did:web:127.0.0.1%3A<port>: key-1 Ed25519 (authentication and assertion), key-2 X25519, the DIDComm endpoint. */
function webIdentity(baseUrl: string, endpoint: string): HarnessIdentity {
  const auth = generateKeyPair('Ed25519');
  const created = createWebDid({ url: baseUrl, endpoint, authenticationKey: auth });
  const did = didWebFromUrl(baseUrl);
  return {
    did,
    document: created.document,
    secrets: created.secrets,
    authentication: { kid: `${did}#key-1`, keys: auth },
    assertion: { kid: `${did}#key-1`, keys: auth },
    wellKnown: JSON.stringify(created.document),
  };
}
