// The rules on a JWE as it arrives, before any key is used (RFC 7516 §7.2; DIDComm v2.1
// §Message Encryption, §ECDH-1PU and §ECDH-ES key wrapping and common protected headers). Every
// rule is judged on its own, so a JWE with several faults gets every one of them, not the first.
import { MEDIA_TYPES } from '../didcomm/types.js';
import { critListFault, JWE_HEADER_NAMES } from '../didcomm/envelope/crit.js';
// §ECDH-1PU / §ECDH-ES key wrapping: the headers that MUST be in the protected section (no MUST places enc or skid).
import { protectedOnly } from '../didcomm/envelope/jwe/parse.js';
import { hash } from 'node:crypto';
import { b64uDecodeText } from '../encoding.js';
import { ANONCRYPT_ALG, AUTHCRYPT_ALG, decodeHeader, isBase64url, isObject } from './envelope-shape.js';
import { KEY_ID, sameMediaType } from './plaintext.js';
import { check, fail, note, pass, type ConformanceResult } from './types.js';
import { ownEntry } from '../own-entry.js';

const L = 'envelope' as const;

/** DIDComm v2.1 §Curves and Content Encryption Algorithms. */
const DIDCOMM_ENCS = ['A256CBC-HS512', 'A256GCM', 'XC20P'];
/** ECDH-1PU draft 04 §2.1: key wrapping only with AES_CBC_HMAC_SHA2; DIDComm's one is A256CBC-HS512. */
const AUTHCRYPT_ENCS = ['A256CBC-HS512'];
const AGREEMENT_CURVES: Record<string, string[]> = { OKP: ['X25519'], EC: ['P-256', 'P-384', 'P-521'] };

const didOfKid = (kid: string) => kid.split('#')[0]!;

/** The recipients as given: the general form's array, or the flattened form's one (RFC 7516 §7.2.2). */
function recipientsOf(jwe: Record<string, unknown>): { list: unknown[]; flattened: boolean } | undefined {
  if (Array.isArray(jwe.recipients)) return { list: jwe.recipients, flattened: false };
  if (jwe.recipients === undefined && ('encrypted_key' in jwe || 'header' in jwe)) return { list: [{ header: jwe.header, encrypted_key: jwe.encrypted_key }], flattened: true };
  return undefined;
}

function memberRules(jwe: Record<string, unknown>, alg: unknown): ConformanceResult[] {
  const out: ConformanceResult[] = [];
  for (const k of ['iv', 'tag', 'ciphertext'] as const) {
    out.push(check(L, `envelope.jwe-${k}`, isBase64url(jwe[k]), jwe[k] === undefined ? `the JWE has no ${k}` : `${k} is not base64url (RFC 7515 §2: URL-safe alphabet, no padding)`));
  }
  if (jwe.aad !== undefined) out.push(check(L, 'envelope.jwe-aad', isBase64url(jwe.aad), 'aad is not base64url'));
  if (jwe.unprotected !== undefined) out.push(...headerRules(jwe.unprotected, 'the unprotected header', alg));
  return out;
}

/** An unprotected or per-recipient header: a JSON object without the parameters DIDComm protects. */
function headerRules(header: unknown, what: string, alg: unknown): ConformanceResult[] {
  if (!isObject(header)) return [fail(L, 'envelope.jwe-header', `${what} is not a JSON object`)];
  const misplaced = protectedOnly(alg).filter((k) => k in header);
  return [pass(L, 'envelope.jwe-header'), check(L, 'envelope.jwe-protected-headers', misplaced.length === 0, `${misplaced.join(', ')} in ${what}, not in the protected header`)];
}

function recipientRules(jwe: Record<string, unknown>, alg: unknown): { results: ConformanceResult[]; kids: string[] } {
  const given = recipientsOf(jwe);
  if (!given || given.list.length === 0) return { results: [fail(L, 'envelope.jwe-recipients', 'the JWE has no recipients (a non-empty recipients array, or one flattened recipient)')], kids: [] };
  const out: ConformanceResult[] = [pass(L, 'envelope.jwe-recipients')];
  if (given.flattened) out.push(fail(L, 'envelope.jwe-flattened', 'a flattened JWE (RFC 7516 §7.2.2): DIDComm encrypts into the General JSON Format'));
  const kids: string[] = [];
  const noKid: number[] = [];
  const badKey: number[] = [];
  given.list.forEach((r, i) => {
    const entry = isObject(r) ? r : {};
    if (entry.header !== undefined) out.push(...headerRules(entry.header, `recipient ${i}'s header`, alg));
    const kid = isObject(entry.header) ? entry.header.kid : undefined;
    if (typeof kid === 'string' && KEY_ID.test(kid)) kids.push(kid);
    else noKid.push(i);
    if (!isBase64url(entry.encrypted_key) || entry.encrypted_key === '') badKey.push(i);
  });
  out.push(check(L, 'envelope.jwe-recipient-kid', noKid.length === 0, `recipient${noKid.length > 1 ? 's' : ''} ${noKid.join(', ')} name${noKid.length > 1 ? '' : 's'} no key with a DID URL kid`));
  out.push(check(L, 'envelope.jwe-encrypted-key', badKey.length === 0, `recipient${badKey.length > 1 ? 's' : ''} ${badKey.join(', ')} ha${badKey.length > 1 ? 've' : 's'} no base64url encrypted_key`));
  const dids = [...new Set(kids.map(didOfKid))];
  if (kids.length > 0) out.push(check(L, 'envelope.jwe-recipients-one-did', dids.length === 1, `the recipients are keys of ${dids.length} DIDs (${dids.join(', ')}): one JWE per DID`));
  return { results: out, kids };
}

