// Stable names of our KYC vocabulary: the JSON-LD context URL credentials list in `@context`,
// the namespace its terms expand to, and the credential type. Kept apart from contexts.ts so
// that modules needing only the names (manifest, service) do not load any context JSON.

/** URL of our KYC JSON-LD context (bundled; served by the service at this path too). */
export const KYC_CONTEXT_URL = 'https://idsync.dev/contexts/kyc/v1';
/** Namespace the KYC terms expand to. */
export const KYC_VOCAB = 'https://idsync.dev/vocab/kyc#';
/** The credential type of KYC credentials (as the vendor names it). */
export const KYC_CREDENTIAL_TYPE = 'vKYC';
/** Schema URI output descriptors point at: the type's IRI. */
export const KYC_CREDENTIAL_SCHEMA = KYC_VOCAB + KYC_CREDENTIAL_TYPE;
