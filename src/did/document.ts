// Shared W3C DID document and resolution-result builders (DID Core §5, §7.1) used by every method.
// All ids we emit are absolute (`did#fragment`): the DIDComm layer matches key ids as strings.
import type { DIDDocumentMetadata, DIDResolutionResult, VerificationRelationship } from 'did-resolver';
import { privateJwk, publicJwk, toMultikey, type KeyPair } from '../keys.js';
import type { DIDDocument, Secret, Service, VerificationMethod } from './types.js';

export type Purpose = VerificationRelationship;

export const DID_CONTEXT = 'https://www.w3.org/ns/did/v1';
/** JsonWebKey2020 verification methods (W3C CCG JWS 2020). */
export const JWS_2020_CONTEXT = 'https://w3id.org/security/suites/jws-2020/v1';
/** Multikey verification methods (W3C Controlled Identifiers §2.2.2). */
export const MULTIKEY_CONTEXT = 'https://w3id.org/security/multikey/v1';

/** A verification method plus the relationships (DID Core §5.3) it is referenced from. */
export interface KeyEntry {
  method: VerificationMethod;
  purposes: Purpose[];
}

const RELATIONSHIPS: Purpose[] = ['authentication', 'assertionMethod', 'keyAgreement', 'capabilityInvocation', 'capabilityDelegation'];

/** The purposes our own DIDs give each key type: Ed25519 signs, X25519 agrees keys. */
export function defaultPurposes(kp: Pick<KeyPair, 'type'>): Purpose[] {
  return kp.type === 'Ed25519' ? ['authentication', 'assertionMethod'] : ['keyAgreement'];
}

export function jwkMethod(did: string, id: string, kp: Pick<KeyPair, 'type' | 'publicKey'>): VerificationMethod {
  return { id, type: 'JsonWebKey2020', controller: did, publicKeyJwk: publicJwk(kp) };
}

export function multikeyMethod(did: string, id: string, kp: Pick<KeyPair, 'type' | 'publicKey'>): VerificationMethod {
  return { id, type: 'Multikey', controller: did, publicKeyMultibase: toMultikey(kp) };
}

/** Makes a relative reference (`#frag`) absolute against `did`; absolute ones are kept. */
export function absoluteId(did: string, ref: string): string {
  return ref.startsWith('#') ? did + ref : ref;
}

/**
 * Builds a DID document: every key is in `verificationMethod` and relationships hold key-id
 * strings (the shape didcomm-node needs); `service` is always present, possibly empty.
 */
export function buildDocument(input: {
  id: string;
  context: string[];
  keys: KeyEntry[];
  services?: Service[];
  alsoKnownAs?: string[];
}): DIDDocument {
  const doc: DIDDocument = { '@context': [DID_CONTEXT, ...input.context.filter((c) => c !== DID_CONTEXT)], id: input.id };
  if (input.alsoKnownAs?.length) doc.alsoKnownAs = input.alsoKnownAs;
  doc.verificationMethod = input.keys.map((k) => k.method);
  for (const rel of RELATIONSHIPS) {
    const ids = input.keys.filter((k) => k.purposes.includes(rel)).map((k) => k.method.id);
    if (ids.length) doc[rel] = ids;
  }
  doc.service = input.services ?? [];
  return doc;
}

/** DIDComm Messaging v2 §9.12 service with the v2.1 object endpoint `{uri, accept, routingKeys}`. */
export function didcommService(id: string, uri: string, routingKeys: string[] = []): Service {
  return { id, type: 'DIDCommMessaging', serviceEndpoint: { uri, accept: ['didcomm/v2'], routingKeys } };
}

/** The private key in the form the DIDComm layer needs: `id` and JWK `kid` are the full key id. */
export function secretFor(kid: string, kp: KeyPair): Secret {
  return { id: kid, type: 'JsonWebKey2020', privateKeyJwk: privateJwk(kp, kid) };
}

// DID Core §7.1.2 / DID Resolution: error results carry a code and no document; never thrown.
export type ResolutionError = 'invalidDid' | 'notFound' | 'methodNotSupported';

/**
 * `extra`: extension properties of the resolution metadata (DID Resolution §didResolutionMetadata
 * allows them), e.g. `{code: 'transport_unreachable', url}` when a did:web host could not be reached.
 */
export function errorResult(error: ResolutionError, message: string, extra: Record<string, unknown> = {}): DIDResolutionResult {
  return { didResolutionMetadata: { ...extra, error, message }, didDocument: null, didDocumentMetadata: {} };
}

export function documentResult(didDocument: DIDDocument, didDocumentMetadata: DIDDocumentMetadata = {}): DIDResolutionResult {
  return { didResolutionMetadata: { contentType: 'application/did+ld+json' }, didDocument, didDocumentMetadata };
}
