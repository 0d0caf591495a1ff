// did:peer:4 (DIF Peer DID Method Specification §Method 4: Short Form and Long Form): the long form
// carries the whole input document, did:peer:4<hash>:<encoded document>; the short form is the
// hash alone and resolves only once its long form was seen (the registry holds it). Required at
// the DIF DIDComm interop events alongside did:peer:2. Resolved documents get absolute ids, as all
// of ours (document.ts): §Method 4 "Long form" allows it ("Implementations may turn relative
// references in the document into absolute references").
import { memoBounded } from '../bounded.js';
import { base58btcDecode, base58btcEncode, multibaseEncode, sha256Multihash } from '../encoding.js';
import { IdsyncError } from '../errors.js';
import { generateKeyPair, toMultikey, type KeyPair } from '../keys.js';
import { absoluteId, didcommService, documentResult, errorResult, MULTIKEY_CONTEXT, DID_CONTEXT, secretFor } from './document.js';
import type { CreatedDid, DIDDocument, DIDResolutionResult, DidRegistry } from './types.js';

const PREFIX = 'did:peer:4';
// Multicodec `json` (0x0200) as an unsigned varint.
const JSON_CODEC = Uint8Array.of(0x80, 0x04);
const BASE58 = '[1-9A-HJ-NP-Za-km-z]';
// The hash: multibase base58btc of a SHA2-256 multihash (0x12 0x20 ‖ 32 bytes), always 'zQm' + 44.
const SHORT = new RegExp(`^did:peer:4(zQm${BASE58}{44})$`);
const LONG = new RegExp(`^did:peer:4(zQm${BASE58}{44}):(z${BASE58}+)$`);

const RELATIONSHIPS = ['authentication', 'assertionMethod', 'keyAgreement', 'capabilityInvocation', 'capabilityDelegation'] as const;

function invalid(message: string, cause?: unknown): IdsyncError {
  return new IdsyncError('invalid_did', message, { cause });
}

/** §Method 4 "Creating a DID" step 2: multibase(multihash(SHA2-256(encoded document as UTF-8))). */
function hashOf(encodedDocument: string): string {
  return multibaseEncode(sha256Multihash(encodedDocument));
}

/**
 * §Method 4 "Creating a DID": the long form of an input document (no root `id`, every id and
 * reference relative, JSON without whitespace in the member order given).
 */
export function encodePeerDid4(input: Record<string, unknown>): { long: string; short: string } {
  if ('id' in input) throw new IdsyncError('invalid_argument', 'a did:peer:4 input document has no root id (§Method 4: "MUST NOT include an id at the root")');
  const json = new TextEncoder().encode(JSON.stringify(input));
  const bytes = new Uint8Array(JSON_CODEC.length + json.length);
  bytes.set(JSON_CODEC);
  bytes.set(json, JSON_CODEC.length);
  const encoded = `z${base58btcEncode(bytes)}`;
  const short = `${PREFIX}${hashOf(encoded)}`;
  return { long: `${short}:${encoded}`, short };
}

const LONG_URL = /^(did:peer:4zQm[1-9A-HJ-NP-Za-km-z]{44}):z[1-9A-HJ-NP-Za-km-z]+([?#].*)?$/;

/**
 * Short forms of the long forms seen last, as ion-form.ts keeps them for did:ion: the mediator keys
 * its keylist, queues and live connections by the short form several times per message, and the
 * pattern reads the whole long form each time (0.5 µs on a 780-byte one; a DID string looked up
 * five times costs 2.5 µs so, 1.3 µs with this). Bounded in entries and in length: DIDs come from
 * outside, and a longer one is matched each time.
 */
const shortOfLong = memoBounded(
  (didOrUrl) => {
    const m = LONG_URL.exec(didOrUrl);
    return m ? m[1] + (m[2] ?? '') : didOrUrl;
  },
  1024,
  4096,
);

/** The short form of a did:peer:4 long form (or of a DID URL on it); anything else is returned unchanged. */
export function peer4ShortForm(didOrUrl: string): string {
  return shortOfLong(didOrUrl);
}

/** §Method 4 "Long form" steps 1-3: the input document of a long form, its hash checked. */
export function decodePeerDid4(long: string): Record<string, unknown> {
  const m = LONG.exec(long);
  if (!m) throw invalid('a did:peer:4 long form is did:peer:4zQm<hash>:z<encoded document>');
  const [, hash, encoded] = m;
  if (hashOf(encoded) !== hash) throw invalid('the did:peer:4 hash does not match its encoded document');
  const bytes = base58btcDecode(encoded.slice(1));
  if (bytes[0] !== JSON_CODEC[0] || bytes[1] !== JSON_CODEC[1]) throw invalid('a did:peer:4 document is not multicodec json (0x0200)');
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(JSON_CODEC.length)));
  } catch (err) {
    throw invalid('a did:peer:4 document is not UTF-8 JSON', err);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalid('a did:peer:4 document is not a JSON object');
  if ('id' in doc) throw invalid('a did:peer:4 document has a root id (§Method 4: "MUST NOT include an id at the root")');
  return doc as Record<string, unknown>;
}

