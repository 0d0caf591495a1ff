// Our W3C DID documents and SecretsSource → one normalised shape both engines read: every key a
// JsonWebKey2020 JWK with an absolute id, relationships as id strings (the shape didcomm-node's
// resolvers must return; the native engine reads the same). This file does not import
// didcomm-node: the library shapes are restated here as plain types.
import { shortForm } from '../../did/short-form.js';
import type { DIDDocument, DocumentResolver, Secret, Service, VerificationMethod } from '../../did/types.js';
import { base58btcDecode, multibaseDecode } from '../../encoding.js';
import { fromMultikey, publicJwk, type KeyType } from '../../keys.js';
import type { SecretsSource } from '../types.js';
import { boundedMemo } from './memo.js';
import { setBounded } from '../../bounded.js';
import { ownEntry } from '../../own-entry.js';

/** A verification method as didcomm-node reads it (JsonWebKey2020 is all we hand it). */
export interface LibVerificationMethod {
  id: string;
  type: string;
  controller: string;
  publicKeyJwk: Record<string, unknown>;
}

/** DIDComm Messaging v2 §9.12 service endpoint; didcomm-node reads `routingKeys` in camelCase. */
export interface LibService {
  id: string;
  type: 'DIDCommMessaging';
  serviceEndpoint: { uri: string; accept?: string[]; routingKeys: string[] };
}

/** didcomm-node's DIDDoc: relationships are key-id strings, every key is in verificationMethod. */
export interface LibDidDoc {
  id: string;
  keyAgreement: string[];
  authentication: string[];
  verificationMethod: LibVerificationMethod[];
  service: LibService[];
}

export interface LibSecret {
  id: string;
  type: string;
  privateKeyJwk: Record<string, unknown>;
}

/** didcomm-node's resolver interfaces: every method must return a Promise (a plain value hangs it). */
export interface LibDidResolver {
  resolve(did: string): Promise<LibDidDoc | null>;
}

export interface LibSecretsResolver {
  get_secret(id: string): Promise<LibSecret | null>;
  find_secrets(ids: string[]): Promise<string[]>;
}

/**
 * Holds the first error our own resolver or secrets source threw during one library call:
 * the library only passes on a message, so envelope.ts rethrows the original (with its code).
 */
export interface ErrorTrap {
  error?: unknown;
  source?: 'resolver' | 'secrets';
}

function record(trap: ErrorTrap, source: 'resolver' | 'secrets', err: unknown): void {
  if (trap.error !== undefined) return;
  trap.error = err;
  trap.source = source;
}

// Verification method types whose key material is a raw 32-byte key (no multicodec prefix)
// when given as publicKeyBase58 (Ed25519 2018 / X25519 2019 suites).
const RAW_KEY_TYPES: Record<string, KeyType> = {
  Ed25519VerificationKey2018: 'Ed25519',
  Ed25519VerificationKey2020: 'Ed25519',
  X25519KeyAgreementKey2019: 'X25519',
  X25519KeyAgreementKey2020: 'X25519',
};

const PRIVATE_JWK_MEMBERS = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']);

// Multikey → JWK is a pure function of the string; a DID's keys recur in every message.
const multikeyJwk = boundedMemo(2048, (multibase: string): Readonly<Record<string, unknown>> | null => {
  try {
    return Object.freeze({ ...publicJwk(fromMultikey(multibase)) });
  } catch {
    return null;
  }
});

/** The JWK of a raw 32-byte key of one of RAW_KEY_TYPES, else null. */
function rawKeyJwk(vmType: string, raw: Uint8Array): Record<string, unknown> | null {
  const type = ownEntry(RAW_KEY_TYPES, vmType);
  return type && raw.length === 32 ? { ...publicJwk({ type, publicKey: raw }) } : null;
}

/** The public JWK of a verification method, or null when we cannot express it as one. */
function methodJwk(vm: VerificationMethod): Record<string, unknown> | null {
  if (vm.publicKeyJwk && typeof vm.publicKeyJwk === 'object') {
    // A document never carries private members; drop any that slipped in rather than pass them on.
    const jwk: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(vm.publicKeyJwk)) if (!PRIVATE_JWK_MEMBERS.has(k)) jwk[k] = v;
    return jwk;
  }
  try {
    if (typeof vm.publicKeyMultibase === 'string') {
      // Multikey (W3C CID §2.2.2) and the 2020 suites carry a multicodec-prefixed key.
      const jwk = multikeyJwk(vm.publicKeyMultibase);
      return jwk ? { ...jwk } : rawKeyJwk(vm.type, multibaseDecode(vm.publicKeyMultibase));
    }
    if (typeof vm.publicKeyBase58 === 'string') return rawKeyJwk(vm.type, base58btcDecode(vm.publicKeyBase58));
  } catch {
    // Undecodable key material: the key is left out, like any other key we cannot use.
  }
  return null;
}

