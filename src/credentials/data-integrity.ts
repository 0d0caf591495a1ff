// Data Integrity proofs with the eddsa-rdfc-2022 cryptosuite (W3C "Data Integrity EdDSA
// Cryptosuites v1.0" §3.2): RDFC-1.0 canonical N-Quads of the document and of the proof
// configuration, SHA-256 of each, hashData = proofConfigHash ‖ documentHash, Ed25519.
import jsonld from 'jsonld';
import { b64uEncode, jcs, sha256, utf8 } from '../encoding.js';
import { IdsyncError, toIdsyncError } from '../errors.js';
import { verify } from '../keys.js';
import { canonizeByShape } from './canonical-template.js';
import { type DocumentLoader, documentLoader as defaultLoader } from './contexts.js';
import { joinDigests, proofValueOf, readProof } from './eddsa-proof.js';
import { setBounded } from '../bounded.js';

export const CRYPTOSUITE = 'eddsa-rdfc-2022';

export interface DataIntegrityProof {
  type: 'DataIntegrityProof';
  cryptosuite: string;
  created?: string;
  verificationMethod: string;
  proofPurpose: string;
  proofValue?: string;
  [k: string]: unknown;
}

type JsonObject = Record<string, unknown>;

interface Canonize {
  (input: unknown, options: Record<string, unknown>): Promise<string>;
}

/**
 * RDFC-1.0 canonical N-Quads of a JSON-LD document, offline. Safe mode makes terms that do not
 * map to IRIs an error instead of silently dropping them (they would be unsigned).
 */
export async function canonize(doc: JsonObject, loader: DocumentLoader = defaultLoader): Promise<string> {
  try {
    return await (jsonld.canonize as unknown as Canonize)(doc, {
      algorithm: 'RDFC-1.0',
      format: 'application/n-quads',
      documentLoader: loader,
      safe: true,
      base: null,
    });
  } catch (err) {
    // jsonld wraps loader errors; dig our coded one out so callers see 'context_not_bundled'.
    let cause: unknown = err;
    for (let i = 0; i < 5 && cause; i++) {
      if (cause instanceof IdsyncError) throw cause;
      const next = (cause as { cause?: unknown; details?: { cause?: unknown } }).details?.cause ?? (cause as { cause?: unknown }).cause;
      cause = next;
    }
    throw new IdsyncError('canonicalization_failed', 'the document cannot be canonicalized (RDFC-1.0, safe mode)', {
      cause: err,
      details: { reason: toIdsyncError(err).message.slice(0, 300) },
    });
  }
}

/**
 * SHA-256 of the document's canonical N-Quads (vc-di-eddsa §3.2.4 hashes nothing else), memoized
 * by content with the default loader.
 */
export async function canonicalDigest(doc: JsonObject, loader: DocumentLoader = defaultLoader): Promise<Uint8Array> {
  const memo = loader === defaultLoader ? canonicalMemoKey(doc) : undefined;
  const known = memo === undefined ? undefined : CANONICAL.get(memo);
  if (known !== undefined) return known;
  // The bundled contexts are constants: a document of a shape seen before is canonicalized from
  // that shape's expansion (canonical-template.ts), which answers as jsonld would or not at all.
  const byShape = loader === defaultLoader ? await canonizeByShape(doc) : undefined;
  const digest = sha256(utf8.encode(byShape ?? (await canonize(doc, loader))));
  if (memo !== undefined) setBounded(CANONICAL, memo, digest, CANONICAL_MAX);
  return digest;
}

// Digests of canonical N-Quads already computed in this process, by the SHA-256 of the document's
// JCS text, with the default loader only: its contexts are bundled constants, so the same JSON
// gives the same RDF dataset and the same canonical form (jsonld sorts keys as it expands; JCS
// keeps array order). jsonld spends most of a canonicalization processing contexts again (it
// clones the whole active context for every type-scoped context), and the same documents come
// back: a proof configuration is the same for every credential the issuer signs within one
// second (`created` has seconds), and a verifier in this process (a simulated wallet, a test)
// canonicalizes the very document the issuer did. Keyed by JCS, not JSON text: the document
// comes back with its members in another order (the native envelope engine writes plaintexts
// with sorted members). Only successes are kept; bounded, the oldest go first. Digests, not the
// N-Quads, so that an entry is ~100 bytes and the memo can outlast a fleet's burst: with 1,000
// wallets syncing at once, a thousand credentials are issued before the first is verified, and
// a memo of a few hundred entries lost each one before its holder checked it.
const CANONICAL = new Map<string, Uint8Array>();
const CANONICAL_MAX = 4096;

function canonicalMemoKey(doc: JsonObject): string | undefined {
  try {
    return b64uEncode(sha256(jcs(doc)));
  } catch {
    return undefined; // not plain JSON: no memo
  }
}

