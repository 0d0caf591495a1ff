// Message Pickup 3.0 (https://didcomm.org/messagepickup/3.0): a recipient without an inbound
// endpoint collects what the mediator queued for it. Request/response only (§States): the
// recipient's requests carry return_route "all"; the queue itself belongs to the service.
import type { MessageRule } from '../conformance/types.js';
import { createMessage, type MessageDeps } from '../didcomm/message.js';
import type { ProtocolModule } from '../router/router.js';
import type { Attachment, PlainMessage } from '../didcomm/types.js';
import { b64uDecodeText } from '../encoding.js';
import { assertRules, assertType, base64Data, draftHeaders, isPlainObject, isString, isStringArray, parsedProtocol, rule, type HandlersFor, type MessageHeaders } from './protocol-kit.js';

export const MESSAGE_PICKUP_PIURI = 'https://didcomm.org/messagepickup/3.0';
export const MESSAGE_PICKUP = {
  statusRequest: `${MESSAGE_PICKUP_PIURI}/status-request`,
  status: `${MESSAGE_PICKUP_PIURI}/status`,
  deliveryRequest: `${MESSAGE_PICKUP_PIURI}/delivery-request`,
  delivery: `${MESSAGE_PICKUP_PIURI}/delivery`,
  messagesReceived: `${MESSAGE_PICKUP_PIURI}/messages-received`,
  liveDeliveryChange: `${MESSAGE_PICKUP_PIURI}/live-delivery-change`,
} as const;

/** Pickup messages have no parent thread. */
type Headers = Omit<MessageHeaders, 'pthid'>;
const optRecipient = (recipientDid?: string) => (recipientDid === undefined ? {} : { recipient_did: recipientDid });

// ---- builders ------------------------------------------------------------------------------

/** §Status Request; `return_route: "all"` so that the status comes back on the same connection. */
export function buildStatusRequest(input: Headers & { recipientDid?: string }, deps: MessageDeps): PlainMessage {
  return createMessage({ type: MESSAGE_PICKUP.statusRequest, ...draftHeaders(input), body: optRecipient(input.recipientDid), return_route: 'all' }, deps);
}

export interface QueueStatus {
  messageCount: number;
  recipientDid?: string;
  longestWaitedSeconds?: number;
  newestReceivedTime?: number;
  oldestReceivedTime?: number;
  totalBytes?: number;
  liveDelivery?: boolean;
}

const STATUS_FIELDS = [
  ['recipientDid', 'recipient_did'],
  ['longestWaitedSeconds', 'longest_waited_seconds'],
  ['newestReceivedTime', 'newest_received_time'],
  ['oldestReceivedTime', 'oldest_received_time'],
  ['totalBytes', 'total_bytes'],
  ['liveDelivery', 'live_delivery'],
] as const;

/** §Status: message_count is the only required field; times are UTC epoch seconds. */
export function buildStatus(input: Headers & QueueStatus, deps: MessageDeps): PlainMessage {
  const body: Record<string, unknown> = { message_count: input.messageCount };
  for (const [k, wire] of STATUS_FIELDS) if (input[k] !== undefined) body[wire] = input[k];
  return createMessage({ type: MESSAGE_PICKUP.status, ...draftHeaders(input), body }, deps);
}

export function buildDeliveryRequest(input: Headers & { limit: number; recipientDid?: string }, deps: MessageDeps): PlainMessage {
  return createMessage({ type: MESSAGE_PICKUP.deliveryRequest, ...draftHeaders(input), body: { limit: input.limit, ...optRecipient(input.recipientDid) }, return_route: 'all' }, deps);
}

export interface QueuedMessage {
  /** The queue id; the recipient names it in messages-received. */
  id: string;
  /** The packed (encrypted) DIDComm message as received. */
  packed: string;
}

/**
 * §Message Delivery: one attachment per queued message, id = queue id. `encoding` 'base64'
 * (default, base64url of the packed JSON, as the spec's example) or 'json' (the JWE object).
 */
export function buildDelivery(input: Headers & { thid: string; messages: QueuedMessage[]; recipientDid?: string; encoding?: 'base64' | 'json' }, deps: MessageDeps): PlainMessage {
  const attachments: Attachment[] = input.messages.map((m) => ({
    id: m.id,
    media_type: 'application/didcomm-encrypted+json',
    data: input.encoding === 'json' ? { json: JSON.parse(m.packed) } : base64Data(m.packed),
  }));
  return createMessage({ type: MESSAGE_PICKUP.delivery, ...draftHeaders(input), body: optRecipient(input.recipientDid), attachments }, deps);
}

