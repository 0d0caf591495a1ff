// One model of an agent's "no": an HTTP 4xx to a POST, read for what it refuses, and a 5xx, which
// is no clean refusal (it breaks transport.no-server-error) but stops the message all the same. An
// answer whose body names the message type or its protocol refuses the protocol. One that only
// says "unsupported message type" is ambiguous: agents say so of envelopes they cannot open too
// (Veramo's MessagingRouter answers any message no handler took so), so the case-kit asks again
// with a message of another protocol in the same envelope before it decides. Refusing an envelope
// the spec requires recipients to process breaks that MUST (modes.ts quotes it); refusing one the
// spec leaves to the agent is its policy. Either way the refusal is a verdict now, and the cases
// that need what was refused are blocked at once instead of waiting for answers that cannot come.
import { severityOf } from '../conformance/catalogue.js';
import { modePolicy, modeRequirement } from './modes.js';
import type { PostOutcome } from './counterpart.js';
import type { HarnessMode, HttpAnswer } from './types.js';

export interface Refusal {
  /** What was refused: the envelope mode, or the protocol of the message. */
  kind: 'required-mode' | 'policy-mode' | 'protocol';
  mode: HarnessMode;
  /** "HTTP 400 (text/plain): bad envelope" */
  answer: string;
  /** A 5xx: the agent failed on the message instead of refusing it cleanly. */
  serverError?: boolean;
  /** The answer says the message type is unsupported without naming it: the protocol or the envelope. */
  unnamedType?: boolean;
  /** The rule and quote a refusal of a required mode breaks. */
  rule?: string;
  quote?: string;
  /** Why a refusal of this mode is the agent's choice. */
  policy?: string;
}

/** How many characters of a refusal's body a one-line reason quotes. */
const REASON_CHARS = 160;

/** `HTTP 400 (text/plain): the body, cut short` */
export function describeAnswer(a: HttpAnswer): string {
  const body = a.body.replace(/\s+/g, ' ').trim();
  const cut = body.length > REASON_CHARS ? `${body.slice(0, REASON_CHARS)}…` : body;
  return `HTTP ${a.status}${a.contentType ? ` (${a.contentType.split(';')[0]})` : ''}${cut ? `: ${cut}` : ''}`;
}

/** The 4xx answer of a POST, if it was one. */
export function clientError(o: PostOutcome): HttpAnswer | undefined {
  const a = o.entry.http;
  return a && a.status >= 400 && a.status < 500 ? a : undefined;
}

/**
 * What a refusal's body says of the message's type: `named` when it mentions the type, its
 * protocol or the protocol's name; `unnamed` when it only says a type is unsupported or unknown
 * (agents say it in many words); undefined when it says neither.
 */
export function namesProtocol(body: string, type: string | undefined): 'named' | 'unnamed' | undefined {
  const text = body.toLowerCase();
  if (type) {
    const t = type.toLowerCase();
    const piuri = t.replace(/\/[^/]+$/, '');
    const name = piuri.split('/').slice(-2, -1)[0];
    if (text.includes(t) || text.includes(piuri) || (name !== undefined && name.length > 3 && text.includes(name))) return 'named';
  }
  // "unsupported" alone may be about an algorithm (an envelope refusal): it must be about a type.
  return /(unsupported|unknown|unrecogni[sz]ed) (message )?(type|protocol)|(type|protocol)\b[^.]{0,40}\b(not supported|unsupported|not implemented)|no handler/.test(text) ? 'unnamed' : undefined;
}

/** What a 4xx or 5xx to a well-formed message of `type` in `mode` refuses; undefined when the POST got neither. */
export function refusalOf(o: PostOutcome, mode: HarnessMode, type: string | undefined): Refusal | undefined {
  const a = o.entry.http;
  if (!a || a.status < 400 || a.status > 599) return undefined;
  const answer = describeAnswer(a);
  const serverError = a.status >= 500 ? { serverError: true } : {};
  const named = namesProtocol(a.body, type);
  if (named === 'named') return { kind: 'protocol', mode, answer, ...serverError };
  const flags = { ...serverError, ...(named === 'unnamed' ? { unnamedType: true } : {}) };
  return asModeRefusal({ kind: 'protocol', mode, answer, ...flags });
}

/** The same refusal read as a refusal of its envelope mode (required or left to policy). */
export function asModeRefusal(r: Refusal): Refusal {
  const required = modeRequirement(r.mode);
  // Only a refusal that breaks a MUST is a verdict against the agent; one its rule counts as advice
  // leaves the mode to the agent, and the cases that need it are blocked, not passed.
  if (required && severityOf(required.rule) === 'error') return { ...r, kind: 'required-mode', rule: required.rule, quote: required.quote };
  if (required) return { ...r, kind: 'policy-mode', policy: `no sentence obliges a recipient to process ${r.mode} (${required.rule}: ${required.quote})` };
  return { ...r, kind: 'policy-mode', policy: modePolicy(r.mode) ?? 'the spec does not require recipients to take it' };
}
