// did:ion long and short forms, created and resolved offline (DIF Sidetree v1.0.0 and the ION
// method). Long form: did:ion:<suffix>:<base64url(JCS({suffixData, delta}))> (Sidetree §Long-Form
// DID URIs); short form: did:ion:<suffix>, resolvable here only when the registry knows its long form.
import { createECDH } from 'node:crypto';
import type { JsonWebKey } from 'did-resolver';
import { b64uDecode, b64uDecodeText, b64uEncode, jcs, sha256, sha256Multihash, utf8 } from '../encoding.js';
import { IdsyncError } from '../errors.js';
import { generateKeyPair, publicJwk, type KeyPair } from '../keys.js';
import {
  buildDocument, documentResult, errorResult, JWS_2020_CONTEXT, secretFor, type KeyEntry, type Purpose,
} from './document.js';
import type { CreatedDid, DIDDocument, DIDResolutionResult, DidRegistry, Service } from './types.js';
import { applyIonPatches, validateIonDelta, type IonDocumentModel } from './ion-patches.js';

export type { IonDocumentModel, IonPublicKey, IonService } from './ion-patches.js';

export interface Secp256k1PublicJwk { kty: 'EC'; crv: 'secp256k1'; x: string; y: string }
export interface Secp256k1PrivateJwk extends Secp256k1PublicJwk { d: string }

export interface IonInitialState {
  suffixData: { deltaHash: string; recoveryCommitment: string };
  delta: { patches: Record<string, unknown>[]; updateCommitment: string };
}

export interface ParsedIonDid {
  /** The DID as given, without fragment. */
  did: string;
  shortDid: string;
  suffix: string;
  network?: string;
  /** Present for long forms (decoded, not yet verified by parseIonDid). */
  initialState?: IonInitialState;
}

// ion-sdk limits (IonSdkConfig.maxCanonicalizedDeltaSizeInBytes); a cap on the whole DID keeps
// hostile input from costing more than a few hashes.
const MAX_DELTA_BYTES = 1000;
const MAX_DID_LENGTH = 10_000;

/**
 * A new secp256k1 key as a private JWK (from `secretKey` when given, 32 bytes): ION recovery and
 * update keys are secp256k1 (ES256K). Through node:crypto (OpenSSL): every wallet makes two, and
 * the pure-JS curve arithmetic cost a millisecond and ~100 KB of garbage per wallet.
 */
export function generateSecp256k1Jwk(secretKey?: Uint8Array): Secp256k1PrivateJwk {
  const ecdh = createECDH('secp256k1');
  try {
    if (secretKey) {
      if (secretKey.length !== 32) throw new Error('a secp256k1 secret key is 32 bytes');
      ecdh.setPrivateKey(secretKey);
    } else {
      ecdh.generateKeys();
    }
  } catch (err) {
    throw new IdsyncError('invalid_key', `not a secp256k1 secret key: ${(err as Error).message}`, { cause: err });
  }
  const pub = ecdh.getPublicKey(); // uncompressed: 0x04 ‖ x ‖ y
  // OpenSSL gives the scalar without leading zero bytes; the JWK `d` is always 32 (RFC 7518 §6.2.2.1).
  const d = Buffer.alloc(32);
  const scalar = secretKey ?? ecdh.getPrivateKey();
  d.set(scalar, 32 - scalar.length);
  return { kty: 'EC', crv: 'secp256k1', x: b64uEncode(pub.subarray(1, 33)), y: b64uEncode(pub.subarray(33, 65)), d: b64uEncode(d) };
}

/** Exactly {kty, crv, x, y}: the commitment hashes the JCS of this object, so no extra members. */
export function secp256k1PublicJwk(jwk: Secp256k1PublicJwk): Secp256k1PublicJwk {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
}

/** Sidetree §Hashing Process: base64url(multihash(SHA-256(JCS(value)))). */
export function ionHash(value: unknown): string {
  return b64uEncode(sha256Multihash(jcs(value)));
}

/** Sidetree §Commitment Schemes: commitment = base64url(multihash(SHA-256(SHA-256(JCS(publicJwk))))). */
export function ionCommitment(publicKey: Secp256k1PublicJwk): string {
  return b64uEncode(sha256Multihash(sha256(jcs(secp256k1PublicJwk(publicKey)))));
}