export function buildMessagesReceived(input: Headers & { messageIds: string[] }, deps: MessageDeps): PlainMessage {
  return createMessage({ type: MESSAGE_PICKUP.messagesReceived, ...draftHeaders(input), body: { message_id_list: input.messageIds }, return_route: 'all' }, deps);
}

/** §Live Mode Change: only over a persistent transport (WebSocket); the mediator answers with status. */
export function buildLiveDeliveryChange(input: Headers & { liveDelivery: boolean }, deps: MessageDeps): PlainMessage {
  return createMessage({ type: MESSAGE_PICKUP.liveDeliveryChange, ...draftHeaders(input), body: { live_delivery: input.liveDelivery }, return_route: 'all' }, deps);
}

// ---- body rules (conformance) --------------------------------------------------------------

const M = 'messagepickup';
const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;
const optDid = (v: unknown) => v === undefined || isString(v);
const recipientRule = (name: string): MessageRule => (m) => [rule(`${M}.${name}.recipient_did`, optDid(m.body.recipient_did), 'body.recipient_did must be a DID string')];

const statusRules: MessageRule[] = [
  recipientRule('status'),
  (m) => {
    const out = [rule(`${M}.status.message_count`, isCount(m.body.message_count), 'body.message_count is required: a non-negative integer')];
    for (const f of ['longest_waited_seconds', 'newest_received_time', 'oldest_received_time', 'total_bytes']) {
      if (m.body[f] !== undefined) out.push(rule(`${M}.status.${f}`, isCount(m.body[f]), `body.${f} must be a non-negative integer`));
    }
    if (m.body.live_delivery !== undefined) out.push(rule(`${M}.status.live_delivery`, typeof m.body.live_delivery === 'boolean', 'body.live_delivery must be a boolean'));
    return out;
  },
];
const deliveryRequestRules: MessageRule[] = [
  recipientRule('delivery-request'),
  // §Delivery Request: "`limit` is a REQUIRED attribute" (presence); its form, a batch size, has no MUST and no lower bound.
  (m) =>
    m.body.limit === undefined
      ? [rule(`${M}.delivery-request.limit`, false, 'body.limit is required')]
      : [rule(`${M}.delivery-request.limit`, true, ''), rule(`${M}.delivery-request.limit-form`, isCount(m.body.limit), 'body.limit must be a batch size: a non-negative integer')],
];
/** An attachment whose data is a packed message as idsync reads it: base64(url) text or a JSON object. */
const usableAttachment = (a: Attachment | undefined): boolean =>
  isString(a?.id) && isPlainObject(a.data) && (typeof a.data.base64 === 'string' || isPlainObject(a.data.json));
/**
 * A delivery's thread and attachments. Judged (`every`), each attachment must be a packed message
 * idsync reads; to act on a delivery at all (parseDelivery), one attachment with an id is enough:
 * one it cannot read is set apart (`unusable`), not a reason to refuse the others beside it, which
 * would come back in every delivery, oldest first, for ever.
 */
const deliveryRulesFor = (every: boolean): MessageRule[] => [
  recipientRule('delivery'),
  (m) => {
    const list = Array.isArray(m.attachments) ? m.attachments : [];
    return [
      rule(`${M}.delivery.thid`, isString(m.thid), 'a delivery must carry thid = the delivery-request id'),
      rule(
        `${M}.delivery.attachments`,
        every ? list.length > 0 && list.every(usableAttachment) : list.some((a) => isString(a?.id)),
        'a delivery needs attachments, each with an id and data.base64 or data.json of a packed message',
      ),
    ];
  },
];
const deliveryRules = deliveryRulesFor(true);
const deliveryShapeRules = deliveryRulesFor(false);
const receivedRules: MessageRule[] = [
  (m) => [rule(`${M}.messages-received.message_id_list`, isStringArray(m.body.message_id_list), 'body.message_id_list must be an array of attachment ids')],
];
const liveRules: MessageRule[] = [(m) => [rule(`${M}.live-delivery-change.live_delivery`, typeof m.body.live_delivery === 'boolean', 'body.live_delivery must be a boolean')]];
// §Requirements, §States: the recipient's requests set return_route "all" (no RFC 2119 keyword: advice).
const returnRouteRule = (name: string): MessageRule => (m) => [rule(`${M}.${name}.return_route`, m.return_route === 'all', 'requests should set return_route "all"')];

