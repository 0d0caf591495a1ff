// Test parties, a Map-based DocumentResolver and the DIF spec vectors for the envelope tests.
import { readFileSync } from 'node:fs';
import type { DIDDocument, DocumentResolver, Secret, Service } from '../../src/did/types.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import type { EnvelopeContext, PlainMessage } from '../../src/didcomm/types.js';
import { generateKeyPair, privateJwk, publicJwk, type KeyPair } from '../../src/keys.js';

export interface Party {
  did: string;
  doc: DIDDocument;
  secrets: Secret[];
  signing: KeyPair;
  agreement: KeyPair;
}

/** A did:example party with JsonWebKey2020 keys `#key-1` (Ed25519) and `#key-2` (X25519). */
export function makeParty(name: string, opts: { endpoint?: string; routingKeys?: string[]; did?: string } = {}): Party {
  const did = opts.did ?? `did:example:${name}`;
  const signing = generateKeyPair('Ed25519');
  const agreement = generateKeyPair('X25519');
  const service: Service[] = opts.endpoint
    ? [{ id: `${did}#didcomm`, type: 'DIDCommMessaging', serviceEndpoint: { uri: opts.endpoint, accept: ['didcomm/v2'], routingKeys: opts.routingKeys ?? [] } }]
    : [];
  const doc: DIDDocument = {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
    id: did,
    verificationMethod: [
      { id: `${did}#key-1`, type: 'JsonWebKey2020', controller: did, publicKeyJwk: publicJwk(signing) },
      { id: `${did}#key-2`, type: 'JsonWebKey2020', controller: did, publicKeyJwk: publicJwk(agreement) },
    ],
    authentication: [`${did}#key-1`],
    assertionMethod: [`${did}#key-1`],
    keyAgreement: [`${did}#key-2`],
    service,
  };
  const secrets: Secret[] = [
    { id: `${did}#key-1`, type: 'JsonWebKey2020', privateKeyJwk: privateJwk(signing, `${did}#key-1`) },
    { id: `${did}#key-2`, type: 'JsonWebKey2020', privateKeyJwk: privateJwk(agreement, `${did}#key-2`) },
  ];
  return { did, doc, secrets, signing, agreement };
}

/** A DocumentResolver over a Map; `calls` counts lookups. */
export function mapResolver(docs: DIDDocument[] | Map<string, DIDDocument>): DocumentResolver & { docs: Map<string, DIDDocument>; calls: string[] } {
  const map = docs instanceof Map ? docs : new Map(docs.map((d) => [d.id, d]));
  const calls: string[] = [];
  const resolve = (async (did: string) => {
    calls.push(did);
    return map.get(did) ?? null;
  }) as DocumentResolver & { docs: Map<string, DIDDocument>; calls: string[] };
  resolve.docs = map;
  resolve.calls = calls;
  return resolve;
}

export function contextFor(party: { secrets: Secret[] }, resolve: DocumentResolver): EnvelopeContext {
  return { resolve, secrets: memorySecrets(party.secrets) };
}

let counter = 0;
export function message(from: Party | undefined, to: Party | undefined, body: Record<string, unknown> = { hello: 'world' }): PlainMessage {
  counter += 1;
  const m: PlainMessage = { id: `msg-${counter}`, type: 'https://example.com/protocols/test/1.0/hello', body, created_time: 1_700_000_000 };
  if (from) m.from = from.did;
  if (to) m.to = [to.did];
  return m;
}

const VECTORS = new URL('../../fixtures/didcomm-v2-spec/', import.meta.url);

export function readVector(name: string): string {
  return readFileSync(new URL(name, VECTORS), 'utf8');
}

/** Spec secrets as our Secret type; secrets-bob.json's `"kid "` (trailing space) is normalised. */
export function vectorSecrets(name: 'secrets-alice.json' | 'secrets-bob.json'): Secret[] {
  const raw = JSON.parse(readVector(name)) as Record<string, unknown>[];
  return raw.map((entry) => {
    const jwk: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(entry)) jwk[k.trim()] = v;
    const kid = jwk.kid as string;
    return { id: kid, type: 'JsonWebKey2020', privateKeyJwk: jwk as unknown as Secret['privateKeyJwk'] };
  });
}

export function vectorDocs(): DIDDocument[] {
  return [JSON.parse(readVector('diddocs-alice.json')), JSON.parse(readVector('diddocs-bob.json'))];
}
