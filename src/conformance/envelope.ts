// Envelope rules: the outer JOSE structure against its media type (DIDComm v2.1 §Message Formats,
// §Message Encryption, §Message Signing; envelope-jwe.ts, envelope-jws.ts), and sender
// authentication: the plaintext `from` must be the DID whose key authcrypted or signed it
// (§Message Layer Addressing Consistency).
import { didOf, sameDid } from '../didcomm/message.js';
import { envelopeShape, isObject } from './envelope-shape.js';
import { jweRules } from './envelope-jwe.js';
import { jwsRules } from './envelope-jws.js';
import { ruleOf } from './catalogue.js';
import { check, fail, note, type ConformanceResult, type MessageRule } from './types.js';

export { envelopeShape, outerMode, type EnvelopeShape } from './envelope-shape.js';
export { payloadOf } from './envelope-jws.js';

const L = 'envelope' as const;

/**
 * Rules on the outer packed form (before any decryption), every one judged: a JWE or JWS with
 * several faults gets a result for each. A plaintext's headers are the registry's (plaintext.ts).
 * Never throws. `parsed`: the packed text's JSON object when the caller has it unchanged (an
 * unpack's `outer`), not parsed again.
 */
export function checkEnvelope(packed: string, parsed?: Record<string, unknown>): ConformanceResult[] {
  let value: unknown = parsed;
  if (value === undefined) {
    try {
      value = JSON.parse(packed);
    } catch {
      return [fail(L, 'envelope.json', 'the packed message is not JSON')];
    }
  }
  switch (envelopeShape(value)) {
    case 'encrypted':
      return jweRules(value as Record<string, unknown>);
    case 'signed':
      return jwsRules(value as Record<string, unknown>);
    case 'plaintext':
      return [];
    default:
      return [fail(L, 'envelope.shape', isObject(value) ? 'a JSON object with no member of a JWE, a JWS or a plaintext message' : 'not a JSON object')];
  }
}

/**
 * Sender authentication (needs the unpack metadata): `from` is the DID of the authcrypt
 * sender key and of the signer; the recipient key belongs to a DID listed in `to`.
 */
export const senderRules: MessageRule = (m, { metadata }) => {
  if (!metadata) return [];
  const out: ConformanceResult[] = [];
  if (metadata.encryptedFromKid) {
    // §Message Layer Addressing Consistency: from MUST match skid.
    out.push(
      check(L, 'envelope.from-matches-sender', sameDid(m.from, metadata.encryptedFromKid),
        m.from ? `from ${m.from} is not the DID of the authcrypt sender key ${didOf(metadata.encryptedFromKid)}` : 'an authcrypted message must carry from'),
    );
  }
  if (metadata.signFrom) {
    // §Message Layer Addressing Consistency: from MUST match the signer's kid.
    out.push(
      check(L, 'envelope.from-matches-signer', sameDid(m.from, metadata.signFrom),
        m.from ? `from ${m.from} is not the DID of the signing key ${didOf(metadata.signFrom)}` : 'a signed message must carry from'),
    );
  }
  if (metadata.encryptedToKids?.length && Array.isArray(m.to)) {
    const to = m.to as string[];
    const outside = metadata.encryptedToKids.filter((kid) => !to.some((t) => sameDid(t, kid)));
    out.push(check(L, 'envelope.recipient-in-to', outside.length === 0, `encrypted for keys of DIDs not listed in to: ${outside.map(didOf).join(', ')}`));
  }
  if (m.from !== undefined && !metadata.authenticated && !metadata.nonRepudiation) {
    out.push(fail(L, 'envelope.sender-authenticated', `from ${String(m.from)} is not authenticated by the envelope (${metadata.mode})`));
  }
  return out;
};

/**
 * What the unpack met and accepted (every layer, not only the outer one): a form the spec allows
 * is a note; a deviation it read anyway (`broken`, e.g. anoncrypt without apv) is a failed rule.
 */
export const envelopeNotes: MessageRule = (_m, { metadata }) =>
  (metadata?.notes ?? []).map((n) => {
    const layer = ruleOf(n.rule)?.layer === 'plaintext' ? 'plaintext' : L;
    return n.broken ? fail(layer, n.rule, n.detail) : note(layer, n.rule, n.detail);
  });
