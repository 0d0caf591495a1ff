// Verifying credentials (ours, or anyone's in VC DM v1.1 with eddsa-rdfc-2022 or EdDSA VC-JWT):
// proof, issuer key authorisation, subject, validity period, status, and expected claims.
// Never throws for bad input: every failure is a check with a stable code.
import type { Clock } from '../clock.js';
import type { DocumentResolver } from '../did/types.js';
import { jcs } from '../encoding.js';
import type { DocumentLoader } from './contexts.js';
import { verifyDataIntegrityProof } from './data-integrity.js';
import { toCredentialClaims } from './issue.js';
import { findAssertionKey, sameDid } from './issuer-key.js';
import { checkStatus } from './status-list.js';
import type { CheckName, CredentialFormat, VerificationCheck, VerificationCode, VerificationResult, W3cCredential } from './types.js';
import { JWT_ALGORITHMS, decodeVcJwt, verifyVcJwtSignature } from './vc-jwt.js';

export interface VerifyCredentialOptions {
  resolve: DocumentResolver;
  clock: Clock;
  expectedSubject?: string;
  expectedIssuer?: string;
  /** Nested (or flat) datapoints the credential must carry, exactly. */
  expectedClaims?: Record<string, unknown>;
  /** Fetches a status list credential by URL (an ldp object, a JWT string or {jwt}). */
  statusList?: (url: string) => Promise<unknown>;
  /** Do not check credentialStatus (recorded as a passed check saying so). Default: check, fail closed. */
  skipStatus?: boolean;
  /** Allowed clock skew for the validity period, in seconds. Default 0. */
  clockToleranceSec?: number;
  loader?: DocumentLoader;
}

type Parsed = { format: 'ldp'; credential: W3cCredential; kid: unknown } | { format: 'jwt'; credential: W3cCredential; kid: unknown; jwt: string };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const validDate = (v: unknown): v is string => typeof v === 'string' && !Number.isNaN(Date.parse(v));

/** Accepts an ldp credential object, a VC-JWT string, or {jwt}. Returns a reason when malformed. */
function parse(input: unknown): Parsed | string {
  let parsed: Parsed;
  if (typeof input === 'string' || (isObject(input) && typeof input.jwt === 'string')) {
    const jwt = typeof input === 'string' ? input : (input.jwt as string);
    try {
      const d = decodeVcJwt(jwt);
      if (!JWT_ALGORITHMS.includes(d.header.alg)) return `JWT alg ${d.header.alg} is not allowed`;
      parsed = { format: 'jwt', credential: d.credential, kid: d.header.kid, jwt };
    } catch (err) {
      return (err as Error).message;
    }
  } else if (isObject(input)) {
    const proof = input.proof;
    parsed = { format: 'ldp', credential: input as W3cCredential, kid: isObject(proof) ? proof.verificationMethod : undefined };
  } else {
    return 'a credential is a JSON object or a VC-JWT';
  }
  const c = parsed.credential;
  const ctx = c['@context'];
  if (!Array.isArray(ctx) || ctx[0] !== 'https://www.w3.org/2018/credentials/v1') return '@context must start with the VC v1 context';
  if (!Array.isArray(c.type) || !c.type.includes('VerifiableCredential')) return "type must include 'VerifiableCredential'";
  const issuer = typeof c.issuer === 'string' ? c.issuer : isObject(c.issuer) ? c.issuer.id : undefined;
  if (typeof issuer !== 'string' || !issuer.startsWith('did:')) return 'issuer must be a DID';
  if (!validDate(c.issuanceDate)) return 'issuanceDate must be a date-time';
  if (c.expirationDate !== undefined && !validDate(c.expirationDate)) return 'expirationDate must be a date-time';
  if (!isObject(c.credentialSubject)) return 'credentialSubject must be one object';
  if (typeof parsed.kid !== 'string') return parsed.format === 'jwt' ? 'the JWT header has no kid' : 'the credential has no proof with a verificationMethod';
  return parsed;
}

function issuerOf(c: W3cCredential): string {
  return typeof c.issuer === 'string' ? c.issuer : c.issuer.id;
}