/** Rewrites ids to `base`: relative refs (`#k`) and, for an ion DID, the other form of the DID. */
function rebaser(docId: string, base: string): (ref: string) => string {
  return (ref) => {
    if (ref.startsWith('#')) return base + ref;
    if (docId !== base && (ref === docId || ref.startsWith(docId + '#'))) return base + ref.slice(docId.length);
    return ref;
  };
}

function firstEndpoint(svc: Service): LibService['serviceEndpoint'] | null {
  const ep = Array.isArray(svc.serviceEndpoint) ? svc.serviceEndpoint[0] : svc.serviceEndpoint;
  // DIDComm v2.0 put accept/routingKeys beside a string endpoint; v2.1 puts them inside an object.
  const outer = svc as Service & { accept?: unknown; routingKeys?: unknown };
  if (typeof ep === 'string') {
    return { uri: ep, accept: strings(outer.accept), routingKeys: strings(outer.routingKeys) ?? [] };
  }
  if (ep && typeof ep === 'object' && typeof (ep as { uri?: unknown }).uri === 'string') {
    const o = ep as { uri: string; accept?: unknown; routingKeys?: unknown; routing_keys?: unknown };
    return { uri: o.uri, accept: strings(o.accept), routingKeys: strings(o.routingKeys) ?? strings(o.routing_keys) ?? [] };
  }
  return null;
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
}

/**
 * Converts a W3C DID document to didcomm-node's shape. `asDid` is the DID the library asked
 * for: when it is the other form (long/short) of the document's ion DID, every id is rewritten
 * to it so that key ids match the `kid`s in the message. Keys we cannot express as a
 * JsonWebKey2020 JWK (Multikey of an unknown codec, missing material) are left out together
 * with the references to them; curves the library does not do (P-384, P-521) are kept so that
 * it can say `DIDCommUnsupported`.
 */
export function toLibraryDoc(doc: DIDDocument, asDid: string = doc.id): LibDidDoc {
  const abs = rebaser(doc.id, asDid);
  const methods = new Map<string, LibVerificationMethod>();
  const add = (vm: VerificationMethod): string | null => {
    if (!vm || typeof vm.id !== 'string') return null;
    const id = abs(vm.id);
    if (methods.has(id)) return id;
    const jwk = methodJwk(vm);
    if (!jwk) return null;
    methods.set(id, { id, type: 'JsonWebKey2020', controller: vm.controller ? abs(vm.controller) : asDid, publicKeyJwk: jwk });
    return id;
  };
  for (const vm of doc.verificationMethod ?? []) add(vm);
  // Embedded methods (DID Core §5.3) become string references to entries in verificationMethod.
  const refs = (rel: (string | VerificationMethod)[] | undefined): string[] => {
    const out: string[] = [];
    for (const entry of rel ?? []) {
      const id = typeof entry === 'string' ? abs(entry) : add(entry);
      if (id && methods.has(id) && !out.includes(id)) out.push(id);
    }
    return out;
  };
  const authentication = refs(doc.authentication);
  const keyAgreement = refs(doc.keyAgreement);
  const service: LibService[] = [];
  (doc.service ?? []).forEach((svc, i) => {
    const types = Array.isArray(svc?.type) ? svc.type : [svc?.type];
    if (!types.includes('DIDCommMessaging')) return;
    const ep = firstEndpoint(svc);
    if (!ep) return;
    ep.routingKeys = ep.routingKeys.map(abs);
    if (ep.accept === undefined) delete ep.accept;
    // The library needs a service id (it names the service it used); give one if missing.
    const id = typeof svc.id === 'string' ? abs(svc.id) : `${asDid}#service-${i}`;
    service.push({ id, type: 'DIDCommMessaging', serviceEndpoint: ep });
  });
  return { id: asDid, keyAgreement, authentication, verificationMethod: [...methods.values()], service };
}

// Conversions are pure functions of the document object, so they are memoised by its identity
// (a resolver that caches returns the same object). Documents are treated as immutable.
const converted = new WeakMap<object, Map<string, LibDidDoc>>();

/** toLibraryDoc with memoisation by document identity. */
export function cachedLibraryDoc(doc: DIDDocument, asDid: string = doc.id): LibDidDoc {
  let byDid = converted.get(doc);
  if (!byDid) converted.set(doc, (byDid = new Map()));
  let lib = byDid.get(asDid);
  if (!lib) byDid.set(asDid, (lib = toLibraryDoc(doc, asDid)));
  return lib;
}

