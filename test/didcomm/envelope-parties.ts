// Parties with keys on any curve the envelope engines know, for the differential, property and
// refusal tests: JsonWebKey2020 keys made with node:crypto, keyAgreement keys `#ka-<n>` and
// authentication keys `#auth-<n>`, in the order given.
import { generateKeyPairSync } from 'node:crypto';
import type { DIDDocument, Secret, Service, VerificationMethod } from '../../src/did/types.js';

export type AgreementCurve = 'X25519' | 'P-256' | 'P-384' | 'P-521';
export type SigningCurve = 'Ed25519' | 'P-256' | 'secp256k1';

/** The curves both engines agree keys on, and sign with. */
export const SHARED_AGREEMENT: AgreementCurve[] = ['X25519', 'P-256'];
export const SHARED_SIGNING: SigningCurve[] = ['Ed25519', 'P-256', 'secp256k1'];
export const ALL_AGREEMENT: AgreementCurve[] = ['X25519', 'P-256', 'P-384', 'P-521'];

// Both halves come out of the key generation as JWK; no generated KeyObject is exported later.
// On Node 20, keyObject.export({format: 'jwk'}) of a key from generateKeyPairSync holds the key's
// mutex while it allocates JS strings; a garbage collection there that frees the finished key
// generation job runs its destructor, which takes the same mutex: the thread deadlocks in a futex
// wait (no CPU, so no timer — vitest's test timeout — can fire). The property tests make parties
// for every run and once hung the full suite this way (keygen-export.test.ts keeps the pattern out).
const JWK = { format: 'jwk' } as unknown as { format: 'der'; type: 'spki' };

export function jwkPair(curve: AgreementCurve | SigningCurve): { publicJwk: Record<string, string>; privateJwk: Record<string, string> } {
  const encodings = { publicKeyEncoding: JWK, privateKeyEncoding: JWK as unknown as { format: 'der'; type: 'pkcs8' } };
  const pair =
    curve === 'X25519' ? generateKeyPairSync('x25519', encodings) : curve === 'Ed25519' ? generateKeyPairSync('ed25519', encodings) : generateKeyPairSync('ec', { namedCurve: curve, ...encodings });
  const privateJwk = pair.privateKey as unknown as Record<string, string>;
  const { d: _d, ...publicJwk } = privateJwk;
  return { publicJwk, privateJwk };
}

export interface CurveParty {
  did: string;
  doc: DIDDocument;
  secrets: Secret[];
  agreementKids: string[];
  signingKids: string[];
}

export function curveParty(
  name: string,
  o: { agreement?: AgreementCurve[]; signing?: SigningCurve[]; endpoint?: string; routingKeys?: string[] } = {},
): CurveParty {
  const did = `did:example:${name}`;
  const doc: DIDDocument = { id: did, verificationMethod: [], authentication: [], keyAgreement: [] };
  const secrets: Secret[] = [];
  const add = (kid: string, curve: AgreementCurve | SigningCurve) => {
    const { publicJwk, privateJwk } = jwkPair(curve);
    doc.verificationMethod!.push({ id: kid, type: 'JsonWebKey2020', controller: did, publicKeyJwk: publicJwk as unknown as VerificationMethod['publicKeyJwk'] });
    secrets.push({ id: kid, type: 'JsonWebKey2020', privateKeyJwk: { ...privateJwk, kid } as unknown as Secret['privateKeyJwk'] });
    return kid;
  };
  const agreementKids = (o.agreement ?? ['X25519']).map((c, i) => add(`${did}#ka-${i + 1}`, c));
  const signingKids = (o.signing ?? ['Ed25519']).map((c, i) => add(`${did}#auth-${i + 1}`, c));
  doc.keyAgreement = [...agreementKids];
  doc.authentication = [...signingKids];
  if (o.endpoint) {
    const service: Service = { id: `${did}#didcomm`, type: 'DIDCommMessaging', serviceEndpoint: { uri: o.endpoint, accept: ['didcomm/v2'], routingKeys: o.routingKeys ?? [] } };
    doc.service = [service];
  }
  return { did, doc, secrets, agreementKids, signingKids };
}