/**
 * RFC 7516 §7.2.1: "The Header Parameter names in the three locations MUST be disjoint." The
 * protected header, the shared unprotected header and each recipient's header (a flattened JWE's
 * top-level header, §7.2.2) name no parameter twice.
 */
function disjointRules(jwe: Record<string, unknown>, h: Record<string, unknown> | null): ConformanceResult[] {
  const shared = isObject(jwe.unprotected) ? jwe.unprotected : undefined;
  const given = recipientsOf(jwe)?.list ?? [];
  const headers: [Record<string, unknown>, string][] = given.flatMap((r, i) => (isObject(r) && isObject(r.header) ? [[r.header, `recipient ${i}'s header`] as [Record<string, unknown>, string]] : []));
  if (!shared && headers.length === 0) return [];
  const faults: string[] = [];
  const overlap = (a: Record<string, unknown>, b: Record<string, unknown>) => Object.keys(a).filter((k) => Object.hasOwn(b, k));
  const pair = (a: Record<string, unknown> | null | undefined, aName: string, b: Record<string, unknown>, bName: string) => {
    const both = a ? overlap(b, a) : [];
    if (both.length) faults.push(`${both.join(', ')} in both ${aName} and ${bName}`);
  };
  if (shared) pair(h, 'the protected header', shared, 'the unprotected header');
  for (const [header, name] of headers) {
    pair(h, 'the protected header', header, name);
    pair(shared, 'the unprotected header', header, name);
  }
  return [check(L, 'envelope.jwe-header-disjoint', faults.length === 0, faults.join('; '))];
}

function epkRules(h: Record<string, unknown>): ConformanceResult[] {
  const epk = h.epk;
  if (!isObject(epk)) return [fail(L, 'envelope.jwe-epk', 'the protected header has no epk')];
  // RFC 7518 §4.6.1.1: the epk "MUST contain only public key parameters".
  const out = [pass(L, 'envelope.jwe-epk'), check(L, 'envelope.jwe-epk-public', !('d' in epk), 'the epk carries a private key (d)')];
  const curves = ownEntry(AGREEMENT_CURVES, String(epk.kty));
  if (!curves?.includes(String(epk.crv))) return [...out, fail(L, 'envelope.jwe-epk-crv', `epk kty ${String(epk.kty)} crv ${String(epk.crv)} is not a curve of DIDComm's key wrapping table (X25519, P-256, P-384, P-521)`)];
  out.push(pass(L, 'envelope.jwe-epk-crv'));
  if (epk.crv === 'P-384' || epk.crv === 'P-521') out.push(note(L, 'envelope.jwe-curve', `key agreement on ${String(epk.crv)}: agents that agree keys only on X25519 and P-256 cannot read it`));
  return out;
}

function apuText(apu: unknown): string | null {
  if (!isBase64url(apu)) return null;
  try {
    return b64uDecodeText(apu);
  } catch {
    return null;
  }
}

/** Authcrypt's sender: apu = base64url(skid), skid when set a DID URL naming the same key. */
function authcryptRules(h: Record<string, unknown>): ConformanceResult[] {
  const out: ConformanceResult[] = [];
  const apu = h.apu === undefined ? undefined : apuText(h.apu);
  if (h.apu === undefined) out.push(fail(L, 'envelope.authcrypt-apu', 'no apu: authcrypt sets apu = base64url(the sender key id)'));
  else if (apu === null) out.push(fail(L, 'envelope.authcrypt-apu', 'apu is not base64url of a UTF-8 key id'));
  else if (typeof h.skid === 'string' && apu !== h.skid) out.push(fail(L, 'envelope.authcrypt-apu', `apu names ${apu}, skid ${h.skid}: apu must be base64url(skid)`));
  else out.push(pass(L, 'envelope.authcrypt-apu'));
  const sender = typeof h.skid === 'string' ? h.skid : apu ?? undefined;
  if (h.skid !== undefined && typeof h.skid !== 'string') out.push(fail(L, 'envelope.authcrypt-skid', 'skid is not a string'));
  else if (sender !== undefined) out.push(check(L, 'envelope.authcrypt-skid', KEY_ID.test(sender), `the sender key id ${sender} is not a DID URL`));
  if (h.skid === undefined && typeof apu === 'string') out.push(note(L, 'envelope.authcrypt-skid-from-apu', 'no skid: the sender key id is read from apu'));
  return out;
}