/**
 * Same DID string, allowing the long and short forms of one did:ion or did:peer:4. Stricter than
 * message.ts sameDid, which compares the DIDs of two DID URLs: here a DID URL never equals a DID.
 */
export function sameDid(a: string, b: string): boolean {
  return a === b || shortForm(a) === shortForm(b);
}

function libraryError(name: string, message: string): Error {
  const e = new Error(message);
  e.name = name;
  return e;
}

/**
 * DIDs whose document is by their method's definition a function of the DID string alone:
 * did:key and did:peer numalgo 0 and 2 (the keys and services are encoded in the DID). A
 * resolver can only ever answer one document for them, so what it answered once is kept, per
 * resolver, and the resolver is not asked again. (Not did:ion long forms: once anchored, ION
 * resolves them to their latest state.)
 */
const SELF_CERTIFYING = /^did:(?:key:|peer:[02])/;
const PURE_CACHE_MAX = 1024;
const pureDocs = new WeakMap<DocumentResolver, Map<string, LibDidDoc>>();

function rememberPure(resolve: DocumentResolver, did: string, doc: LibDidDoc): void {
  let docs = pureDocs.get(resolve);
  if (!docs) pureDocs.set(resolve, (docs = new Map()));
  setBounded(docs, did, doc, PURE_CACHE_MAX);
}

/**
 * One library call's DID resolver: each DID is resolved at most once per call (the library
 * asks for the same DID several times), and a failure is kept in `trap`. A class because it
 * holds that call's state, and one is made per pack/unpack.
 */
class CallResolver implements LibDidResolver {
  private readonly seen = new Map<string, Promise<LibDidDoc | null>>();

  constructor(
    private readonly source: DocumentResolver,
    private readonly trap: ErrorTrap,
  ) {}

  resolve(did: string): Promise<LibDidDoc | null> {
    let p = this.seen.get(did);
    if (!p) this.seen.set(did, (p = this.load(did)));
    return p;
  }

  private async load(did: string): Promise<LibDidDoc | null> {
    try {
      return await loadLibraryDoc(this.source, did);
    } catch (err) {
      record(this.trap, 'resolver', err);
      throw libraryError('DIDCommIoError', 'DID resolution failed');
    }
  }
}

/**
 * The normalised document of `did` from `source`, or null when there is none (or the source
 * answered another DID's document). What the source throws is passed on unchanged.
 */
export async function loadLibraryDoc(source: DocumentResolver, did: string): Promise<LibDidDoc | null> {
  const pure = SELF_CERTIFYING.test(did);
  if (pure) {
    const known = pureDocs.get(source)?.get(did);
    if (known) return known;
  }
  const doc = await source(did);
  // DID Core §7.1: the document must be the one of the DID asked for (ion: either form).
  if (!doc || typeof doc.id !== 'string' || !sameDid(doc.id, did)) return null;
  const lib = cachedLibraryDoc(doc, did);
  if (pure) rememberPure(source, did, lib);
  return lib;
}

export function libraryResolver(resolve: DocumentResolver, trap: ErrorTrap): LibDidResolver {
  return new CallResolver(resolve, trap);
}

/**
 * One library call's SecretsResolver over our SecretsSource; the secret comes back under the
 * kid asked for. The library asks find_secrets, then get_secret for what was found: each kid
 * is read from the source once per call (a store read each time otherwise).
 */
class CallSecrets implements LibSecretsResolver {
  private readonly seen = new Map<string, Promise<Secret | undefined>>();

  constructor(
    private readonly source: SecretsSource,
    private readonly trap: ErrorTrap,
  ) {}

  async get_secret(id: string): Promise<LibSecret | null> {
    try {
      const s = await this.get(id);
      return s ? { id, type: s.type, privateKeyJwk: s.privateKeyJwk as unknown as Record<string, unknown> } : null;
    } catch (err) {
      throw this.failed(err);
    }
  }

  // find(kids) is get() of each kid: asking get() keeps the secret for the get_secret that follows.
  async find_secrets(ids: string[]): Promise<string[]> {
    try {
      const found = await Promise.all(ids.map((id) => this.get(id)));
      return ids.filter((_, i) => found[i] !== undefined);
    } catch (err) {
      throw this.failed(err);
    }
  }

  private get(id: string): Promise<Secret | undefined> {
    let p = this.seen.get(id);
    if (!p) this.seen.set(id, (p = this.source.get(id)));
    return p;
  }

  private failed(err: unknown): Error {
    record(this.trap, 'secrets', err);
    return libraryError('DIDCommIoError', 'secret lookup failed');
  }
}

export function librarySecrets(source: SecretsSource, trap: ErrorTrap): LibSecretsResolver {
  return new CallSecrets(source, trap);
}
