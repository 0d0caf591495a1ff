// Issuing KYC credentials (W3C VC Data Model v1.1, type vKYC, like the vendor's) secured either
// with a Data Integrity proof (eddsa-rdfc-2022) or as a VC-JWT.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { IdsyncError } from '../errors.js';
import { CREDENTIALS_V1_URL, DATA_INTEGRITY_V2_URL, KYC_CONTEXT_URL, STATUS_LIST_V1_URL, type DocumentLoader } from './contexts.js';
import { addDataIntegrityProof } from './data-integrity.js';
import { ADDRESS_FIELDS, type NestedDatapoints, canonicalKey, isDatapointKey } from './datapoints.js';
import { sameDid } from './issuer-key.js';
import { KYC_CREDENTIAL_TYPE } from './kyc-vocab.js';
import type { CredentialFormat, CredentialStatusEntry, IssuedCredential, IssuerKey, W3cCredential } from './types.js';
import { signVcJwt } from './vc-jwt.js';

/** xsd:dateTime in UTC without milliseconds (they do not survive JWT NumericDate anyway). */
export function xsdDateTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

const ADDRESS_FIELD_NAMES: ReadonlySet<string> = new Set(Object.values(ADDRESS_FIELDS));

/**
 * Checks claims are nested datapoints of our vocabulary with string values. Flat address keys
 * (residentialAddressCountry, and the residentialAddressountry alias) are folded into the nested
 * object, so a flat set is accepted too. Throws 'invalid_claims'.
 */
export function toCredentialClaims(claims: Record<string, unknown>): NestedDatapoints {
  const out: Record<string, unknown> = {};
  const address: Record<string, string> = {};
  for (const [name, value] of Object.entries(claims)) {
    if (name === 'residentialAddress') {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new IdsyncError('invalid_claims', 'residentialAddress must be an object');
      for (const [field, v] of Object.entries(value)) {
        if (!ADDRESS_FIELD_NAMES.has(field)) throw new IdsyncError('invalid_claims', `residentialAddress.${field} is not a datapoint`);
        if (typeof v !== 'string') throw new IdsyncError('invalid_claims', `residentialAddress.${field} must be a string`);
        address[field] = v;
      }
      continue;
    }
    const key = canonicalKey(name);
    if (!key || !isDatapointKey(key)) throw new IdsyncError('invalid_claims', `${name} is not a datapoint`);
    if (typeof value !== 'string') throw new IdsyncError('invalid_claims', `${name} must be a string`);
    if (key in ADDRESS_FIELDS) address[ADDRESS_FIELDS[key as keyof typeof ADDRESS_FIELDS]] = value;
    else out[key] = value;
  }
  if (Object.keys(address).length > 0) out.residentialAddress = address;
  return out as NestedDatapoints;
}

function contextsFor(format: CredentialFormat, hasStatus: boolean, extra: string[] = []): string[] {
  return [
    CREDENTIALS_V1_URL,
    ...(hasStatus ? [STATUS_LIST_V1_URL] : []),
    // VC v1 does not define DataIntegrityProof terms; the DI context does (VC-DI §2.1).
    ...(format === 'ldp' ? [DATA_INTEGRITY_V2_URL] : []),
    ...extra,
  ];
}

export interface BuildCredentialOptions {
  format: CredentialFormat;
  issuerDid: string;
  subjectDid: string;
  claims: NestedDatapoints | Record<string, unknown>;
  id?: string;
  /** Types after 'VerifiableCredential'; default ['vKYC']. Each must be defined by a bundled context. */
  types?: string[];
  issuanceDate?: string;
  expirationDate?: string;
  credentialStatus?: CredentialStatusEntry | CredentialStatusEntry[];
  replaces?: string;
  clock: Clock;
}

/** The unsigned KYC credential. */
export function buildCredential(o: BuildCredentialOptions): W3cCredential {
  const status = o.credentialStatus && (!Array.isArray(o.credentialStatus) || o.credentialStatus.length > 0) ? o.credentialStatus : undefined;
  const types = o.types ?? [KYC_CREDENTIAL_TYPE];
  const credential: W3cCredential = {
    '@context': contextsFor(o.format, status !== undefined, [KYC_CONTEXT_URL]),
    id: o.id ?? `urn:uuid:${randomUUID()}`,
    type: ['VerifiableCredential', ...types.filter((t) => t !== 'VerifiableCredential')],
    issuer: o.issuerDid,
    issuanceDate: o.issuanceDate ?? xsdDateTime(o.clock.now()),
    ...(o.expirationDate ? { expirationDate: o.expirationDate } : {}),
    credentialSubject: { id: o.subjectDid, ...toCredentialClaims(o.claims as Record<string, unknown>) },
    ...(status ? { credentialStatus: status } : {}),
    ...(o.replaces ? { replaces: o.replaces } : {}),
  };
  if (Number.isNaN(Date.parse(credential.issuanceDate))) throw new IdsyncError('invalid_argument', 'issuanceDate is not a date-time');
  if (credential.expirationDate && !(Date.parse(credential.expirationDate) > Date.parse(credential.issuanceDate))) {
    throw new IdsyncError('invalid_argument', 'expirationDate must be a date-time after issuanceDate');
  }
  return credential;
}

/** Secures an unsigned credential in the chosen format. The proof's `created` is issuanceDate's clock time. */
export async function signCredential(
  unsigned: W3cCredential,
  format: CredentialFormat,
  issuer: IssuerKey,
  clock: Clock,
  loader?: DocumentLoader,
): Promise<IssuedCredential> {
  if (!issuer.kid.startsWith('#') && !(issuer.kid.includes('#') && sameDid(issuer.kid.split('#')[0], issuer.did))) {
    throw new IdsyncError('invalid_argument', 'the issuer kid must be a key of the issuer DID');
  }
  const kid = issuer.kid.startsWith('#') ? issuer.did + issuer.kid : issuer.kid;
  const id = unsigned.id ?? '';
  if (format === 'ldp') {
    const credential = await addDataIntegrityProof(unsigned, {
      privateKey: issuer.privateKey,
      verificationMethod: kid,
      created: xsdDateTime(clock.now()),
      ...(loader ? { loader } : {}),
    });
    return { credential, id, format };
  }
  if (format === 'jwt') {
    const jwt = await signVcJwt(unsigned, { kid, privateKey: issuer.privateKey });
    return { credential: { jwt, vc: unsigned }, id, format };
  }
  throw new IdsyncError('invalid_argument', `unknown credential format ${String(format)}`);
}

export interface IssueCredentialOptions extends Omit<BuildCredentialOptions, 'issuerDid'> {
  issuer: IssuerKey;
}

/** Builds and signs a KYC credential for `subjectDid` holding `claims`. Throws on bad input. */
export async function issueCredential(o: IssueCredentialOptions): Promise<IssuedCredential> {
  const { issuer, ...rest } = o;
  const unsigned = buildCredential({ ...rest, issuerDid: issuer.did });
  return signCredential(unsigned, o.format, issuer, o.clock);
}