type Method = Record<string, unknown> & { id?: unknown; controller?: unknown };

/**
 * §Method 4 "contextualize": `id` set to the DID, the other form appended to `alsoKnownAs`, every
 * verification method (listed or embedded) controlled by the DID unless it names another; ids
 * and references made absolute.
 */
function contextualize(input: Record<string, unknown>, did: string, otherForm: string): DIDDocument {
  const abs = (ref: unknown) => (typeof ref === 'string' ? absoluteId(did, ref) : ref);
  const method = (vm: Method): Method => ({ ...vm, id: abs(vm.id), controller: typeof vm.controller === 'string' ? abs(vm.controller) : did });
  const doc: Record<string, unknown> = { ...input, id: did };
  if (Array.isArray(input.verificationMethod)) doc.verificationMethod = (input.verificationMethod as Method[]).map(method);
  for (const rel of RELATIONSHIPS) {
    const list = input[rel];
    if (Array.isArray(list)) doc[rel] = list.map((entry) => (typeof entry === 'string' ? abs(entry) : method(entry as Method)));
  }
  doc.service = Array.isArray(input.service) ? (input.service as Method[]).map((s) => ({ ...s, id: abs(s.id) })) : [];
  const aka = Array.isArray(input.alsoKnownAs) ? (input.alsoKnownAs as unknown[]).filter((a): a is string => typeof a === 'string') : [];
  doc.alsoKnownAs = aka.includes(otherForm) ? aka : [...aka, otherForm];
  return doc as unknown as DIDDocument;
}

/** The document of a long form, contextualized with the long form as its id. */
export function peer4LongDocument(long: string): DIDDocument {
  return contextualize(decodePeerDid4(long), long, peer4ShortForm(long));
}

/**
 * Resolves a did:peer:4 (never throws): a long form offline; a short form when the registry holds
 * its long form (§Method 4 "Short form": "not possible to resolve a short form did:peer:4 without
 * first seeing and storing it's long form counterpart").
 */
export async function resolvePeer4(did: string, registry?: DidRegistry): Promise<DIDResolutionResult> {
  try {
    if (LONG.test(did)) return documentResult(peer4LongDocument(did), { equivalentId: [peer4ShortForm(did)] });
    if (!SHORT.test(did)) return errorResult('invalidDid', 'a did:peer:4 is did:peer:4zQm<hash>, optionally followed by :z<encoded document>');
    const long = await registry?.get(did).catch(() => undefined);
    if (!long || peer4ShortForm(long) !== did || !LONG.test(long)) {
      return errorResult('notFound', `${did} is not known here; its did:peer:4 long form must be received first`);
    }
    return documentResult(contextualize(decodePeerDid4(long), did, long), { equivalentId: [long] });
  } catch (err) {
    return errorResult('invalidDid', (err as Error).message);
  }
}

/**
 * A new did:peer:4: key-1 X25519 (keyAgreement), key-2 Ed25519 (authentication), as Multikey,
 * and a DIDComm service '#didcomm' when an endpoint is given. `did` is the long form (what a
 * first message must carry), `shortDid` the short form; secrets are under long-form key ids.
 */
export function createPeerDid4(options: { endpoint?: string; routingKeys?: string[]; authenticationKey?: KeyPair; keyAgreementKey?: KeyPair } = {}): CreatedDid {
  const auth = options.authenticationKey ?? generateKeyPair('Ed25519');
  const agree = options.keyAgreementKey ?? generateKeyPair('X25519');
  if (auth.type !== 'Ed25519' || agree.type !== 'X25519') {
    throw new IdsyncError('invalid_argument', 'did:peer:4 needs an Ed25519 authentication key and an X25519 key agreement key');
  }
  const input: Record<string, unknown> = {
    '@context': [DID_CONTEXT, MULTIKEY_CONTEXT],
    verificationMethod: [
      { id: '#key-1', type: 'Multikey', publicKeyMultibase: toMultikey(agree) },
      { id: '#key-2', type: 'Multikey', publicKeyMultibase: toMultikey(auth) },
    ],
    keyAgreement: ['#key-1'],
    authentication: ['#key-2'],
    service: options.endpoint ? [didcommService('#didcomm', options.endpoint, options.routingKeys ?? [])] : [],
  };
  const { long, short } = encodePeerDid4(input);
  return { did: long, shortDid: short, document: peer4LongDocument(long), secrets: [secretFor(`${long}#key-1`, agree), secretFor(`${long}#key-2`, auth)] };
}
