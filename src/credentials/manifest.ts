// Data profiles: the constraints a project puts on the datapoints it issues, published as a
// DIF Credential Manifest (https://identity.foundation/credential-manifest/, v1.0.0) that the
// issuer sends in the WACI offer (attachment format `dif/credential-manifest/manifest@v1.0`).
import { IdsyncError } from '../errors.js';
import {
  ADDRESS_FIELDS,
  DATAPOINT_KEYS,
  type AddressKey,
  type DatapointFormat,
  type DatapointKey,
  type FlatDatapoints,
  canonicalKey,
  datapointFormat,
  isDatapointKey,
  normalizeValue,
} from './datapoints.js';
import { KYC_CREDENTIAL_SCHEMA } from './kyc-vocab.js';
import { compilePattern, patternProblem } from './safe-pattern.js';

export { MAX_PATTERN_LENGTH, MAX_PATTERN_VALUE_LENGTH, patternRefusal } from './safe-pattern.js';

/** Attachment format of a manifest in issue-credential 3.0 offers (WACI-DIDComm). */
export const MANIFEST_ATTACHMENT_FORMAT = 'dif/credential-manifest/manifest@v1.0';
export const MANIFEST_SPEC_VERSION = 'https://identity.foundation/credential-manifest/spec/v1.0.0/';
/** The one output descriptor of a KYC manifest; the fulfillment's descriptor_map points at it. */
export const KYC_OUTPUT_DESCRIPTOR_ID = 'kyc_output';

// Credential Manifest §Display Mapping Objects: a path into the credential plus a JSON Schema.
export interface DisplayMapping {
  path?: string[];
  schema?: { type: 'string' | 'boolean' | 'number' | 'integer'; format?: string };
  fallback?: string;
  text?: string;
  label?: string;
}

export interface OutputDescriptor {
  id: string;
  schema: string;
  name?: string;
  description?: string;
  display?: {
    title?: DisplayMapping;
    subtitle?: DisplayMapping;
    description?: DisplayMapping;
    properties?: DisplayMapping[];
  };
  styles?: Record<string, unknown>;
}

export interface CredentialManifest {
  id: string;
  spec_version: string;
  /** Not in the DIF spec; the WACI vectors carry it. The profile version. */
  version?: string;
  name?: string;
  description?: string;
  issuer: { id: string; name?: string; styles?: Record<string, unknown> };
  output_descriptors: OutputDescriptor[];
  // Credential Manifest §format: the claim formats the issuer can produce.
  format?: { ldp_vc?: { proof_type: string[] }; jwt_vc?: { alg: string[] } };
}

export interface ProfileField {
  key: DatapointKey;
  required: boolean;
  /** Defaults to the key's own format (datapoints.ts). */
  format?: DatapointFormat;
  /** An ECMAScript regular expression (unicode mode) the whole value must match. */
  pattern?: string;
  label?: string;
}

export interface DataProfile {
  id: string;
  name: string;
  version: string;
  description?: string;
  fields: ProfileField[];
  manifest: CredentialManifest;
}

export interface ProfileError {
  field: string;
  code: 'missing_datapoint' | 'invalid_format' | 'unknown_datapoint';
  message: string;
}

const LABELS: Record<DatapointKey, string> = {
  firstName: 'First name',
  lastName: 'Last name',
  birthDate: 'Date of birth',
  nationality: 'Nationality',
  socialSecurityNumber: 'Social security number',
  residentialAddressStreetAddress: 'Street address',
  residentialAddressLocality: 'Locality',
  residentialAddressRegion: 'Region',
  residentialAddressPostalCode: 'Postal code',
  residentialAddressCountry: 'Country',
  emailAddress: 'E-mail address',
  phoneNumber: 'Phone number',
};

/** JSONPath of a datapoint inside a KYC credential (address nested, as in the credential). */
export function credentialPath(key: DatapointKey): string {
  return key in ADDRESS_FIELDS
    ? `$.credentialSubject.residentialAddress.${ADDRESS_FIELDS[key as AddressKey]}`
    : `$.credentialSubject.${key}`;
}

const JSON_SCHEMA_FORMAT: Partial<Record<DatapointFormat, string>> = { date: 'date', email: 'email' };

function buildManifest(p: Omit<DataProfile, 'manifest'>, issuer: CredentialManifest['issuer']): CredentialManifest {
  return {
    id: p.id,
    spec_version: MANIFEST_SPEC_VERSION,
    version: p.version,
    name: p.name,
    ...(p.description ? { description: p.description } : {}),
    issuer,
    output_descriptors: [
      {
        id: KYC_OUTPUT_DESCRIPTOR_ID,
        schema: KYC_CREDENTIAL_SCHEMA,
        name: p.name,
        display: {
          title: { text: p.name },
          properties: p.fields.map((f) => {
            const format = JSON_SCHEMA_FORMAT[f.format ?? datapointFormat(f.key)];
            return {
              path: [credentialPath(f.key)],
              schema: { type: 'string' as const, ...(format ? { format } : {}) },
              label: f.label ?? LABELS[f.key],
            };
          }),
        },
      },
    ],
    format: { ldp_vc: { proof_type: ['DataIntegrityProof'] }, jwt_vc: { alg: ['EdDSA'] } },
  };
}

