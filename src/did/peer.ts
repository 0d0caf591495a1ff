// did:peer (DIF Peer DID Method Specification): numalgo 2 (§Method 2: multiple inception keys
// without doc) created and resolved; numalgo 0 (§Method 0) resolved like did:key; numalgo 3
// (§Method 3: SHA-256 shortening) resolved when the registry maps it to its did:peer:2; numalgo 4
// (§Method 4) in peer4.ts. Resolved documents use Multikey methods with absolute ids did#key-1,
// did#key-2… in DID order.
import { b64uDecodeText, b64uEncode, base58btcDecode, multibaseEncode, sha256Multihash } from '../encoding.js';
import { IdsyncError } from '../errors.js';
import { generateKeyPair, toMultikey, type KeyPair } from '../keys.js';
import {
  absoluteId, buildDocument, didcommService, documentResult, errorResult, MULTIKEY_CONTEXT, secretFor,
  type KeyEntry, type Purpose,
} from './document.js';
import { keyDidDocument } from './key.js';
import { peer4LongDocument, resolvePeer4 } from './peer4.js';
import type { CreatedDid, DIDDocument, DIDResolutionResult, DidRegistry, Service } from './types.js';
import { ownEntry } from '../own-entry.js';

/** §Method 2 purpose codes; S marks a service. */
export type PeerPurposeCode = 'A' | 'E' | 'V' | 'I' | 'D';
const PURPOSES: Record<PeerPurposeCode, Purpose> = {
  A: 'assertionMethod', E: 'keyAgreement', V: 'authentication', I: 'capabilityInvocation', D: 'capabilityDelegation',
};

// §Method 2 "Common String Abbreviations": key names anywhere in the service, and the type value.
const NAMES: Record<string, string> = { type: 't', serviceEndpoint: 's', routingKeys: 'r', accept: 'a' };
const TYPES: Record<string, string> = { DIDCommMessaging: 'dm' };
const invert = (m: Record<string, string>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [v, k]));
const NAMES_BACK = invert(NAMES);
const TYPES_BACK = invert(TYPES);

