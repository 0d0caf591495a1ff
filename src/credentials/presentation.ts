// Verifiable Presentations secured with Data Integrity `eddsa-jcs-2022` (W3C "Data Integrity EdDSA
// Cryptosuites v1.0" §3.3): JCS (RFC 8785) instead of RDF canonicalization, so DID authentication
// and credential applications verify offline without JSON-LD contexts. Used by present-proof
// (DID-auth before a sync) and issue-credential (the credential application).
import { shortForm } from '../did/short-form.js';
import type { DIDDocument, DocumentResolver, VerificationMethod } from '../did/types.js';
import { didOf, sameDid } from '../didcomm/message.js';
import { jcs } from '../encoding.js';
import { IdsyncError } from '../errors.js';
import { fromMultikey, publicKeyFromJwk, verify } from '../keys.js';
import { joinHashes, proofValueOf, readProof } from './eddsa-proof.js';

export const EDDSA_JCS_2022 = 'eddsa-jcs-2022';

type JsonObject = Record<string, unknown>;

/** VC Data Integrity §2.1 proof with the eddsa-jcs-2022 cryptosuite. */
export interface JcsProof {
  type: 'DataIntegrityProof';
  cryptosuite: typeof EDDSA_JCS_2022;
  created?: string;
  verificationMethod: string;
  proofPurpose: string;
  challenge?: string;
  domain?: string;
  '@context'?: unknown;
  proofValue?: string;
  [k: string]: unknown;
}

/** VC Data Model v1.1 §4.10 presentation (holder and proof are what DID-auth needs). */
export interface VerifiablePresentation {
  '@context': unknown[];
  type: string[];
  holder: string;
  proof?: JcsProof;
  [k: string]: unknown;
}

/** §3.3.4 Hashing: SHA-256(JCS(proof config)) ‖ SHA-256(JCS(document)). */
export function jcsHashData(unsecured: JsonObject, proofConfig: JsonObject): Uint8Array {
  return joinHashes(jcs(proofConfig), jcs(unsecured));
}

export interface AddProofOptions {
  verificationMethod: string;
  /** Ed25519 private key (32 bytes). Never logged. */
  privateKey: Uint8Array;
  proofPurpose: string;
  created?: string;
  challenge?: string;
  domain?: string;
}

/**
 * §3.3.1 Create Proof: the proof carries the document's `@context` (step 2), the proof
 * configuration is the proof without proofValue (§3.3.5), proofValue is base58btc multibase.
 */
export function addJcsProof<T extends JsonObject>(document: T, o: AddProofOptions): T & { proof: JcsProof } {
  if ('proof' in document) throw new IdsyncError('invalid_argument', 'the document already has a proof (proof sets are not supported)');
  const proof: JcsProof = { type: 'DataIntegrityProof', cryptosuite: EDDSA_JCS_2022, verificationMethod: o.verificationMethod, proofPurpose: o.proofPurpose };
  if (o.created !== undefined) proof.created = o.created;
  if (o.challenge !== undefined) proof.challenge = o.challenge;
  if (o.domain !== undefined) proof.domain = o.domain;
  if (document['@context'] !== undefined) proof['@context'] = document['@context'];
  proof.proofValue = proofValueOf(o.privateKey, jcsHashData(document, proof));
  return { ...document, proof };
}

export type ProofCheck = { ok: true; proof: JcsProof } | { ok: false; code: 'malformed_presentation' | 'invalid_proof'; detail: string };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** §3.3.2 Verify Proof against a given Ed25519 public key. Never throws. */
export function verifyJcsProof(secured: JsonObject, publicKey: Uint8Array): ProofCheck {
  const read = readProof(secured, { cryptosuite: EDDSA_JCS_2022, malformed: 'malformed_presentation', incomplete: 'the proof lacks proofValue or verificationMethod' });
  if (!read.ok) return read;
  const { proof, signature, unsecured } = read;
  const { proofValue: _v, ...options } = proof;
  // Step 4: a proof @context must be a prefix of the document's; the document is hashed with it.
  if (options['@context'] !== undefined) {
    const pc = ([] as unknown[]).concat(options['@context']);
    const dc = ([] as unknown[]).concat(unsecured['@context'] ?? []);
    if (!pc.every((c, i) => i < dc.length && jcs(c) === jcs(dc[i]))) {
      return { ok: false, code: 'invalid_proof', detail: "the document's @context does not start with the proof's @context" };
    }
    unsecured['@context'] = options['@context'];
  }
  let data: Uint8Array;
  try {
    data = jcsHashData(unsecured, options);
  } catch {
    return { ok: false, code: 'malformed_presentation', detail: 'the document cannot be canonicalized (RFC 8785)' };
  }
  if (!verify(publicKey, data, signature)) return { ok: false, code: 'invalid_proof', detail: 'the signature does not verify' };
  return { ok: true, proof: proof as JcsProof };
}

// ---- presentations -----------------------------------------------------------------------

export interface SignPresentationOptions {
  /** Full key id (`did#key-1`) of a key in the holder's `authentication`. */
  kid: string;
  privateKey: Uint8Array;
  challenge: string;
  domain: string;
  created?: string;
  proofPurpose?: string;
}

/** Signs `vp` for DID authentication (VC Data Integrity §2.1: challenge and domain bind it to one request). */
export function signPresentation<T extends VerifiablePresentation>(vp: T, o: SignPresentationOptions): T & { proof: JcsProof } {
  if (typeof vp.holder !== 'string' || !o.kid.includes('#') || !sameDid(vp.holder, o.kid)) {
    throw new IdsyncError('invalid_argument', `the key ${o.kid} is not a key of the holder ${String(vp.holder)}`);
  }
  return addJcsProof(vp, {
    verificationMethod: o.kid,
    privateKey: o.privateKey,
    proofPurpose: o.proofPurpose ?? 'authentication',
    created: o.created,
    challenge: o.challenge,
    domain: o.domain,
  });
}