export async function verifyCredential(input: unknown, o: VerifyCredentialOptions): Promise<VerificationResult> {
  const checks: VerificationCheck[] = [];
  const pass = (check: CheckName, detail?: string) => checks.push({ check, ok: true, ...(detail ? { detail } : {}) });
  const fail = (check: CheckName, code: VerificationCode, detail?: string) => checks.push({ check, ok: false, code, ...(detail ? { detail } : {}) });
  const done = (credential?: W3cCredential, format?: CredentialFormat): VerificationResult => ({
    verified: checks.every((c) => c.ok),
    checks,
    ...(credential ? { credential } : {}),
    ...(format ? { format } : {}),
  });

  let parsed: Parsed | string;
  try {
    parsed = parse(input);
  } catch (err) {
    parsed = `unreadable credential: ${(err as Error).message}`;
  }
  if (typeof parsed === 'string') {
    fail('structure', 'malformed_credential', parsed);
    return done();
  }
  pass('structure');
  const { credential, format } = parsed;
  const issuer = issuerOf(credential);

  try {
    // Issuer key: resolved from the issuer's DID, authorised by assertionMethod.
    const key = await findAssertionKey(o.resolve, issuer, parsed.kid as string);
    if (key.ok) pass('issuer_key');
    else fail('issuer_key', key.code, key.detail);

    // Proof: checked with the key even when it is not authorised (both failures are reported).
    const publicKey = key.publicKey;
    if (!publicKey) fail('proof', 'invalid_proof', 'no issuer key to verify the proof with');
    else if (parsed.format === 'jwt') {
      const r = await verifyVcJwtSignature(parsed.jwt, publicKey);
      if (r.ok) pass('proof');
      else fail('proof', 'invalid_proof', r.detail);
    } else {
      const r = await verifyDataIntegrityProof(credential, publicKey, o.loader);
      if (r.ok && r.proof.proofPurpose !== 'assertionMethod') fail('proof', 'invalid_proof', 'proofPurpose must be assertionMethod');
      else if (r.ok) pass('proof');
      else fail('proof', r.code, r.detail);
    }

    if (o.expectedIssuer !== undefined) {
      if (sameDid(issuer, o.expectedIssuer)) pass('issuer');
      else fail('issuer', 'issuer_mismatch', `issued by ${issuer}`);
    }

    if (o.expectedSubject !== undefined) {
      const subject = credential.credentialSubject.id;
      if (typeof subject === 'string' && sameDid(subject, o.expectedSubject)) pass('subject');
      else fail('subject', 'subject_mismatch', `credential subject is ${String(subject)}`);
    }

    // Validity period (VC DM v1.1 §4.6, §4.7): issuanceDate ≤ now < expirationDate.
    const now = o.clock.now();
    const skew = (o.clockToleranceSec ?? 0) * 1000;
    if (Date.parse(credential.issuanceDate) > now + skew) fail('validity', 'not_yet_valid', `valid from ${credential.issuanceDate}`);
    else if (credential.expirationDate && Date.parse(credential.expirationDate) <= now - skew) fail('validity', 'expired', `expired at ${credential.expirationDate}`);
    else pass('validity');

    if (credential.credentialStatus !== undefined) await statusCheck(credential, issuer, o, pass, fail);

    if (o.expectedClaims !== undefined) claimsCheck(credential, o.expectedClaims, pass, fail);
  } catch (err) {
    // Defensive: a check must never turn bad input into an exception.
    fail('structure', 'malformed_credential', `verification failed: ${(err as Error).message}`.slice(0, 300));
  }
  return done(credential, format);
}

/** The most status lists one credential's credentialStatus may name (each is a fetch and a proof to verify). */
export const MAX_STATUS_LISTS = 16;

async function statusCheck(
  credential: W3cCredential,
  issuer: string,
  o: VerifyCredentialOptions,
  pass: (c: CheckName, d?: string) => void,
  fail: (c: CheckName, code: VerificationCode, d?: string) => void,
): Promise<void> {
  if (o.skipStatus) return pass('status', 'not checked (skipStatus)');
  const entries = Array.isArray(credential.credentialStatus) ? credential.credentialStatus : [credential.credentialStatus];
  const urls = new Set<string>();
  for (const entry of entries) {
    const url = isObject(entry) ? entry.statusListCredential : undefined;
    if (typeof url !== 'string') return fail('status', 'status_list_invalid', 'credentialStatus has no statusListCredential');
    urls.add(url);
  }
  // Each list is fetched and verified at most once per credential, and a credential naming more
  // lists than any issuer needs is refused before any is fetched: its issuer could otherwise make
  // the verifier fetch and verify a list per entry (hundreds of requests for one credential).
  if (urls.size > MAX_STATUS_LISTS) return fail('status', 'status_list_invalid', `credentialStatus names ${urls.size} status lists; at most ${MAX_STATUS_LISTS} are read`);
  if (!o.statusList) return fail('status', 'status_unavailable', 'no status list source given');
  const lists = new Map<string, W3cCredential>();
  for (const entry of entries) {
    const url = (entry as unknown as { statusListCredential: string }).statusListCredential;
    let listCredential = lists.get(url);
    if (!listCredential) {
      let listInput: unknown;
      try {
        listInput = await o.statusList(url);
      } catch (err) {
        return fail('status', 'status_unavailable', `fetching ${url} failed: ${(err as Error).message}`.slice(0, 300));
      }
      if (listInput === undefined || listInput === null) return fail('status', 'status_unavailable', `status list ${url} not found`);
      // The list is itself a credential: same issuer, valid proof, in its validity period.
      const list = await verifyCredential(listInput, { ...o, expectedIssuer: issuer, expectedSubject: undefined, expectedClaims: undefined, skipStatus: true });
      if (!list.verified || !list.credential) {
        const bad = list.checks.find((c) => !c.ok);
        return fail('status', 'status_list_invalid', `status list credential: ${bad?.code ?? 'invalid'} ${bad?.detail ?? ''}`.trim());
      }
      lists.set(url, (listCredential = list.credential));
    }
    const r = checkStatus(entry, listCredential);
    if (!r.ok) return fail('status', r.code, r.detail);
    if (r.set) return fail('status', r.purpose === 'revocation' ? 'revoked' : 'suspended', `status list ${url} index ${String(entry?.statusListIndex)}`);
  }
  pass('status');
}

function claimsCheck(
  credential: W3cCredential,
  expected: Record<string, unknown>,
  pass: (c: CheckName, d?: string) => void,
  fail: (c: CheckName, code: VerificationCode, d?: string) => void,
): void {
  const { id: _id, ...actual } = credential.credentialSubject;
  let want: unknown;
  try {
    want = toCredentialClaims(expected);
  } catch {
    want = expected;
  }
  let equal = false;
  try {
    equal = jcs(actual) === jcs(want);
  } catch {
    equal = false;
  }
  if (equal) pass('claims');
  else {
    const keys = new Set([...Object.keys(actual), ...Object.keys(want as object)]);
    const differing = [...keys].filter((k) => jcs((actual as Record<string, unknown>)[k] ?? null) !== jcs((want as Record<string, unknown>)[k] ?? null));
    fail('claims', 'claims_mismatch', `differing: ${differing.join(', ')}`);
  }
}
