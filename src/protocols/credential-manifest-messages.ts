// The payloads issue-credential 3.0 carries in the WACI `streamlined-vc` flow: the credential
// preview (issue-credential 3.0 §Preview Credential), and the DIF Credential Manifest v1.0 objects
// around it — manifest with options, application (a VP), fulfillment (a VP holding the VC).
import { IdsyncError } from '../errors.js';
import { DATAPOINT_KEYS, canonicalKey, type FlatDatapoints } from '../credentials/datapoints.js';
import { KYC_OUTPUT_DESCRIPTOR_ID, MANIFEST_ATTACHMENT_FORMAT } from '../credentials/manifest.js';
import type { VerifiablePresentation } from '../credentials/presentation.js';
import type { IssuedCredential } from '../credentials/types.js';
import { uuid } from '../clock.js';
import { isPlainObject, isString } from './protocol-kit.js';

/** Attachment formats (WACI-DIDComm v1.0 §Issuance; the status list one is ours). */
export const MANIFEST_FORMAT = MANIFEST_ATTACHMENT_FORMAT;
export const APPLICATION_FORMAT = 'dif/credential-manifest/application@v1.0';
export const FULFILLMENT_FORMAT = 'dif/credential-manifest/fulfillment@v1.0';
export const STATUS_LIST_FORMAT = 'idsync/status-list-credential@v1';
export const CREDENTIAL_PREVIEW_TYPE = 'https://didcomm.org/issue-credential/3.0/credential-preview';

const CREDENTIALS_V1 = 'https://www.w3.org/2018/credentials/v1';
// Contexts the WACI vectors list (Credential Manifest §Credential Application / §Credential Fulfillment).
const APPLICATION_CONTEXT = 'https://identity.foundation/credential-manifest/application/v1';
const FULFILLMENT_CONTEXT = 'https://identity.foundation/credential-manifest/fulfillment/v1';

// ---- credential preview ----------------------------------------------------------------------

export interface PreviewAttribute {
  name: string;
  value: string;
  /** §MIME Type and Value: when present, value is base64url of a binary BLOB. */
  media_type?: string;
}

export interface CredentialPreview {
  type: string;
  attributes: PreviewAttribute[];
}

/** The preview of flat datapoints, in the vocabulary's order (datapoints.ts DATAPOINT_KEYS). */
export function previewFromDatapoints(flat: FlatDatapoints): CredentialPreview {
  const attributes = DATAPOINT_KEYS.filter((k) => typeof flat[k] === 'string').map((k) => ({ name: k, value: flat[k] as string }));
  return { type: CREDENTIAL_PREVIEW_TYPE, attributes };
}

export function previewProblems(value: unknown): string[] {
  if (!isPlainObject(value)) return ['credential_preview must be an object'];
  const problems: string[] = [];
  if (value.type !== undefined && typeof value.type !== 'string') problems.push('credential_preview.type must be a string');
  if (!Array.isArray(value.attributes)) return [...problems, 'credential_preview.attributes must be an array'];
  value.attributes.forEach((a: unknown, i) => {
    if (!isPlainObject(a) || !isString(a.name) || typeof a.value !== 'string') problems.push(`attributes[${i}] needs a string name and value`);
    else if (a.media_type !== undefined && typeof a.media_type !== 'string') problems.push(`attributes[${i}].media_type must be a string`);
  });
  return problems;
}

/**
 * Flat datapoints from a preview. Throws 'message_invalid_body' for a name outside the
 * vocabulary, a binary (media_type) attribute, or a name given twice. Values are kept as sent.
 */
export function datapointsFromPreview(preview: CredentialPreview): FlatDatapoints {
  const problems = previewProblems(preview);
  if (problems.length) throw new IdsyncError('message_invalid_body', `invalid credential preview: ${problems.join('; ')}`);
  const flat: FlatDatapoints = {};
  for (const a of preview.attributes) {
    const key = canonicalKey(a.name);
    if (!key) throw new IdsyncError('message_invalid_body', `credential preview attribute ${a.name} is not a datapoint`, { details: { name: a.name } });
    if (a.media_type !== undefined) throw new IdsyncError('message_invalid_body', `credential preview attribute ${a.name} is binary; datapoints are strings`);
    if (flat[key] !== undefined) throw new IdsyncError('message_invalid_body', `credential preview attribute ${key} appears twice`);
    flat[key] = a.value;
  }
  return flat;
}

// ---- manifest (offer) ------------------------------------------------------------------------

/** The offer's manifest attachment: `{options: {challenge, domain}, credential_manifest: {id, output_descriptors}}`. */
export function manifestProblems(json: unknown): string[] {
  if (!isPlainObject(json)) return ['the manifest attachment must be a JSON object'];
  const problems: string[] = [];
  const o = json.options;
  if (!isPlainObject(o) || !isString(o.challenge) || !isString(o.domain)) problems.push('options {challenge, domain} is required');
  const m = json.credential_manifest;
  if (!isPlainObject(m) || !isString(m.id)) problems.push('credential_manifest.id is required');
  else if (!Array.isArray(m.output_descriptors) || m.output_descriptors.length === 0) problems.push('credential_manifest.output_descriptors must be a non-empty array');
  return problems;
}

// ---- application (request) -------------------------------------------------------------------

export interface ApplicationInput {
  holder: string;
  manifestId: string;
  applicationId?: string;
  /** Credential Manifest §format: the claim formats the holder accepts (default: ldp_vc and jwt_vc). */
  format?: Record<string, unknown>;
}

