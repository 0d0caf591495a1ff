// The envelopes the harness sends and what the spec says a recipient must do with each: the modes
// it judges a recipient on (a clean refusal breaks the rule quoted here: a MUST for signed
// messages, advice for authcrypt and anoncrypt, which no sentence obliges a recipient to process),
// and those it leaves to the agent's policy (a refusal is a note). Also how an HTTP answer is told
// apart from a DIDComm message coming back on the same connection.
import { ruleOf } from '../conformance/catalogue.js';
import type { AnoncryptEnc, EnvelopeMode } from '../didcomm/types.js';
import { MEDIA_TYPES } from '../didcomm/types.js';
import type { HarnessMode } from './types.js';

export interface ModeRequirement {
  /** The catalogue rule a refusal breaks. */
  rule: string;
  /** The spec sentence, quoted. */
  quote: string;
}

/** The rule's quote as a reason says it: `DIDComm Messaging v2.1 §Section: "the sentence"`. */
function quoted(rule: string): ModeRequirement {
  const r = ruleOf(rule);
  if (!r) throw new Error(`rule ${rule} is not in the catalogue`);
  return { rule, quote: `${r.spec} ${r.version} §${r.section}: "${r.quote}"` };
}

/**
 * Modes a recipient is judged on. The harness packs them with X25519 keys, A256CBC-HS512 for
 * every encryption layer, and EdDSA signatures: the algorithms the spec makes mandatory.
 */
const REQUIRED: Partial<Record<HarnessMode, string>> = {
  authcrypt: 'envelope.authcrypt-supported',
  'anoncrypt-authcrypt': 'envelope.anoncrypt-supported',
  'anoncrypt-signed': 'envelope.anoncrypt-supported',
  signed: 'envelope.signed-supported',
  'signed-flattened': 'envelope.signed-supported',
};

/** Why refusing a mode is the agent's choice: the spec sentence that leaves it open. */
const POLICY: Partial<Record<HarnessMode, string>> = {
  plaintext: 'DIDComm v2.1 §IANA Media Types: plaintext is "rarely transmitted directly, since it lacks security guarantees"; no sentence obliges a recipient to take it',
  anoncrypt: 'DIDComm v2.1 §Anonymous Encryption: anonymous encryption "should only be done thoughtfully"; whether to act on a sender it cannot authenticate is the agent\'s policy',
  'authcrypt-signed': 'DIDComm v2.1 §IANA Media Types: authcrypt(sign(plaintext)) "SHOULD NOT be emitted by conforming implementations. However, implementations MAY accept it."',
};

/** The envelopes --mode offers for the cases' ordinary messages. */
export const RUN_MODES: readonly HarnessMode[] = ['authcrypt', 'anoncrypt', 'signed', 'plaintext'];

export function modeRequirement(mode: HarnessMode): ModeRequirement | undefined {
  const rule = REQUIRED[mode];
  return rule ? quoted(rule) : undefined;
}

export function modePolicy(mode: HarnessMode): string | undefined {
  return POLICY[mode];
}

/** The content encryption of every anoncrypt layer the harness packs: the one the spec requires. */
export const HARNESS_ANON_ENC: AnoncryptEnc = 'A256CBC-HS512';

/** The envelope-layer mode a harness mode packs with. */
export function envelopeModeOf(mode: HarnessMode): EnvelopeMode {
  return mode === 'signed-flattened' ? 'signed' : mode;
}

export function isEncrypted(mode: HarnessMode | 'unreadable'): boolean {
  return mode !== 'plaintext' && mode !== 'signed' && mode !== 'signed-flattened' && mode !== 'unreadable';
}

/** Whether the receiver of a message in `mode` can tell who sent it. */
export function isAuthenticated(mode: HarnessMode): boolean {
  return mode !== 'plaintext' && mode !== 'anoncrypt';
}

export function mediaTypeOf(mode: HarnessMode): string {
  return mode === 'plaintext' ? MEDIA_TYPES.plaintext : mode === 'signed' || mode === 'signed-flattened' ? MEDIA_TYPES.signed : MEDIA_TYPES.encrypted;
}

/**
 * A general JWS with one signature in the Flattened JSON serialization (RFC 7515 §7.2.2):
 * payload, protected, header and signature at the top level.
 */
export function flattenJws(packed: string): string {
  const jws = JSON.parse(packed) as { payload: string; signatures: Array<{ protected?: string; header?: unknown; signature: string }> };
  const [sig] = jws.signatures;
  if (!sig || jws.signatures.length !== 1) throw new Error('only a JWS with one signature can be flattened');
  return JSON.stringify({ payload: jws.payload, ...(sig.protected ? { protected: sig.protected } : {}), ...(sig.header ? { header: sig.header } : {}), signature: sig.signature });
}

/**
 * DIDComm v2.1 §IANA Media Types: a DIDComm media type, with or without the `application/`
 * prefix ("the recipient MUST treat media types not containing `/` as having the `application/`
 * prefix present"), parameters ignored.
 */
export function isDidcommMediaType(contentType: string | undefined | null): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const full = type.includes('/') ? type : `application/${type}`;
  return (Object.values(MEDIA_TYPES) as string[]).includes(full);
}