/** vc-di-eddsa §3.2.4 hashing: SHA-256(canonical proof config) ‖ SHA-256(canonical document). */
export async function hashData(unsecured: JsonObject, proofConfig: JsonObject, loader?: DocumentLoader): Promise<Uint8Array> {
  const [docHash, proofHash] = await Promise.all([canonicalDigest(unsecured, loader), canonicalDigest(proofConfig, loader)]);
  return joinDigests(proofHash, docHash);
}

/** vc-di-eddsa §3.2.5 proof configuration: the proof options with the document's @context. */
function proofConfiguration(unsecured: JsonObject, proof: Omit<DataIntegrityProof, 'proofValue'>): JsonObject {
  const { proofValue: _drop, ...options } = proof as DataIntegrityProof;
  return { ...options, '@context': unsecured['@context'] };
}

export interface SignOptions {
  privateKey: Uint8Array;
  verificationMethod: string;
  /** xsd:dateTime; omitted from the proof when absent. */
  created?: string;
  proofPurpose?: string;
  loader?: DocumentLoader;
}

/** vc-di-eddsa §3.2.1 "Create Proof": returns a copy of the document with `proof` set. */
export async function addDataIntegrityProof<T extends JsonObject>(document: T, options: SignOptions): Promise<T & { proof: DataIntegrityProof }> {
  if ('proof' in document) throw new IdsyncError('invalid_argument', 'the document already has a proof');
  const proof: DataIntegrityProof = {
    type: 'DataIntegrityProof',
    cryptosuite: CRYPTOSUITE,
    ...(options.created ? { created: options.created } : {}),
    verificationMethod: options.verificationMethod,
    proofPurpose: options.proofPurpose ?? 'assertionMethod',
  };
  const data = await hashData(document, proofConfiguration(document, proof), options.loader);
  proof.proofValue = proofValueOf(options.privateKey, data);
  return { ...document, proof };
}

export type ProofFailure = { ok: false; code: 'malformed_credential' | 'invalid_proof'; detail: string };

/**
 * vc-di-eddsa §3.2.2 "Verify Proof" against a given Ed25519 public key. Never throws: bad input
 * gives {ok:false}. The caller checks that the key belongs to whom it should.
 */
export async function verifyDataIntegrityProof(
  secured: JsonObject,
  publicKey: Uint8Array,
  loader?: DocumentLoader,
): Promise<{ ok: true; proof: DataIntegrityProof } | ProofFailure> {
  const read = readProof(secured, { cryptosuite: CRYPTOSUITE, malformed: 'malformed_credential', incomplete: 'proof lacks proofValue or verificationMethod' });
  if (!read.ok) return read;
  const { signature, unsecured } = read;
  const proof = read.proof as DataIntegrityProof;
  const memo = loader === undefined ? verifiedKey(secured, publicKey) : undefined;
  if (memo !== undefined && VERIFIED.has(memo)) return { ok: true, proof };
  // JSON-LD processing skips a member named __proto__ (JSON.parse makes it an own member), so the
  // signature would cover a document without it, and one proof verify two documents: refused.
  // (After the memo: only documents that passed this check are in it.)
  const hidden = protoMemberPath(secured);
  if (hidden !== undefined) return { ok: false, code: 'malformed_credential', detail: `a member named __proto__ at ${hidden} is not signed by the proof (JSON-LD skips it)` };
  let data: Uint8Array;
  try {
    data = await hashData(unsecured, proofConfiguration(unsecured, proof), loader);
  } catch (err) {
    const e = toIdsyncError(err);
    return { ok: false, code: 'malformed_credential', detail: `${e.code}: ${e.message}` };
  }
  if (!verify(publicKey, data, signature)) return { ok: false, code: 'invalid_proof', detail: 'signature does not verify' };
  if (memo !== undefined) {
    VERIFIED.add(memo);
    if (VERIFIED.size > VERIFIED_MAX) VERIFIED.delete(VERIFIED.values().next().value as string);
  }
  return { ok: true, proof };
}

/** The path of the first own member named __proto__ in a JSON value, or undefined. */
function protoMemberPath(value: unknown, path = '', depth = 0): string | undefined {
  if (value === null || typeof value !== 'object' || depth > 256) return undefined;
  if (!Array.isArray(value) && Object.prototype.hasOwnProperty.call(value, '__proto__')) return `${path}/__proto__`;
  for (const [k, v] of Object.entries(value)) {
    const found = protoMemberPath(v, `${path}/${k}`, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

// Proofs already verified in this process, by the SHA-256 of the secured document's JCS form and
// the key. The same JSON gives the same RDF dataset, so the same canonical N-Quads, hash and
// signature check: with the bundled contexts (the default loader, constants) the outcome cannot
// differ. It spares the canonicalization of documents many parties verify again and again — the
// status list credential every issuance carries, checked by every wallet. Only successes are kept.
const VERIFIED = new Set<string>();
const VERIFIED_MAX = 1024;

function verifiedKey(secured: JsonObject, publicKey: Uint8Array): string | undefined {
  try {
    return `${b64uEncode(sha256(jcs(secured)))}.${b64uEncode(publicKey)}`;
  } catch {
    return undefined; // not plain JSON: no memo
  }
}
