// What the two EdDSA cryptosuites share (W3C "Data Integrity EdDSA Cryptosuites v1.0"):
// eddsa-rdfc-2022 (§3.2, data-integrity.ts) and eddsa-jcs-2022 (§3.3, presentation.ts) differ
// only in how they canonicalize. Hashing, the multibase proofValue and the checks a proof must
// pass before its document is hashed are the same steps, kept here once.
import { multibaseDecode, multibaseEncode, sha256, utf8 } from '../encoding.js';
import { sign } from '../keys.js';

type JsonObject = Record<string, unknown>;

/** §3.2.4 / §3.3.4 Hashing: hashData = SHA-256(canonical proof configuration) ‖ SHA-256(canonical document). */
export function joinHashes(canonicalProofConfig: string, canonicalDocument: string): Uint8Array {
  return joinDigests(sha256(utf8.encode(canonicalProofConfig)), sha256(utf8.encode(canonicalDocument)));
}

/** hashData from the two SHA-256 digests: proof configuration's first, then the document's. */
export function joinDigests(proofConfigHash: Uint8Array, documentHash: Uint8Array): Uint8Array {
  const out = new Uint8Array(64);
  out.set(proofConfigHash, 0);
  out.set(documentHash, 32);
  return out;
}

/** §3.2.6 / §3.3.6 Proof Serialization: proofValue is the Ed25519 signature of hashData, base58btc multibase. */
export function proofValueOf(privateKey: Uint8Array, hashData: Uint8Array): string {
  return multibaseEncode(sign(privateKey, hashData));
}

/** How one cryptosuite names its failures. */
export interface SuiteFailures<M extends string> {
  cryptosuite: string;
  /** The code of a document without one complete proof object. */
  malformed: M;
  /** The detail when proofValue or verificationMethod is missing (each suite keeps its wording). */
  incomplete: string;
}

export type ProofReadFailure<M extends string> = { ok: false; code: M | 'invalid_proof'; detail: string };

export interface ReadProof {
  ok: true;
  proof: JsonObject & { proofValue: string; verificationMethod: string };
  /** The decoded proofValue: 64 bytes. */
  signature: Uint8Array;
  /** The document without its proof. */
  unsecured: JsonObject;
}

/**
 * §3.2.2 / §3.3.2 Verify Proof, the steps before hashing: one proof object of this cryptosuite
 * with a verificationMethod and a 64-byte Ed25519 proofValue; and the document without it.
 * Never throws.
 */
export function readProof<M extends string>(secured: JsonObject, suite: SuiteFailures<M>): ReadProof | ProofReadFailure<M> {
  const proof = secured.proof;
  if (typeof proof !== 'object' || proof === null || Array.isArray(proof)) {
    return { ok: false, code: suite.malformed, detail: 'exactly one proof object is expected' };
  }
  const p = proof as JsonObject;
  if (p.type !== 'DataIntegrityProof' || p.cryptosuite !== suite.cryptosuite) {
    return { ok: false, code: 'invalid_proof', detail: `unsupported proof ${String(p.type)}/${String(p.cryptosuite)}` };
  }
  if (typeof p.proofValue !== 'string' || typeof p.verificationMethod !== 'string') {
    return { ok: false, code: suite.malformed, detail: suite.incomplete };
  }
  let signature: Uint8Array;
  try {
    signature = multibaseDecode(p.proofValue);
  } catch {
    return { ok: false, code: 'invalid_proof', detail: 'proofValue is not base58btc multibase' };
  }
  if (signature.length !== 64) return { ok: false, code: 'invalid_proof', detail: 'an Ed25519 signature is 64 bytes' };
  const { proof: _p, ...unsecured } = secured;
  return { ok: true, proof: p as ReadProof['proof'], signature, unsecured };
}
