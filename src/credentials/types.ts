// Shapes of credentials (W3C VC Data Model v1.1) and of verification results, shared by
// issue.ts, verify.ts and status-list.ts.
import type { DataIntegrityProof } from './data-integrity.js';

/** 'ldp': JSON-LD with a Data Integrity proof (eddsa-rdfc-2022); 'jwt': VC-JWT (VC DM v1.1 §6.3.1). */
export type CredentialFormat = 'ldp' | 'jwt';

/** The issuer's signing key. `kid` is the full DID URL of a key in the DID's assertionMethod. */
export interface IssuerKey {
  did: string;
  kid: string;
  /** Ed25519 private key (32 bytes). Never logged. */
  privateKey: Uint8Array;
}

export type StatusPurpose = 'revocation' | 'suspension';

/** Bitstring Status List v1.0 §2.1 BitstringStatusListEntry. */
export interface CredentialStatusEntry {
  id: string;
  type: 'BitstringStatusListEntry';
  statusPurpose: StatusPurpose;
  /** A base-10 integer as a string (the spec's form). */
  statusListIndex: string;
  statusListCredential: string;
}

/** A credential as JSON (unsigned, or with a Data Integrity proof). */
export interface W3cCredential {
  '@context': Array<string | Record<string, unknown>>;
  id?: string;
  type: string[];
  issuer: string | { id: string; [k: string]: unknown };
  issuanceDate: string;
  expirationDate?: string;
  credentialSubject: { id?: string; [k: string]: unknown };
  credentialStatus?: CredentialStatusEntry | CredentialStatusEntry[];
  /** Id of the credential this one supersedes (a re-sync issues a replacement). */
  replaces?: string;
  proof?: DataIntegrityProof;
  [k: string]: unknown;
}

/** A VC-JWT together with the credential it carries (decoded, for convenience). */
export interface JwtCredential {
  jwt: string;
  vc: W3cCredential;
}

export interface IssuedCredential {
  /** ldp: the credential with its proof; jwt: {jwt, vc}. Send `credential` (ldp) or `credential.jwt` on the wire. */
  credential: W3cCredential | JwtCredential;
  id: string;
  format: CredentialFormat;
}

export type VerificationCode =
  | 'malformed_credential'
  | 'invalid_proof'
  | 'issuer_not_resolved'
  | 'issuer_key_not_authorized'
  | 'issuer_mismatch'
  | 'subject_mismatch'
  | 'not_yet_valid'
  | 'expired'
  | 'revoked'
  | 'suspended'
  | 'status_unavailable'
  | 'status_list_invalid'
  | 'claims_mismatch';

export type CheckName = 'structure' | 'issuer_key' | 'proof' | 'issuer' | 'subject' | 'validity' | 'status' | 'claims';

export interface VerificationCheck {
  check: CheckName;
  ok: boolean;
  code?: VerificationCode;
  detail?: string;
}

export interface VerificationResult {
  verified: boolean;
  checks: VerificationCheck[];
  /** The credential as decoded (for jwt: the `vc` claim reconciled with the registered claims). */
  credential?: W3cCredential;
  format?: CredentialFormat;
}