/**
 * Builds a profile and its manifest. Throws IdsyncError 'invalid_profile' for unknown keys,
 * duplicate keys or a pattern that does not compile or is not safe to run (patternRefusal).
 */
export function createDataProfile(input: {
  id: string;
  name: string;
  version?: string;
  description?: string;
  fields: ProfileField[];
  issuer?: { id: string; name?: string };
}): DataProfile {
  const seen = new Set<string>();
  for (const f of input.fields) {
    if (!isDatapointKey(f.key)) throw new IdsyncError('invalid_profile', `${String(f.key)} is not a datapoint`);
    if (seen.has(f.key)) throw new IdsyncError('invalid_profile', `${f.key} appears twice`);
    seen.add(f.key);
    if (f.pattern !== undefined) compilePattern(f.key, f.pattern);
  }
  const profile = {
    id: input.id,
    name: input.name,
    version: input.version ?? '1.0.0',
    ...(input.description ? { description: input.description } : {}),
    fields: input.fields.map((f) => ({ ...f })),
  };
  // Without an issuer yet the manifest names a placeholder; credentialManifestFor sets the real one.
  return { ...profile, manifest: buildManifest(profile, input.issuer ?? { id: '' }) };
}

/** The default KYC profile: the whole vocabulary, firstName, lastName and birthDate required. */
export function defaultKycProfile(issuerDid?: string): DataProfile {
  const required = new Set<DatapointKey>(['firstName', 'lastName', 'birthDate']);
  return createDataProfile({
    id: 'idsync-kyc-default',
    name: 'KYC Credential',
    version: '1.0.0',
    description: 'Identity (KYC) datapoints verified by the provider.',
    fields: DATAPOINT_KEYS.map((key) => ({ key, required: required.has(key) })),
    ...(issuerDid ? { issuer: { id: issuerDid } } : {}),
  });
}

/** The manifest to put in a WACI offer, naming the issuing DID. */
export function credentialManifestFor(profile: DataProfile, issuerDid: string, issuerName?: string): CredentialManifest {
  const issuer = { id: issuerDid, ...(issuerName ? { name: issuerName } : {}) };
  return buildManifest(profile, issuer);
}

/**
 * Checks flat datapoints against a profile: required keys present, formats and patterns met,
 * no key outside the profile. Values are checked as normalizeFlat would normalise them
 * (so `DD/MM/YYYY` birth dates pass); `datapoints` holds the normalised values.
 */
export function validateDatapoints(profile: DataProfile, flat: Record<string, unknown>): {
  ok: boolean;
  errors: ProfileError[];
  datapoints: FlatDatapoints;
} {
  const errors: ProfileError[] = [];
  const datapoints: FlatDatapoints = {};
  const fields = new Map(profile.fields.map((f) => [f.key, f]));
  for (const [inKey, value] of Object.entries(flat)) {
    const key = canonicalKey(inKey);
    const field = key ? fields.get(key) : undefined;
    if (!key || !field) {
      errors.push({ field: inKey, code: 'unknown_datapoint', message: `${inKey} is not a datapoint of profile ${profile.id}` });
      continue;
    }
    if (value === undefined) continue;
    if (typeof value !== 'string') {
      errors.push({ field: inKey, code: 'invalid_format', message: `${inKey} must be a string` });
      continue;
    }
    const normal = normalizeValue(key, value);
    if ('code' in normal) {
      errors.push({ field: inKey, code: normal.code === 'empty_datapoint' ? 'missing_datapoint' : 'invalid_format', message: normal.message });
      continue;
    }
    if (field.format && field.format !== datapointFormat(key) && field.format !== 'string') {
      const check = checkFormat(field.format, normal.value);
      if (check) {
        errors.push({ field: inKey, code: 'invalid_format', message: `${inKey}: ${check}` });
        continue;
      }
    }
    const mismatch = field.pattern === undefined ? undefined : patternProblem(key, field.pattern, normal.value);
    if (mismatch) {
      errors.push({ field: inKey, code: 'invalid_format', message: mismatch });
      continue;
    }
    datapoints[key] = normal.value;
  }
  for (const f of profile.fields) {
    if (f.required && datapoints[f.key] === undefined && !errors.some((e) => canonicalKey(e.field) === f.key)) {
      errors.push({ field: f.key, code: 'missing_datapoint', message: `${f.key} is required by profile ${profile.id}` });
    }
  }
  return { ok: errors.length === 0, errors, datapoints };
}

// A profile may demand a stricter format than the key's own (e.g. a `phone` format for
// socialSecurityNumber is silly but allowed); reuse the vocabulary's checkers by format.
const KEY_FOR_FORMAT: Record<Exclude<DatapointFormat, 'string'>, DatapointKey> = {
  date: 'birthDate',
  country: 'nationality',
  email: 'emailAddress',
  phone: 'phoneNumber',
};

function checkFormat(format: DatapointFormat, value: string): string | undefined {
  if (format === 'string') return undefined;
  const result = normalizeValue(KEY_FOR_FORMAT[format], value);
  return 'code' in result ? `not a valid ${format}` : undefined;
}