export type PresentationCode =
  | 'malformed_presentation'
  | 'invalid_proof'
  | 'wrong_purpose'
  | 'challenge_mismatch'
  | 'domain_mismatch'
  | 'holder_mismatch'
  | 'holder_not_resolved'
  | 'key_not_authorized';

export interface PresentationVerification {
  verified: boolean;
  code?: PresentationCode;
  detail?: string;
  /** The holder as written in the presentation. */
  holder?: string;
  kid?: string;
}

export interface VerifyPresentationOptions {
  resolve: DocumentResolver;
  challenge: string;
  domain: string;
  /** The DID the presentation must come from (long and short forms of did:ion and did:peer:4 compare equal). */
  expectedHolder?: string;
  /** The verification relationship the key must be in, and the proofPurpose (default authentication). */
  purpose?: 'authentication' | 'assertionMethod';
}

function ed25519Key(vm: VerificationMethod): Uint8Array | undefined {
  try {
    const k = vm.publicKeyJwk ? publicKeyFromJwk(vm.publicKeyJwk) : vm.publicKeyMultibase ? fromMultikey(vm.publicKeyMultibase) : undefined;
    return k?.type === 'Ed25519' ? k.publicKey : undefined;
  } catch {
    return undefined;
  }
}

/** DID Core §5.3: the method `kid` when the document lists it under `purpose` (by reference or embedded). */
function methodFor(doc: DIDDocument, kid: string, purpose: string): VerificationMethod | undefined {
  const abs = (id: string) => (id.startsWith('#') ? doc.id + id : id);
  const same = (id: unknown) => typeof id === 'string' && shortForm(abs(id)) === shortForm(kid);
  const entries = ((doc as unknown as Record<string, unknown>)[purpose] ?? []) as Array<string | VerificationMethod>;
  for (const e of Array.isArray(entries) ? entries : []) {
    if (typeof e === 'string' && same(e)) return (doc.verificationMethod ?? []).find((m) => same(m.id));
    if (isObject(e) && same(e.id)) return e as VerificationMethod;
  }
  return undefined;
}

/**
 * Verifies a DID-auth presentation (VC Data Integrity §4.3 Verify Proof with expected challenge,
 * domain and purpose): the proof, that its key is in the holder's DID document under `purpose`,
 * and that the holder is the key's DID (and `expectedHolder`). Never throws.
 */
export async function verifyPresentation(vp: unknown, o: VerifyPresentationOptions): Promise<PresentationVerification> {
  const purpose = o.purpose ?? 'authentication';
  const no = (code: PresentationCode, detail: string, extra: Partial<PresentationVerification> = {}): PresentationVerification => ({ verified: false, code, detail, ...extra });
  if (!isObject(vp)) return no('malformed_presentation', 'a presentation is a JSON object');
  if (!Array.isArray(vp.type) || !vp.type.includes('VerifiablePresentation')) return no('malformed_presentation', "type must include 'VerifiablePresentation'");
  if (typeof vp.holder !== 'string' || !vp.holder.startsWith('did:')) return no('malformed_presentation', 'holder must be a DID');
  const holder = vp.holder;
  const proof = vp.proof;
  if (!isObject(proof)) return no('malformed_presentation', 'exactly one proof object is expected', { holder });
  const kid = proof.verificationMethod;
  if (typeof kid !== 'string' || !kid.includes('#')) return no('malformed_presentation', 'proof.verificationMethod must be a DID URL', { holder });
  const at = { holder, kid };
  if (proof.proofPurpose !== purpose) return no('wrong_purpose', `proofPurpose must be ${purpose}`, at);
  if (proof.challenge !== o.challenge) return no('challenge_mismatch', 'the proof does not carry the expected challenge', at);
  if (proof.domain !== o.domain) return no('domain_mismatch', 'the proof does not carry the expected domain', at);
  if (!sameDid(kid, holder)) return no('holder_mismatch', `the key ${kid} is not a key of the holder ${holder}`, at);
  if (o.expectedHolder !== undefined && !sameDid(holder, o.expectedHolder)) return no('holder_mismatch', `the holder is not ${o.expectedHolder}`, at);
  // A long form (did:ion, did:peer:4) resolves offline, and a did:peer:4 short form only once its
  // long form was seen (DID Peer §Method 4 "Short form"): prefer it whichever of holder and key id
  // carries it. A long form is a DID whose short form differs.
  const did = [didOf(kid), didOf(holder)].find((d) => shortForm(d) !== d) ?? holder;
  let doc: DIDDocument | null;
  try {
    doc = await o.resolve(did);
  } catch {
    doc = null;
  }
  if (!doc) return no('holder_not_resolved', `the holder DID ${holder} did not resolve`, at);
  const vm = methodFor(doc, kid, purpose);
  if (!vm) return no('key_not_authorized', `the key ${kid} is not in the holder's ${purpose}`, at);
  if (typeof vm.controller === 'string' && !sameDid(vm.controller, doc.id)) return no('key_not_authorized', `the key ${kid} is controlled by another DID`, at);
  const publicKey = ed25519Key(vm);
  if (!publicKey) return no('key_not_authorized', `the key ${kid} is not an Ed25519 key`, at);
  const result = verifyJcsProof(vp, publicKey);
  if (!result.ok) return no(result.code, result.detail, at);
  return { verified: true, ...at };
}