/** Builds the long form from control keys and the initial document, as ion-sdk's IonDid.createLongFormDid does. */
export function createIonLongForm(input: {
  recoveryKey: Secp256k1PublicJwk;
  updateKey: Secp256k1PublicJwk;
  document: IonDocumentModel;
}): { did: string; shortDid: string; initialState: IonInitialState } {
  const delta = {
    patches: [{ action: 'replace', document: input.document }],
    updateCommitment: ionCommitment(input.updateKey),
  };
  try {
    validateIonDelta(delta);
  } catch (err) {
    throw new IdsyncError('invalid_argument', `invalid ION document: ${(err as Error).message}`, { cause: err });
  }
  const deltaBytes = utf8.encode(jcs(delta)).length;
  if (deltaBytes > MAX_DELTA_BYTES) {
    throw new IdsyncError('invalid_argument', `the ION delta is ${deltaBytes} bytes; at most ${MAX_DELTA_BYTES} are allowed`);
  }
  const suffixData = { deltaHash: ionHash(delta), recoveryCommitment: ionCommitment(input.recoveryKey) };
  const initialState: IonInitialState = { suffixData, delta };
  const shortDid = `did:ion:${ionHash(suffixData)}`;
  return { did: `${shortDid}:${b64uEncode(jcs(initialState))}`, shortDid, initialState };
}

export interface IonDidOptions {
  endpoint?: string;
  routingKeys?: string[];
  authenticationKey?: KeyPair;
  keyAgreementKey?: KeyPair;
  recoveryKey?: Secp256k1PrivateJwk;
  updateKey?: Secp256k1PrivateJwk;
}

/** The ION document model our DIDs use: key-1 Ed25519, key-2 X25519, service 'didcomm'. */
export function ionDocumentModel(input: {
  authenticationKey: Pick<KeyPair, 'type' | 'publicKey'>;
  keyAgreementKey: Pick<KeyPair, 'type' | 'publicKey'>;
  endpoint?: string;
  routingKeys?: string[];
}): IonDocumentModel {
  const model: IonDocumentModel = {
    publicKeys: [
      { id: 'key-1', type: 'JsonWebKey2020', publicKeyJwk: { ...publicJwk(input.authenticationKey) }, purposes: ['authentication', 'assertionMethod'] },
      { id: 'key-2', type: 'JsonWebKey2020', publicKeyJwk: { ...publicJwk(input.keyAgreementKey) }, purposes: ['keyAgreement'] },
    ],
  };
  if (input.endpoint) {
    model.services = [{
      id: 'didcomm',
      type: 'DIDCommMessaging',
      serviceEndpoint: { uri: input.endpoint, accept: ['didcomm/v2'], routingKeys: input.routingKeys ?? [] },
    }];
  }
  return model;
}

/** A new did:ion (long form) with its short form, document and secrets (kids use the long form). */
export function createIonDid(options: IonDidOptions = {}): CreatedDid {
  const auth = options.authenticationKey ?? generateKeyPair('Ed25519');
  const agree = options.keyAgreementKey ?? generateKeyPair('X25519');
  if (auth.type !== 'Ed25519' || agree.type !== 'X25519') {
    throw new IdsyncError('invalid_argument', 'did:ion needs an Ed25519 authentication key and an X25519 key agreement key');
  }
  const recovery = options.recoveryKey ?? generateSecp256k1Jwk();
  const update = options.updateKey ?? generateSecp256k1Jwk();
  const document = ionDocumentModel({ authenticationKey: auth, keyAgreementKey: agree, endpoint: options.endpoint, routingKeys: options.routingKeys });
  const { did, shortDid, initialState } = createIonLongForm({ recoveryKey: recovery, updateKey: update, document });
  // Made here from its state, as resolving it would make it: a long form just built from a
  // validated delta of at most MAX_DELTA_BYTES needs none of resolution's checks (decoding it,
  // its hashes, its delta again), and a wallet rebuilds its DID from its keys each time it starts.
  remember(did);
  return {
    did,
    shortDid,
    // Its members in the order the long form spells them (JCS), as resolving it gives them.
    document: ionDocument(did, JSON.parse(jcs(initialState)) as IonInitialState),
    secrets: [secretFor(`${did}#key-1`, auth), secretFor(`${did}#key-2`, agree)],
    controlKeys: { recovery: { ...recovery }, update: { ...update } },
  };
}