function transform(value: unknown, names: Record<string, string>, types: Record<string, string>, typeKey: string): unknown {
  if (Array.isArray(value)) return value.map((v) => transform(v, names, types, typeKey));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // A DID's service is anyone's JSON: a name such as "constructor" is no abbreviation, and a
    // member named "__proto__" stays a member (as JSON.parse made it), not the object's prototype.
    const name = ownEntry(names, k) ?? k;
    const member = k === typeKey && typeof v === 'string' ? (ownEntry(types, v) ?? v) : transform(v, names, types, typeKey);
    Object.defineProperty(out, name, { value: member, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Service → abbreviated form (DIDCommMessaging → dm, serviceEndpoint → s, …). */
export function abbreviateService(service: Record<string, unknown>): Record<string, unknown> {
  return transform(service, NAMES, TYPES, 'type') as Record<string, unknown>;
}

export function expandService(service: Record<string, unknown>): Record<string, unknown> {
  return transform(service, NAMES_BACK, TYPES_BACK, 't') as Record<string, unknown>;
}

/** Encodes a did:peer:2 from keys (in order) and services (each encoded on its own, §Method 2). */
export function encodePeerDid2(input: {
  keys: { purpose: PeerPurposeCode; publicKeyMultibase: string }[];
  services?: Record<string, unknown>[];
}): string {
  const keys = input.keys.map((k) => `.${k.purpose}${k.publicKeyMultibase}`).join('');
  // JSON without whitespace, members in the order given (the spec's examples rely on it).
  const services = (input.services ?? []).map((s) => `.S${b64uEncode(JSON.stringify(abbreviateService(s)))}`).join('');
  return `did:peer:2${keys}${services}`;
}

/**
 * A new did:peer:2: key-1 X25519 (E, keyAgreement), key-2 Ed25519 (V, authentication), optional
 * DIDComm service '#didcomm'. E before V and each key once is the form other libraries write
 * (Veramo's PeerDIDProvider, the Identus SDK's Castor) and read alike: Veramo's resolver
 * (@aviarytech/did-peer) numbers only V and E elements, so a key listed twice or an A element
 * before E gives its keys other ids than the DIF numbering every other resolver uses.
 */
export function createPeerDid(options: {
  endpoint?: string;
  routingKeys?: string[];
  authenticationKey?: KeyPair;
  keyAgreementKey?: KeyPair;
} = {}): CreatedDid {
  const auth = options.authenticationKey ?? generateKeyPair('Ed25519');
  const agree = options.keyAgreementKey ?? generateKeyPair('X25519');
  if (auth.type !== 'Ed25519' || agree.type !== 'X25519') {
    throw new IdsyncError('invalid_argument', 'did:peer:2 needs an Ed25519 authentication key and an X25519 key agreement key');
  }
  const services = options.endpoint ? [didcommService('#didcomm', options.endpoint, options.routingKeys ?? [])] : [];
  const did = encodePeerDid2({
    keys: [{ purpose: 'E', publicKeyMultibase: toMultikey(agree) }, { purpose: 'V', publicKeyMultibase: toMultikey(auth) }],
    services: services as unknown as Record<string, unknown>[],
  });
  return { did, document: resolvePeerDid(did), secrets: [secretFor(`${did}#key-1`, agree), secretFor(`${did}#key-2`, auth)] };
}

/** §Method 3: did:peer:3 + multibase(multihash(SHA-256(the did:peer:2 DID without 'did:peer:2'))). */
export function peerDid3(peer2: string): string {
  if (!peer2.startsWith('did:peer:2')) throw new IdsyncError('invalid_argument', 'not a did:peer:2 DID');
  return `did:peer:3${multibaseEncode(sha256Multihash(peer2.slice('did:peer:2'.length)))}`;
}

function invalid(message: string, cause?: unknown): IdsyncError {
  return new IdsyncError('invalid_did', message, { cause });
}

// DIDComm v2.0 peer DIDs put accept/routingKeys beside a string endpoint; give them the v2.1 object form.
function normaliseDidcomm(service: Record<string, unknown>): Record<string, unknown> {
  if (service.type !== 'DIDCommMessaging' || typeof service.serviceEndpoint !== 'string') return service;
  const { accept, routingKeys, serviceEndpoint, ...rest } = service;
  return { ...rest, serviceEndpoint: { uri: serviceEndpoint, ...(accept ? { accept } : {}), routingKeys: routingKeys ?? [] } };
}

/** What resolution read that the method spec does not allow, kept as a note instead of a failure. */
export interface ResolutionWarning {
  code: string;
  message: string;
}

// §Method 2: "When encoding multiple services, they MUST be encoded individually and concatenated
// together. The services MUST NOT be encoded as a JSON list." The Identus SDK (Castor's
// PeerDIDCreate) still writes a list, and an empty one (`.SW10`) when a DID has no service; its
// mediation requests come from such DIDs, so a list is read and noted rather than refused.
const SERVICE_LIST_WARNING: ResolutionWarning = {
  code: 'peer2_service_list',
  message: 'an S element holds a JSON list of services (DIF did:peer §Method 2: "The services MUST NOT be encoded as a JSON list"); read as its services',
};

function decodeServices(body: string): { services: Record<string, unknown>[]; list: boolean } {
  let decoded: unknown;
  try {
    decoded = JSON.parse(b64uDecodeText(body));
  } catch (err) {
    throw invalid('a did:peer:2 service is not base64url JSON', err);
  }
  const isService = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (Array.isArray(decoded)) {
    if (!decoded.every(isService)) throw invalid('a did:peer:2 service list holds something other than services');
    return { services: decoded, list: true };
  }
  if (!isService(decoded)) throw invalid('a did:peer:2 service is not an object');
  return { services: [decoded], list: false };
}

/** §Method 2 "Resolving a did:peer:2", with `id` as the document id (the did:peer:3 alias when given). */
/** Longer than any public key a multikey holds (an RSA-4096 one is about 730 characters). */
const MULTIKEY_MAX = 2048;
/** Multicodec varint prefix → key length: ed25519-pub (0xed) and x25519-pub (0xec), 32 bytes each (RFC 8032, RFC 7748). */
const KEY_BYTES: ReadonlyMap<string, number> = new Map([['237,1', 32], ['236,1', 32]]);

/** A key of a codec whose length is known must have that length; other codecs pass (their keys go unused). */
function checkKeyLength(bytes: Uint8Array): void {
  const expected = KEY_BYTES.get(`${bytes[0]},${bytes[1]}`);
  if (expected !== undefined && bytes.length !== expected + 2) throw invalid(`a did:peer:2 ${bytes[0] === 0xed ? 'Ed25519' : 'X25519'} key is ${bytes.length - 2} bytes, not ${expected}`);
}

function peer2Document(peer2: string, id: string, alsoKnownAs?: string[]): { document: DIDDocument; warnings: ResolutionWarning[] } {
  const elements = peer2.slice('did:peer:2'.length).split('.');
  if (elements.shift() !== '' || elements.length === 0) throw invalid('a did:peer:2 is did:peer:2.<element>[.<element>…]');
  const keys: KeyEntry[] = [];
  const services: Service[] = [];
  const warnings: ResolutionWarning[] = [];
  let generated = 0;
  for (const element of elements) {
    const code = element[0];
    const body = element.slice(1);
    if (code === 'S') {
      const decoded = decodeServices(body);
      if (decoded.list && !warnings.some((w) => w.code === SERVICE_LIST_WARNING.code)) warnings.push({ ...SERVICE_LIST_WARNING });
      for (const raw of decoded.services) {
        const svc = normaliseDidcomm(expandService(raw));
        // Services without an id get #service, #service-1, #service-2… (§Method 2, clarified).
        const ref = typeof svc.id === 'string' ? svc.id : generated++ === 0 ? '#service' : `#service-${generated - 1}`;
        services.push({ ...svc, id: absoluteId(id, ref) } as Service);
      }
    } else if (code in PURPOSES) {
      if (!/^z[1-9A-HJ-NP-Za-km-z]{46,}$/.test(body) || body.length > MULTIKEY_MAX) throw invalid('a did:peer:2 key is not a base58btc multikey');
      checkKeyLength(base58btcDecode(body.slice(1)));
      keys.push({
        method: { id: `${id}#key-${keys.length + 1}`, type: 'Multikey', controller: id, publicKeyMultibase: body },
        purposes: [PURPOSES[code as PeerPurposeCode]],
      });
    } else {
      throw invalid(`unknown did:peer:2 purpose code '${code ?? ''}'`);
    }
  }
  return { document: buildDocument({ id, context: [MULTIKEY_CONTEXT], keys, services, alsoKnownAs }), warnings };
}

/**
 * Resolves did:peer:0, did:peer:2 and a did:peer:4 long form offline (a did:peer:2 whose services
 * are a JSON list too; the note on that is in resolvePeer's metadata). Throws IdsyncError
 * 'invalid_did' or 'unsupported_did'.
 */
export function resolvePeerDid(input: string): DIDDocument {
  const did = input.split(/[?#]/)[0];
  if (did.startsWith('did:peer:2')) return peer2Document(did, did).document;
  if (/^did:peer:4zQm[1-9A-HJ-NP-Za-km-z]{44}:/.test(did)) return peer4LongDocument(did);
  if (did.startsWith('did:peer:0')) {
    try {
      return keyDidDocument(did, did.slice('did:peer:0'.length));
    } catch (err) {
      throw invalid(`invalid did:peer:0: ${(err as Error).message}`, err);
    }
  }
  if (/^did:peer:[0-9]/.test(did)) throw new IdsyncError('unsupported_did', `did:peer numalgo ${did[9]} is not supported offline`);
  throw invalid('a did:peer starts with did:peer:<numalgo>');
}

/** A document result, with what was read against the method spec as `didResolutionMetadata.warnings`. */
function noted(result: DIDResolutionResult, warnings: ResolutionWarning[]): DIDResolutionResult {
  return warnings.length ? { ...result, didResolutionMetadata: { ...result.didResolutionMetadata, warnings } } : result;
}

/**
 * The did:peer method resolver (never throws); did:peer:3 needs the registry to hold its
 * did:peer:2, and a did:peer:4 short form its long form.
 */
export async function resolvePeer(did: string, registry?: DidRegistry): Promise<DIDResolutionResult> {
  try {
    if (did.startsWith('did:peer:4')) return await resolvePeer4(did, registry);
    if (did.startsWith('did:peer:2')) {
      const { document, warnings } = peer2Document(did, did);
      return noted(documentResult(document), warnings);
    }
    if (!did.startsWith('did:peer:3')) return documentResult(resolvePeerDid(did));
    if (!/^did:peer:3zQm[1-9A-HJ-NP-Za-km-z]{44}$/.test(did)) return errorResult('invalidDid', 'a did:peer:3 is did:peer:3zQm…');
    const peer2 = await registry?.get(did).catch(() => undefined);
    if (!peer2 || !peer2.startsWith('did:peer:2') || peerDid3(peer2) !== did) {
      return errorResult('notFound', `${did} is not known here; its did:peer:2 form must be received first`);
    }
    const { document, warnings } = peer2Document(peer2, did, [peer2]);
    return noted(documentResult(document, { equivalentId: [peer2] }), warnings);
  } catch (err) {
    const code = (err as IdsyncError).code;
    return errorResult(code === 'unsupported_did' ? 'methodNotSupported' : 'invalidDid', (err as Error).message);
  }
}
