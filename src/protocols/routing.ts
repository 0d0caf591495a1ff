// Routing Protocol 2.0 (DIDComm Messaging v2.1 §Routing Protocol 2.0): the `forward` message a
// sender wraps a packed message in for a mediator, naming the next hop in body.next. Builders,
// the body rules, the parser, and the sender-side wrap: one forward, anoncrypted to the
// mediator's key agreement keys (§Sender Process to Enable Forwarding, step 4). pack() wraps by
// itself when the recipient's DIDCommMessaging service names routing keys or a mediator DID, and
// the envelope's wrapInForward wraps for given routing keys (envelope/forward.ts); wrapForMediator
// is for a sender that chooses the hop and its headers itself (expires_time, delay_milli: the
// conformance harness, a mediator passing a forward on). The mediator side is src/mediator/forward.ts.
import type { MessageRule } from '../conformance/types.js';
import { pack } from '../didcomm/envelope/index.js';
import { FORWARD_TYPE } from '../didcomm/envelope/forward.js';
import { createMessage, type MessageDeps } from '../didcomm/message.js';
import type { EnvelopeContext, PlainMessage } from '../didcomm/types.js';
import { b64uDecodeText } from '../encoding.js';
import { IdsyncError } from '../errors.js';
import { parseJsonBounded } from '../json-depth.js';
import { keepJsonText, keptJsonText } from '../json-text.js';
import { assertRules, assertType, isPlainObject, rule } from './protocol-kit.js';

export const ROUTING_PIURI = 'https://didcomm.org/routing/2.0';
export const ROUTING = { forward: FORWARD_TYPE } as const;

export interface ForwardInput {
  /** The DID (or key id, for the last hop) to pass the message on to. */
  next: string;
  /** The packed message(s) to pass on; each becomes one attachment. */
  packed: string | string[];
  /** §Routing Protocol 2.0: "include the expires_time header" when the inner message expires. */
  expiresTime?: number;
  /** §Routing Protocol 2.0 `delay_milli`: wait before delivering; negative: a random delay up to its absolute value. */
  delayMilli?: number;
  id?: string;
  to?: string;
}

/** A forward plaintext (the packed messages as JSON attachments, as the spec's senders write them). */
export function buildForward(input: ForwardInput, deps: MessageDeps): PlainMessage {
  const packed = Array.isArray(input.packed) ? input.packed : [input.packed];
  const attachments = packed.map((p) => {
    let json: unknown;
    try {
      json = JSON.parse(p);
    } catch (cause) {
      throw new IdsyncError('didcomm_invalid_argument', 'forward: the message to pass on is not a packed (JSON) DIDComm message', { cause });
    }
    return { media_type: 'application/didcomm-encrypted+json', data: { json } };
  });
  return createMessage(
    {
      type: FORWARD_TYPE,
      id: input.id,
      to: input.to ? [input.to] : undefined,
      body: { next: input.next },
      attachments,
      ...(input.expiresTime !== undefined ? { expires_time: input.expiresTime } : {}),
      ...(input.delayMilli !== undefined ? { delay_milli: input.delayMilli } : {}),
    },
    deps,
  );
}

/**
 * Wraps `packed` for `next` in one forward anoncrypted to `mediator` (its key agreement keys):
 * what the sender then POSTs to the mediator's endpoint. `serviceEndpoint` is that endpoint when
 * the mediator's document names one.
 */
export async function wrapForMediator(
  packed: string,
  o: { next: string; mediator: string; expiresTime?: number; delayMilli?: number },
  ctx: EnvelopeContext,
  deps: MessageDeps,
): Promise<{ packed: string; forward: PlainMessage; serviceEndpoint?: string }> {
  const forward = buildForward({ next: o.next, packed, to: o.mediator, expiresTime: o.expiresTime, delayMilli: o.delayMilli }, deps);
  const result = await pack(forward, { mode: 'anoncrypt', to: o.mediator, forward: false }, ctx);
  return { packed: result.packed, forward, ...(result.serviceEndpoint ? { serviceEndpoint: result.serviceEndpoint } : {}) };
}

// ---- body rules (conformance) --------------------------------------------------------------

/** The packed message an attachment carries (data.json object, or data.base64 of it); undefined if none. */
export function attachedPacked(a: unknown): string | undefined {
  if (!isPlainObject(a) || !isPlainObject(a.data)) return undefined;
  const d = a.data;
  if (isPlainObject(d.json)) {
    // A forward's attachment is asked for by its conformance rule, by the rule again when the
    // handler parses the forward, and by the parse itself: the whole packed message (kilobytes of
    // JWE) is written out once and kept (json-text.ts). A received message is not changed once parsed.
    let text = keptJsonText(d.json);
    if (text === undefined) keepJsonText(d.json, (text = JSON.stringify(d.json)));
    return text;
  }
  // Some senders put the packed JSON text itself in data.json.
  if (typeof d.json === 'string' && d.json.trimStart().startsWith('{')) return d.json;
  if (typeof d.base64 === 'string') {
    try {
      const text = b64uDecodeText(d.base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
      return isPlainObject(parseJsonBounded(text)) ? text : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

const forwardRules: MessageRule[] = [
  // §Messages: "next - REQUIRED. The identifier of the party to send the attached message to."
  (m) => [rule('routing.forward.next', typeof m.body.next === 'string' && /^did:[a-z0-9]+:\S+$/.test(m.body.next), 'body.next is required: the DID or key id of the next hop')],
  // §Messages: "attachments - REQUIRED. The DIDComm message(s) to send to the party indicated in the next body attribute."
  (m) => {
    const list = Array.isArray(m.attachments) ? m.attachments : [];
    return [rule('routing.forward.attachments', list.length > 0 && list.every((a) => attachedPacked(a) !== undefined), 'attachments are required, each holding a packed DIDComm message (data.json or data.base64)')];
  },
  // §Routing Protocol 2.0: "The please_ack header SHOULD NOT be included on forward messages".
  (m) => [rule('routing.forward.please_ack', m.please_ack === undefined, 'a forward should not carry please_ack')],
  (m) => (m.delay_milli === undefined ? [] : [rule('routing.forward.delay_milli', Number.isSafeInteger(m.delay_milli), 'delay_milli, when present, is an integer number of milliseconds')]),
];

export const ROUTING_RULES: Record<string, MessageRule[]> = { forward: forwardRules };

export interface ParsedForward {
  next: string;
  /** The packed messages to pass on, as text. */
  packed: string[];
  expiresTime?: number;
  delayMilli?: number;
}

export function parseForwardMessage(message: PlainMessage): ParsedForward {
  assertType(message, FORWARD_TYPE);
  assertRules(message, forwardRules);
  return {
    next: message.body.next as string,
    packed: (message.attachments ?? []).map((a) => attachedPacked(a)!),
    ...(typeof message.expires_time === 'number' ? { expiresTime: message.expires_time } : {}),
    ...(typeof message.delay_milli === 'number' ? { delayMilli: message.delay_milli } : {}),
  };
}