const SUFFIX = /^[A-Za-z0-9_-]{46}$/;
const NETWORK = /^[a-z0-9]{1,20}$/;

function invalid(reason: string, message: string, cause?: unknown): IdsyncError {
  return new IdsyncError('invalid_did', message, { details: { reason }, cause });
}

function isSuffix(s: string): boolean {
  if (!SUFFIX.test(s)) return false;
  const bytes = b64uDecode(s);
  // sha2-256 multihash, spelled canonically (no stray trailing bits).
  return bytes.length === 34 && bytes[0] === 0x12 && bytes[1] === 0x20 && b64uEncode(bytes) === s;
}

/** Splits a did:ion (short or long, optional network) and decodes the long-form state. Throws 'invalid_did'. */
export function parseIonDid(input: string): ParsedIonDid {
  const did = input.split(/[?#]/)[0];
  if (!did.startsWith('did:ion:')) throw invalid('malformed', 'not a did:ion DID');
  if (did.length > MAX_DID_LENGTH) throw invalid('too_long', 'the did:ion DID is too long');
  const parts = did.slice('did:ion:'.length).split(':');
  let network: string | undefined;
  if (parts.length === 3 || (parts.length === 2 && !isSuffix(parts[0]))) network = parts.shift();
  if (parts.length < 1 || parts.length > 2 || (network !== undefined && !NETWORK.test(network))) {
    throw invalid('malformed', 'a did:ion DID is did:ion[:network]:<suffix>[:<long-form state>]');
  }
  const [suffix, encoded] = parts;
  if (!isSuffix(suffix)) throw invalid('malformed', 'the did:ion suffix is not a base64url SHA-256 multihash');
  const shortDid = `did:ion:${network ? network + ':' : ''}${suffix}`;
  if (encoded === undefined) return { did, shortDid, suffix, ...(network ? { network } : {}) };
  let text: string;
  let state: unknown;
  try {
    text = b64uDecodeText(encoded);
    state = JSON.parse(text);
  } catch (err) {
    throw invalid('malformed', 'the did:ion long-form state is not base64url JSON', err);
  }
  const s = state as Partial<IonInitialState> | null;
  if (!s || typeof s !== 'object' || typeof s.suffixData?.deltaHash !== 'string' || typeof s.suffixData?.recoveryCommitment !== 'string'
    || !s.delta || typeof s.delta.updateCommitment !== 'string' || !Array.isArray(s.delta.patches)) {
    throw invalid('malformed', 'the did:ion long-form state lacks suffixData or delta');
  }
  // The encoded state must be base64url of its JCS form, so one DID has exactly one spelling
  // (Sidetree §Long-Form DID URIs). A long form found valid before passed this already.
  if (!VALID_LONG_FORMS.has(did) && (jcs(state) !== text || b64uEncode(text) !== encoded)) {
    throw invalid('not_canonical', 'the did:ion long-form state is not base64url of JCS');
  }
  return { did, shortDid, suffix, ...(network ? { network } : {}), initialState: s as IonInitialState };
}

/**
 * Checks a long form: the suffix is the hash of suffixData (Sidetree §DID URI Composition) and
 * deltaHash is the hash of delta (Sidetree §Resolution, create operation processing step 4).
 * Stricter than Sidetree, which would resolve a bad delta to an empty document: we refuse it.
 */
export function verifyIonLongForm(did: string): ParsedIonDid & { initialState: IonInitialState } {
  return verifyParsed(parseIonDid(did));
}

// Long forms found valid in this process (base64url of JCS, suffix and delta hashes, a valid
// delta): validity is a property of the string alone, so each is checked once, not at every
// resolution (both parties of a flow resolve the same long form, and its short form resolves
// through it again: each check cost three JCS and two SHA-256 of the state). Only the DID
// string is kept; every call still parses its own copy of the state. Bounded, oldest first.
const VALID_LONG_FORMS = new Set<string>();
const VALID_LONG_FORMS_MAX = 1024;

function verifyParsed(parsed: ParsedIonDid): ParsedIonDid & { initialState: IonInitialState } {
  const state = parsed.initialState;
  if (!state) throw invalid('not_long_form', 'not a did:ion long form');
  if (VALID_LONG_FORMS.has(parsed.did)) return { ...parsed, initialState: state };
  if (ionHash(state.suffixData) !== parsed.suffix) {
    throw invalid('suffix_mismatch', 'the did:ion suffix is not the hash of its suffix data');
  }
  if (ionHash(state.delta) !== state.suffixData.deltaHash) {
    throw invalid('delta_hash_mismatch', 'the did:ion delta does not match its deltaHash');
  }
  try {
    validateIonDelta(state.delta);
  } catch (err) {
    throw invalid('invalid_delta', `the did:ion delta is invalid: ${(err as Error).message}`, err);
  }
  remember(parsed.did);
  return { ...parsed, initialState: state };
}

/** `did`, a long form found (or made) valid, skips the checks from now on. */
function remember(did: string): void {
  VALID_LONG_FORMS.add(did);
  if (VALID_LONG_FORMS.size > VALID_LONG_FORMS_MAX) VALID_LONG_FORMS.delete(VALID_LONG_FORMS.values().next().value as string);
}

/** The W3C document of a verified initial state, with every id absolute against `id`. */
export function ionDocument(id: string, state: IonInitialState): DIDDocument {
  const model = applyIonPatches(state.delta.patches);
  const keys: KeyEntry[] = (model.publicKeys ?? []).map((pk) => ({
    method: { id: `${id}#${pk.id}`, type: pk.type, controller: id, publicKeyJwk: pk.publicKeyJwk as unknown as JsonWebKey },
    purposes: (pk.purposes ?? []) as Purpose[],
  }));
  const services: Service[] = (model.services ?? []).map((s) => ({ id: `${id}#${s.id}`, type: s.type, serviceEndpoint: s.serviceEndpoint }));
  return buildDocument({ id, context: [JWS_2020_CONTEXT], keys, services });
}

/** Offline resolution of a long form to its W3C document (id = the DID as given). Throws 'invalid_did'. */
export function resolveIonLongForm(did: string): DIDDocument {
  const parsed = verifyIonLongForm(did);
  return ionDocument(parsed.did, parsed.initialState);
}

function methodMetadata(state: IonInitialState) {
  // Sidetree §DID Resolver Output: `published` is false, we never anchor; commitments as created.
  return { published: false, recoveryCommitment: state.suffixData.recoveryCommitment, updateCommitment: state.delta.updateCommitment };
}

/**
 * The did:ion method resolver. Long forms resolve offline with equivalentId = [short form]
 * (Sidetree §DID Resolver Output) and canonicalId = short form once the registry knows it.
 * Short forms resolve to a document with id = short DID when the registry has their long form.
 */
export async function resolveIon(did: string, registry?: DidRegistry): Promise<DIDResolutionResult> {
  let parsed: ParsedIonDid;
  try {
    parsed = parseIonDid(did);
  } catch (err) {
    return errorResult('invalidDid', (err as Error).message);
  }
  const known = async (): Promise<string | undefined> => {
    try {
      return await registry?.get(parsed.shortDid);
    } catch {
      return undefined;
    }
  };
  if (parsed.initialState) {
    try {
      const verified = verifyParsed(parsed);
      const document = ionDocument(verified.did, verified.initialState);
      const registered = (await known()) === verified.did;
      return documentResult(document, {
        method: methodMetadata(verified.initialState),
        equivalentId: [verified.shortDid],
        ...(registered ? { canonicalId: verified.shortDid } : {}),
      });
    } catch (err) {
      return errorResult('invalidDid', (err as Error).message);
    }
  }
  const longForm = await known();
  if (!longForm) return errorResult('notFound', `${parsed.shortDid} is not published; only its long form resolves`);
  try {
    const verified = verifyIonLongForm(longForm);
    if (verified.shortDid !== parsed.shortDid) throw invalid('suffix_mismatch', 'the registered long form is for another DID');
    return documentResult(ionDocument(parsed.shortDid, verified.initialState), {
      method: methodMetadata(verified.initialState),
      canonicalId: parsed.shortDid,
      equivalentId: [verified.did],
    });
  } catch (err) {
    return errorResult('notFound', `the registered long form of ${parsed.shortDid} is unusable: ${(err as Error).message}`);
  }
}
