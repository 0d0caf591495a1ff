// Reading a JWS in JSON serialization, General or Flattened (RFC 7515 §7.2.1, §7.2.2; DIDComm v2
// §Message Signing: "Message recipients MUST be able to process both forms"), and the compact
// form of the from_prior JWT. Each signature's JOSE header is the union of its protected and
// unprotected headers (RFC 7515 §4), whose names must be disjoint (§7.2.1).
import type { EnvelopeNote } from '../../types.js';
import { b64Member, isObject, malformed, parseJsonObject, unsupported } from '../refusal.js';
import { critListFault, JWS_HEADER_NAMES } from '../crit.js';
import { isSignAlg, type SignAlg } from './algorithms.js';

export interface JwsSignature {
  /** The signing input's first part: the protected header as sent ('' when there is none). */
  protectedB64: string;
  alg: SignAlg;
  kid: string;
  signature: Buffer;
}

export interface ParsedJws {
  payloadB64: string;
  payload: Buffer;
  signatures: JwsSignature[];
  notes: EnvelopeNote[];
}

function joseHeader(protectedB64: unknown, unprotected: unknown, where: string, notes: EnvelopeNote[]): Omit<JwsSignature, 'signature' | 'protectedB64'> {
  const prot = protectedB64 === undefined ? {} : parseJsonObject(b64Member(protectedB64, `${where} protected header`, 'envelope.jws-protected').toString('utf8'), `${where} protected header`, 'envelope.jws-protected');
  if (unprotected !== undefined && !isObject(unprotected)) throw malformed('envelope.jws-header', `${where} header must be a JSON object`);
  const header = unprotected ?? {};
  const both = Object.keys(header).filter((k) => k in prot);
  if (both.length) throw malformed('envelope.jws-header-disjoint', `${where}: ${both.join(', ')} in both the protected and the unprotected header (RFC 7515 §7.2.1)`);
  const union: Record<string, unknown> = { ...prot, ...header };
  // RFC 7515 §4.1.11: extensions we do not understand make the JWS invalid (b64: false among them).
  // The refusal names what the producer broke, if anything: crit outside the protected header, or a
  // malformed list; a well-formed one is only not understood here.
  if (union.crit !== undefined) {
    if ('crit' in header) throw malformed('envelope.jws-crit-protected', `${where}: crit in the unprotected header, not the protected one`);
    const fault = critListFault(union.crit, union, JWS_HEADER_NAMES);
    if (fault) throw malformed('envelope.jws-crit-list', `${where}: ${fault}`);
    throw unsupported('envelope.jws-crit', `${where} names critical header extensions this engine does not implement`);
  }
  if (!isSignAlg(union.alg)) throw unsupported('envelope.jws-alg', `${where}: alg ${String(union.alg)} is not one of DIDComm v2's EdDSA, ES256, ES256K`);
  if (typeof union.kid !== 'string' || union.kid === '') throw malformed('envelope.jws-kid', `${where} has no kid`);
  if (!('kid' in header)) notes.push({ rule: 'envelope.jws-kid-protected', detail: `${where}: kid only in the protected header accepted (RFC 7515 §4: the JOSE header is the union of both)` });
  return { alg: union.alg, kid: union.kid };
}

export function parseJws(jws: Record<string, unknown>): ParsedJws {
  const notes: EnvelopeNote[] = [];
  if (typeof jws.payload !== 'string') throw malformed('envelope.jws-payload', 'the JWS has no payload');
  const payload = b64Member(jws.payload, 'the JWS payload', 'envelope.jws-payload');
  let entries: Record<string, unknown>[];
  if (Array.isArray(jws.signatures)) {
    if (jws.signatures.length === 0 || !jws.signatures.every(isObject)) throw malformed('envelope.jws-signatures', 'JWS signatures must be a non-empty array of objects');
    entries = jws.signatures as Record<string, unknown>[];
  } else if (jws.signatures === undefined && typeof jws.signature === 'string') {
    entries = [{ protected: jws.protected, header: jws.header, signature: jws.signature }];
    notes.push({ rule: 'envelope.jws-flattened', detail: 'flattened JWS JSON serialization accepted (DIDComm v2 §Message Signing allows General and Flattened)' });
  } else {
    throw malformed('envelope.jws-signatures', 'the JWS has neither signatures nor a signature');
  }
  const signatures = entries.map((e, i) => {
    const where = entries.length === 1 ? 'the signature' : `signature ${i}`;
    const { alg, kid } = joseHeader(e.protected, e.header, where, notes);
    const signature = b64Member(e.signature, `${where} value`, 'envelope.jws-signature');
    return { protectedB64: typeof e.protected === 'string' ? e.protected : '', alg, kid, signature };
  });
  return { payloadB64: jws.payload, payload, signatures, notes };
}

/** A compact JWS (RFC 7515 §7.1): header, payload and signature. */
export function parseCompact(compact: string, what: string): { headerB64: string; payloadB64: string; header: Record<string, unknown>; payload: Buffer; signature: Buffer } {
  const parts = compact.split('.');
  if (parts.length !== 3) throw malformed('from_prior.jwt', `${what} is not a compact JWS`);
  const [headerB64, payloadB64, sig] = parts as [string, string, string];
  const header = parseJsonObject(b64Member(headerB64, `${what} header`, 'from_prior.jwt').toString('utf8'), `${what} header`, 'from_prior.jwt');
  return { headerB64, payloadB64, header, payload: b64Member(payloadB64, `${what} payload`, 'from_prior.jwt'), signature: b64Member(sig, `${what} signature`, 'from_prior.jwt') };
}
