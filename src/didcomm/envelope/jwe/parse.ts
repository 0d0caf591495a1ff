// Reading a JWE in JSON serialization (RFC 7516 §7.2): the General form DIDComm v2 uses
// (§Message Encryption), and the Flattened form (§7.2.2), accepted with a note. What DIDComm
// requires of the structure is checked here; the cryptography is in decrypt.ts.
import type { EnvelopeNote } from '../../types.js';
import { b64Member, isObject, malformed, parseJsonObject, unsupported } from '../refusal.js';
import { critListFault, JWE_HEADER_NAMES } from '../crit.js';

export interface ParsedJwe {
  protectedB64: string;
  /** The protected header. */
  header: Record<string, unknown>;
  recipients: { kid: string; encryptedKey: string }[];
  iv: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
  /** RFC 7516 §5.1 step 14: the AAD is the protected header, then '.' and the aad member when there is one. */
  aad: Buffer;
  notes: EnvelopeNote[];
}

// DIDComm v2.1 §ECDH-1PU key wrapping: "JWE messages MUST use common `epk`, `apu`, `apv` and
// `alg` headers for all recipient keys. They MUST be set in the `protected` JWE section."
// (§ECDH-ES: `epk`, `apv` and `alg`.) The AAD covers them there.
const PROTECTED_ONLY_AUTHCRYPT = ['alg', 'epk', 'apu', 'apv'];
const PROTECTED_ONLY_ANONCRYPT = ['alg', 'epk', 'apv'];

/** The header parameters a JWE of key wrapping `alg` must keep in its protected header. */
export const protectedOnly = (alg: unknown): readonly string[] => (alg === 'ECDH-ES+A256KW' ? PROTECTED_ONLY_ANONCRYPT : PROTECTED_ONLY_AUTHCRYPT);

function headerOf(v: unknown, what: string, alg: unknown): Record<string, unknown> | undefined {
  if (v === undefined) return undefined;
  if (!isObject(v)) throw malformed('envelope.jwe-header', `${what} must be a JSON object`);
  for (const name of protectedOnly(alg)) {
    if (name in v) throw malformed('envelope.jwe-protected-headers', `${name} must be in the protected header, not in ${what}`);
  }
  return v;
}

/**
 * RFC 7516 §7.2.1: "The Header Parameter names in the three locations MUST be disjoint." (the
 * protected header, the shared unprotected header, and the recipient's header; §7.2.2 the same
 * for a flattened JWE). A name in two of them would leave the JOSE header ambiguous: a protected
 * `skid` and an unprotected one naming another key, say.
 */
function disjoint(h: Record<string, unknown> | undefined, what: string, others: [Record<string, unknown> | undefined, string][]): void {
  if (!h) return;
  for (const [other, where] of others) {
    const both = other ? Object.keys(h).filter((k) => Object.hasOwn(other, k)) : [];
    if (both.length) throw malformed('envelope.jwe-header-disjoint', `${both.join(', ')} in both ${where} and ${what} (RFC 7516 §7.2.1)`);
  }
}

export function parseJwe(jwe: Record<string, unknown>): ParsedJwe {
  const notes: EnvelopeNote[] = [];
  if (typeof jwe.protected !== 'string') throw malformed('envelope.jwe-protected', 'the JWE has no protected header');
  const protectedB64 = jwe.protected;
  const header = parseJsonObject(b64Member(protectedB64, 'the protected header', 'envelope.jwe-protected').toString('utf8'), 'the protected header', 'envelope.jwe-protected');
  const shared = headerOf(jwe.unprotected, 'the unprotected header', header.alg);
  disjoint(shared, 'the unprotected header', [[header, 'the protected header']]);
  // RFC 7515 §4.1.11 / RFC 7516 §4.1.13: extensions we do not understand make the JWE invalid.
  if (shared?.crit !== undefined) throw malformed('envelope.jwe-crit-protected', 'crit in the unprotected header, not the protected one');
  if (header.crit !== undefined) {
    const fault = critListFault(header.crit, { ...shared, ...header }, JWE_HEADER_NAMES);
    if (fault) throw malformed('envelope.jwe-crit-list', fault);
    throw unsupported('envelope.jwe-crit', 'the JWE names critical header extensions this engine does not implement');
  }
  // DIDComm's algorithm tables have no compression.
  if (header.zip !== undefined) throw unsupported('envelope.jwe-zip', `compressed content (zip ${String(header.zip)}) is outside DIDComm v2's algorithm tables`);

  let entries: unknown[];
  if (Array.isArray(jwe.recipients)) {
    entries = jwe.recipients;
  } else if (jwe.recipients === undefined && (jwe.encrypted_key !== undefined || jwe.header !== undefined)) {
    // RFC 7516 §7.2.2 Flattened JWE JSON: one recipient, its members at the top level.
    entries = [{ header: jwe.header, encrypted_key: jwe.encrypted_key }];
    notes.push({ rule: 'envelope.jwe-flattened', detail: 'a flattened JWE (RFC 7516 §7.2.2), opened all the same: DIDComm encrypts into the General JSON Format', broken: true });
  } else {
    throw malformed('envelope.jwe-recipients', 'the JWE has no recipients');
  }
  if (entries.length === 0) throw malformed('envelope.jwe-recipients', 'the JWE has no recipients');
  const recipients = entries.map((r, i) => {
    if (!isObject(r)) throw malformed('envelope.jwe-recipient-kid', `recipient ${i} is not an object`);
    const own = headerOf(r.header, `recipient ${i}'s header`, header.alg);
    disjoint(own, `recipient ${i}'s header`, [[header, 'the protected header'], [shared, 'the unprotected header']]);
    if (own?.crit !== undefined) throw malformed('envelope.jwe-crit-protected', `crit in recipient ${i}'s header, not the protected one`);
    // RFC 7516 §7.2.1: the recipient's header is the union of the three header sets.
    const kid = own?.kid ?? shared?.kid ?? header.kid;
    if (typeof kid !== 'string' || kid === '') throw malformed('envelope.jwe-recipient-kid', `recipient ${i} has no kid`);
    if (typeof r.encrypted_key !== 'string') throw malformed('envelope.jwe-recipient-kid', `recipient ${i} has no encrypted_key`);
    return { kid, encryptedKey: r.encrypted_key };
  });
  const iv = b64Member(jwe.iv, 'iv', 'envelope.jwe-iv');
  const ciphertext = b64Member(jwe.ciphertext, 'ciphertext', 'envelope.jwe-ciphertext');
  const tag = b64Member(jwe.tag, 'tag', 'envelope.jwe-tag');
  let aadText = protectedB64;
  if (jwe.aad !== undefined) {
    b64Member(jwe.aad, 'aad', 'envelope.jwe-aad');
    aadText += `.${jwe.aad as string}`;
  }
  return { protectedB64, header, recipients, iv, ciphertext, tag, aad: Buffer.from(aadText, 'latin1'), notes };
}
