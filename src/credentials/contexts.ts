// JSON-LD contexts, bundled: verification never touches the network (VC Data Integrity §4.4:
// contexts SHOULD be cached/pinned; an unknown context is a failure, not a fetch).
// Bundled: W3C VC v1 and v2, Data Integrity v1/v2, Bitstring Status List v1, and our KYC context.
import { createRequire } from 'node:module';
import { IdsyncError } from '../errors.js';
import { KYC_CONTEXT_URL, KYC_VOCAB } from './kyc-vocab.js';

export { KYC_CONTEXT_URL } from './kyc-vocab.js';

export const CREDENTIALS_V1_URL = 'https://www.w3.org/2018/credentials/v1';
export const CREDENTIALS_V2_URL = 'https://www.w3.org/ns/credentials/v2';
export const DATA_INTEGRITY_V2_URL = 'https://w3id.org/security/data-integrity/v2';
export const STATUS_LIST_V1_URL = 'https://www.w3.org/ns/credentials/status/v1';

export type JsonLdContext = Record<string, unknown>;

const XSD = 'http://www.w3.org/2001/XMLSchema#';

/**
 * Our KYC vocabulary. `@protected` so that no later context can redefine a datapoint term
 * (JSON-LD 1.1 §4.1.11). birthDate is an xsd:date; datapoints.ts guarantees YYYY-MM-DD.
 * `replaces` records the id of the credential a re-issued credential supersedes.
 */
export const KYC_CONTEXT: JsonLdContext = {
  '@context': {
    '@version': 1.1,
    '@protected': true,
    id: '@id',
    type: '@type',
    kyc: KYC_VOCAB,
    vKYC: 'kyc:vKYC',
    replaces: { '@id': 'kyc:replaces', '@type': '@id' },
    firstName: 'kyc:firstName',
    lastName: 'kyc:lastName',
    birthDate: { '@id': 'kyc:birthDate', '@type': `${XSD}date` },
    nationality: 'kyc:nationality',
    socialSecurityNumber: 'kyc:socialSecurityNumber',
    emailAddress: 'kyc:emailAddress',
    phoneNumber: 'kyc:phoneNumber',
    residentialAddress: {
      '@id': 'kyc:residentialAddress',
      '@context': {
        '@protected': true,
        streetAddress: 'kyc:streetAddress',
        locality: 'kyc:locality',
        postalCode: 'kyc:postalCode',
        region: 'kyc:region',
        country: 'kyc:country',
      },
    },
  },
};

// The digitalbazaar context packages ship no type declarations; load them through require
// (each has a CommonJS build) and check the shape once here.
const require = createRequire(import.meta.url);

function mapOf(pkg: string): Map<string, JsonLdContext> {
  const mod = require(pkg) as { contexts?: unknown };
  if (!(mod.contexts instanceof Map)) throw new IdsyncError('internal_error', `${pkg} exports no contexts map`);
  return mod.contexts as Map<string, JsonLdContext>;
}

function buildBundle(): Map<string, JsonLdContext> {
  const all = new Map<string, JsonLdContext>();
  for (const pkg of [
    '@digitalbazaar/credentials-context',
    '@digitalbazaar/data-integrity-context',
    '@digitalbazaar/vc-bitstring-status-list-context',
  ]) {
    for (const [url, ctx] of mapOf(pkg)) all.set(url, ctx);
  }
  all.set(KYC_CONTEXT_URL, KYC_CONTEXT);
  for (const url of [CREDENTIALS_V1_URL, CREDENTIALS_V2_URL, DATA_INTEGRITY_V2_URL, STATUS_LIST_V1_URL]) {
    if (!all.has(url)) throw new IdsyncError('internal_error', `context ${url} is not bundled`);
  }
  return all;
}

/** Every context we can process, by URL. Built once per process: the contexts are constants. */
export const BUNDLED_CONTEXTS: ReadonlyMap<string, JsonLdContext> = buildBundle();

export interface RemoteDocument {
  contextUrl: null;
  documentUrl: string;
  document: JsonLdContext;
  /** 'static' lets jsonld keep the processed context in its process-wide cache. */
  tag?: 'static';
}

export type DocumentLoader = (url: string) => Promise<RemoteDocument>;

/**
 * An offline JSON-LD document loader over the bundled contexts plus `extra` (tests use it for
 * spec vectors' example contexts). Any other URL fails with 'context_not_bundled'.
 */
export function createDocumentLoader(extra: ReadonlyMap<string, JsonLdContext> = new Map()): DocumentLoader {
  return async (url: string) => {
    // A structured clone: jsonld resolves relative URLs in place and must never modify our constants.
    const bundled = BUNDLED_CONTEXTS.get(url);
    // Bundled contexts are the same for every loader: tag them 'static' so jsonld processes each
    // once per process (its shared cache), which makes canonicalization several times faster.
    // `extra` contexts are not tagged, so they never leak into other loaders through that cache.
    if (bundled) return { contextUrl: null, documentUrl: url, document: structuredClone(bundled), tag: 'static' };
    const document = extra.get(url);
    if (!document) throw new IdsyncError('context_not_bundled', `JSON-LD context ${url} is not bundled`, { details: { url } });
    return { contextUrl: null, documentUrl: url, document: structuredClone(document) };
  };
}

/** The default offline loader. */
export const documentLoader: DocumentLoader = createDocumentLoader();