export const MESSAGE_PICKUP_RULES: Record<string, MessageRule[]> = {
  'status-request': [recipientRule('status-request'), returnRouteRule('status-request')],
  status: statusRules,
  'delivery-request': [...deliveryRequestRules, returnRouteRule('delivery-request')],
  delivery: deliveryRules,
  'messages-received': [...receivedRules, returnRouteRule('messages-received')],
  'live-delivery-change': liveRules,
};

// ---- parsers -------------------------------------------------------------------------------

export function parseStatusRequest(message: PlainMessage): { recipientDid?: string } {
  assertType(message, MESSAGE_PICKUP.statusRequest);
  assertRules(message, MESSAGE_PICKUP_RULES['status-request']);
  return optRecipientOf(message);
}

export function parseStatus(message: PlainMessage): QueueStatus {
  assertType(message, MESSAGE_PICKUP.status);
  assertRules(message, statusRules);
  const status: QueueStatus = { messageCount: message.body.message_count as number };
  for (const [k, wire] of STATUS_FIELDS) if (message.body[wire] !== undefined) (status as unknown as Record<string, unknown>)[k] = message.body[wire];
  return status;
}

export function parseDeliveryRequest(message: PlainMessage): { limit: number; recipientDid?: string } {
  assertType(message, MESSAGE_PICKUP.deliveryRequest);
  assertRules(message, deliveryRequestRules);
  return { limit: message.body.limit as number, ...optRecipientOf(message) };
}

/** An attachment of a delivery that holds no message idsync can read, and why. */
export interface UnusableAttachment {
  id: string;
  reason: string;
}

/**
 * The queued messages of a delivery, as packed strings ready for unpack; attachments with an id
 * but no readable message (data.links, a JSON array, text that is not base64url) are `unusable`,
 * and those without an id are left out (nothing could confirm them). §Message Delivery: "The ONLY
 * valid type of attachment for this message is a DIDComm v2 Message in encrypted form."
 */
export function parseDelivery(message: PlainMessage): { thid: string; recipientDid?: string; messages: QueuedMessage[]; unusable: UnusableAttachment[] } {
  assertType(message, MESSAGE_PICKUP.delivery);
  assertRules(message, deliveryShapeRules);
  const messages: QueuedMessage[] = [];
  const unusable: UnusableAttachment[] = [];
  for (const a of message.attachments ?? []) {
    if (!isString(a?.id)) continue;
    if (!usableAttachment(a)) {
      unusable.push({ id: a.id, reason: 'its data is neither base64 text nor a JSON object of a packed message' });
      continue;
    }
    try {
      messages.push({ id: a.id, packed: typeof a.data.base64 === 'string' ? b64uDecodeText(a.data.base64) : JSON.stringify(a.data.json) });
    } catch {
      unusable.push({ id: a.id, reason: 'its data.base64 is not base64url' });
    }
  }
  return { thid: message.thid as string, messages, unusable, ...optRecipientOf(message) };
}

export function parseMessagesReceived(message: PlainMessage): { messageIds: string[] } {
  assertType(message, MESSAGE_PICKUP.messagesReceived);
  assertRules(message, receivedRules);
  return { messageIds: message.body.message_id_list as string[] };
}

export function parseLiveDeliveryChange(message: PlainMessage): { liveDelivery: boolean } {
  assertType(message, MESSAGE_PICKUP.liveDeliveryChange);
  assertRules(message, liveRules);
  return { liveDelivery: message.body.live_delivery as boolean };
}

function optRecipientOf(message: PlainMessage): { recipientDid?: string } {
  return typeof message.body.recipient_did === 'string' ? { recipientDid: message.body.recipient_did } : {};
}

// ---- protocol module -----------------------------------------------------------------------

const PARSERS = {
  'status-request': parseStatusRequest,
  status: parseStatus,
  'delivery-request': parseDeliveryRequest,
  delivery: parseDelivery,
  'messages-received': parseMessagesReceived,
  'live-delivery-change': parseLiveDeliveryChange,
} as const;

/** Per message name, the agent's handler given the parsed message. */
export type MessagePickupHandlers = HandlersFor<typeof PARSERS>;

/** The module for router.use(): the mediator registers the request handlers, the recipient status/delivery. */
export function messagePickupProtocol(handlers: MessagePickupHandlers, roles: string[] = ['mediator', 'recipient']): ProtocolModule {
  return parsedProtocol({ piuri: MESSAGE_PICKUP_PIURI, roles, rules: MESSAGE_PICKUP_RULES }, PARSERS, handlers);
}