function anoncryptRules(h: Record<string, unknown>): ConformanceResult[] {
  const out = [check(L, 'envelope.anoncrypt-no-skid', h.skid === undefined, `skid ${String(h.skid)} names a sender in an anoncrypted JWE`)];
  if (h.apu !== undefined) out.push(fail(L, 'envelope.jwe-apu', 'an anoncrypted JWE with apu (ECDH-ES carries none in DIDComm)'));
  return out;
}

/** §ECDH-1PU/§ECDH-ES key wrapping: apv = base64url(SHA-256 of the sorted recipient kids joined with "."). */
function apvRules(h: Record<string, unknown>, kids: string[], alg: unknown): ConformanceResult[] {
  if (h.apv === undefined) {
    return [alg === ANONCRYPT_ALG ? fail(L, 'envelope.anoncrypt-no-apv', 'an anoncrypted JWE without apv') : fail(L, 'envelope.jwe-apv', 'no apv: DIDComm sets apv = base64url(SHA-256 of the sorted recipient kids joined with ".")')];
  }
  if (kids.length === 0) return [];
  // One call into OpenSSL, straight to base64url (no hash object, no copies of the digest).
  const expected = hash('sha256', kids.length === 1 ? kids[0]! : [...kids].sort().join('.'), 'base64url');
  return [check(L, 'envelope.jwe-apv', h.apv === expected, 'apv is not base64url(SHA-256 of the sorted recipient kids joined with "."): the recipient list is not bound')];
}

/**
 * RFC 7515 §4.1.11 (RFC 7516 §4.1.13): the producer keeps crit in the protected header and writes a
 * well-formed list; a list idsync does not understand is a note (the MUST to refuse it binds the recipient).
 */
function critRules(jwe: Record<string, unknown>, h: Record<string, unknown>): ConformanceResult[] {
  const given = recipientsOf(jwe)?.list ?? [];
  const elsewhere = [isObject(jwe.unprotected) && 'crit' in jwe.unprotected ? 'the unprotected header' : '', ...given.map((r, i) => (isObject(r) && isObject(r.header) && 'crit' in r.header ? `recipient ${i}'s header` : ''))].filter(Boolean);
  if (h.crit === undefined && elsewhere.length === 0) return [];
  const out = [check(L, 'envelope.jwe-crit-protected', elsewhere.length === 0, `crit in ${elsewhere.join(', ')}, not in the protected header`)];
  if (h.crit === undefined) return out;
  const fault = critListFault(h.crit, { ...(isObject(jwe.unprotected) ? jwe.unprotected : {}), ...h }, JWE_HEADER_NAMES);
  out.push(check(L, 'envelope.jwe-crit-list', fault === undefined, fault ?? ''));
  if (fault === undefined) out.push(note(L, 'envelope.jwe-crit', `crit names extensions idsync does not implement, so it cannot open the JWE: ${JSON.stringify(h.crit)}`));
  return out;
}

/** Every rule on a JWE (`jwe` parsed from JSON) that can be judged without keys. Never throws. */
export function jweRules(jwe: Record<string, unknown>): ConformanceResult[] {
  const out: ConformanceResult[] = [];
  const h = decodeHeader(jwe.protected);
  out.push(check(L, 'envelope.jwe-protected', h !== null, jwe.protected === undefined ? 'the JWE has no protected header' : 'the protected header is not base64url of a JSON object'));
  out.push(...memberRules(jwe, h?.alg));
  const { results, kids } = recipientRules(jwe, h?.alg);
  out.push(...results);
  out.push(...disjointRules(jwe, h));
  if (!h) return out;
  if (h.typ === undefined) out.push(fail(L, 'envelope.jwe-typ-set', 'the protected header sets no typ'));
  else out.push(check(L, 'envelope.typ', sameMediaType(h.typ, MEDIA_TYPES.encrypted), `typ ${String(h.typ)} is not ${MEDIA_TYPES.encrypted}`));
  out.push(...critRules(jwe, h));
  if (h.zip !== undefined) out.push(fail(L, 'envelope.jwe-zip', `zip ${String(h.zip)}: DIDComm has no compression`));
  out.push(...epkRules(h));
  const alg = h.alg;
  out.push(check(L, 'envelope.jwe-alg', alg === AUTHCRYPT_ALG || alg === ANONCRYPT_ALG, `alg ${String(alg)} is neither ${AUTHCRYPT_ALG} (authcrypt) nor ${ANONCRYPT_ALG} (anoncrypt)`));
  out.push(check(L, 'envelope.jwe-enc', DIDCOMM_ENCS.includes(h.enc as string), `enc ${String(h.enc)} is not one of ${DIDCOMM_ENCS.join(', ')}`));
  if (alg === AUTHCRYPT_ALG) {
    out.push(check(L, 'envelope.authcrypt-enc', AUTHCRYPT_ENCS.includes(h.enc as string), `ECDH-1PU with ${String(h.enc)}: authcrypt requires the AES-CBC-HMAC family (A256CBC-HS512)`));
    out.push(...authcryptRules(h));
  } else if (alg === ANONCRYPT_ALG) {
    out.push(...anoncryptRules(h));
  }
  out.push(...apvRules(h, kids, alg));
  return out;
}