/** The unsigned credential application VP; sign it with signPresentation (challenge/domain of the offer). */
export function buildCredentialApplication(input: ApplicationInput): VerifiablePresentation {
  return {
    '@context': [CREDENTIALS_V1, APPLICATION_CONTEXT],
    type: ['VerifiablePresentation', 'CredentialApplication'],
    holder: input.holder,
    credential_application: {
      id: input.applicationId ?? uuid(),
      manifest_id: input.manifestId,
      format: input.format ?? { ldp_vc: { proof_type: ['DataIntegrityProof'] }, jwt_vc: { alg: ['EdDSA'] } },
    },
  };
}

export function applicationProblems(json: unknown): string[] {
  if (!isPlainObject(json)) return ['the application must be a Verifiable Presentation object'];
  const problems: string[] = [];
  if (!Array.isArray(json.type) || !json.type.includes('VerifiablePresentation') || !json.type.includes('CredentialApplication')) {
    problems.push("type must include 'VerifiablePresentation' and 'CredentialApplication'");
  }
  if (!isString(json.holder)) problems.push('holder is required');
  const ca = json.credential_application;
  if (!isPlainObject(ca) || !isString(ca.id) || !isString(ca.manifest_id)) problems.push('credential_application {id, manifest_id} is required');
  if (!isPlainObject(json.proof)) problems.push('the application must be signed (proof)');
  return problems;
}

// ---- fulfillment (issue) ---------------------------------------------------------------------

export type ClaimFormat = 'ldp_vc' | 'jwt_vc';

export interface FulfillmentInput {
  manifestId: string;
  /** An ldp credential object, or a VC-JWT string. */
  credential: Record<string, unknown> | string;
  format: ClaimFormat;
  /** The manifest's output descriptor (default: credentials/manifest.ts KYC_OUTPUT_DESCRIPTOR_ID). */
  descriptorId?: string;
  fulfillmentId?: string;
}

/** What goes on the wire for an issued credential (credentials/issue.ts): the object, or the JWT. */
export function wireCredential(issued: IssuedCredential): Pick<FulfillmentInput, 'credential' | 'format'> {
  if (issued.format === 'jwt') return { credential: (issued.credential as { jwt: string }).jwt, format: 'jwt_vc' };
  return { credential: issued.credential as Record<string, unknown>, format: 'ldp_vc' };
}

export function buildFulfillment(input: FulfillmentInput): Record<string, unknown> {
  return {
    '@context': [CREDENTIALS_V1, FULFILLMENT_CONTEXT],
    type: ['VerifiablePresentation', 'CredentialFulfillment'],
    credential_fulfillment: {
      id: input.fulfillmentId ?? uuid(),
      manifest_id: input.manifestId,
      descriptor_map: [{ id: input.descriptorId ?? KYC_OUTPUT_DESCRIPTOR_ID, format: input.format, path: '$.verifiableCredential[0]' }],
    },
    verifiableCredential: [input.credential],
  };
}

export interface FulfilledCredential {
  descriptorId: string;
  format: ClaimFormat;
  /** ldp_vc: the credential object; jwt_vc: the VC-JWT string. */
  credential: Record<string, unknown> | string;
}

const PATH = /^\$\.verifiableCredential\[(\d+)\]$/;

export function fulfillmentProblems(json: unknown): string[] {
  if (!isPlainObject(json)) return ['the fulfillment must be a JSON object'];
  const problems: string[] = [];
  if (!Array.isArray(json.type) || !json.type.includes('CredentialFulfillment')) problems.push("type must include 'CredentialFulfillment'");
  const vcs = Array.isArray(json.verifiableCredential) ? json.verifiableCredential : undefined;
  if (!vcs) problems.push('verifiableCredential must be an array');
  const cf = json.credential_fulfillment;
  if (!isPlainObject(cf) || !isString(cf.id) || !isString(cf.manifest_id)) return [...problems, 'credential_fulfillment {id, manifest_id} is required'];
  if (!Array.isArray(cf.descriptor_map) || cf.descriptor_map.length === 0) return [...problems, 'credential_fulfillment.descriptor_map must be a non-empty array'];
  cf.descriptor_map.forEach((d: unknown, i) => {
    const path = isPlainObject(d) && typeof d.path === 'string' ? PATH.exec(d.path) : null;
    if (!isPlainObject(d) || !isString(d.id) || !path) return problems.push(`descriptor_map[${i}] needs id and path $.verifiableCredential[n]`);
    const vc = vcs?.[Number(path[1])];
    if (d.format === 'ldp_vc' && !isPlainObject(vc)) problems.push(`descriptor_map[${i}]: ldp_vc must point at a credential object`);
    else if (d.format === 'jwt_vc' && !isString(vc)) problems.push(`descriptor_map[${i}]: jwt_vc must point at a VC-JWT string`);
    else if (d.format !== 'ldp_vc' && d.format !== 'jwt_vc') problems.push(`descriptor_map[${i}].format must be ldp_vc or jwt_vc`);
  });
  return problems;
}

/** The credentials of a fulfillment (already checked by fulfillmentProblems), by descriptor. */
export function readFulfillment(json: unknown): { fulfillmentId: string; manifestId: string; credentials: FulfilledCredential[] } {
  const problems = fulfillmentProblems(json);
  if (problems.length) throw new IdsyncError('message_invalid_body', `invalid credential fulfillment: ${problems.join('; ')}`);
  const f = json as { credential_fulfillment: { id: string; manifest_id: string; descriptor_map: Array<{ id: string; format: ClaimFormat; path: string }> }; verifiableCredential: unknown[] };
  const credentials = f.credential_fulfillment.descriptor_map.map((d) => ({
    descriptorId: d.id,
    format: d.format,
    credential: f.verifiableCredential[Number(PATH.exec(d.path)![1])] as Record<string, unknown> | string,
  }));
  return { fulfillmentId: f.credential_fulfillment.id, manifestId: f.credential_fulfillment.manifest_id, credentials };
}
