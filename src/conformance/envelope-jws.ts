// The rules on a JWS as it arrives, before its signer is resolved (RFC 7515 §7.2; DIDComm v2.1
// §Message Signing), each judged on its own so that every fault is listed. The payload of a
// JWS is readable without keys: payloadOf() hands it to the plaintext rules.
import { MEDIA_TYPES } from '../didcomm/types.js';
import { critListFault, JWS_HEADER_NAMES } from '../didcomm/envelope/crit.js';
import { b64uDecodeText } from '../encoding.js';
import { decodeHeader, isBase64url, isObject } from './envelope-shape.js';
import { KEY_ID, sameMediaType } from './plaintext.js';
import { check, fail, note, type ConformanceResult } from './types.js';

const L = 'envelope' as const;
/** DIDComm v2.1 §Message Signing, Algorithms. */
const SIGN_ALGS = ['EdDSA', 'ES256', 'ES256K'];

/** The signatures as given: the general form's array, or the flattened form's one (RFC 7515 §7.2.2). */
function signaturesOf(jws: Record<string, unknown>): { list: unknown[]; flattened: boolean } | undefined {
  if (Array.isArray(jws.signatures)) return { list: jws.signatures, flattened: false };
  if (jws.signatures === undefined && 'signature' in jws) return { list: [{ protected: jws.protected, header: jws.header, signature: jws.signature }], flattened: true };
  return undefined;
}

function signatureRules(s: unknown, where: string): ConformanceResult[] {
  if (!isObject(s)) return [fail(L, 'envelope.jws-signatures', `${where} is not a JSON object`)];
  const out: ConformanceResult[] = [];
  const prot = s.protected === undefined ? {} : decodeHeader(s.protected);
  out.push(check(L, 'envelope.jws-protected', prot !== null, `${where}: the protected header is not base64url of a JSON object`));
  const header = s.header === undefined ? {} : isObject(s.header) ? s.header : null;
  out.push(check(L, 'envelope.jws-header', header !== null, `${where}: the unprotected header is not a JSON object`));
  out.push(check(L, 'envelope.jws-signatures', isBase64url(s.signature) && s.signature !== '', `${where} has no base64url signature`));
  if (!prot || !header) return out;
  const both = Object.keys(header).filter((k) => k in prot);
  out.push(check(L, 'envelope.jws-header-disjoint', both.length === 0, `${where}: ${both.join(', ')} in both the protected and the unprotected header`));
  const joseHeader = { ...prot, ...header };
  if (prot.typ === undefined) out.push(fail(L, 'envelope.jws-typ-set', `${where}: the protected header sets no typ`));
  else out.push(check(L, 'envelope.jws-typ', sameMediaType(prot.typ, MEDIA_TYPES.signed), `${where}: typ ${String(prot.typ)} is not ${MEDIA_TYPES.signed}`));
  if (joseHeader.crit !== undefined) out.push(...critRules(joseHeader, header, where));
  out.push(check(L, 'envelope.jws-alg', SIGN_ALGS.includes(joseHeader.alg as string), `${where}: alg ${String(joseHeader.alg)} is not one of ${SIGN_ALGS.join(', ')}`));
  const kid = joseHeader.kid;
  out.push(check(L, 'envelope.jws-kid', typeof kid === 'string' && KEY_ID.test(kid), kid === undefined ? `${where} names no kid` : `${where}: kid ${String(kid)} is not a DID URL`));
  if (kid !== undefined && !('kid' in header)) out.push(note(L, 'envelope.jws-kid-protected', `${where}: kid only in the protected header`));
  return out;
}

/**
 * RFC 7515 §4.1.11: the producer keeps crit in the protected header and writes a well-formed list;
 * a list idsync does not understand is a note (the MUST to refuse it binds the recipient).
 */
function critRules(joseHeader: Record<string, unknown>, unprotected: Record<string, unknown>, where: string): ConformanceResult[] {
  const fault = critListFault(joseHeader.crit, joseHeader, JWS_HEADER_NAMES);
  return [
    check(L, 'envelope.jws-crit-protected', !('crit' in unprotected), `${where}: crit in the unprotected header, not the protected one`),
    check(L, 'envelope.jws-crit-list', fault === undefined, `${where}: ${fault}`),
    ...(fault === undefined ? [note(L, 'envelope.jws-crit', `${where}: crit names extensions idsync does not implement, so it cannot verify the JWS: ${JSON.stringify(joseHeader.crit)}`)] : []),
  ];
}

/** Every rule on a JWS (`jws` parsed from JSON) that can be judged without the signer's key. Never throws. */
export function jwsRules(jws: Record<string, unknown>): ConformanceResult[] {
  const out: ConformanceResult[] = [];
  const payload = payloadOf(jws);
  out.push(check(L, 'envelope.jws-payload', payload !== undefined, jws.payload === undefined ? 'the JWS has no payload' : 'the payload is not base64url of a JSON object'));
  const given = signaturesOf(jws);
  if (!given || given.list.length === 0) return [...out, fail(L, 'envelope.jws-signatures', 'the JWS has no signatures (a non-empty signatures array, or one flattened signature)')];
  if (given.flattened) out.push(note(L, 'envelope.jws-flattened', 'a flattened JWS'));
  if (given.list.length > 1) out.push(note(L, 'envelope.jws-several-signatures', `${given.list.length} signatures: only the sender's counts`));
  given.list.forEach((s, i) => out.push(...signatureRules(s, given.list.length === 1 ? 'the signature' : `signature ${i}`)));
  // One result per rule and outcome: the same rule passing for every signature is said once.
  return out.filter((r, i) => r.detail !== undefined || out.findIndex((x) => x.rule === r.rule && x.ok === r.ok && x.detail === undefined) === i);
}

/** The JWS payload as a JSON object (readable without any key), or undefined. */
export function payloadOf(jws: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!isBase64url(jws.payload)) return undefined;
  try {
    const value: unknown = JSON.parse(b64uDecodeText(jws.payload));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

