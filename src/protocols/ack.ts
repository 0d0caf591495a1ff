// The `ack` that present-proof 3.0 and issue-credential 3.0 adopt (Aries RFC 0015 ACKs, adopted
// as `<piuri>/ack`): it closes a thread with `status` OK, or PENDING / FAIL. The WACI vectors
// send `{"status": "OK"}` (issuance) and `{}` (presentation): an absent status breaks the MUST
// of WACI §Ack, and idsync's agents still read it as OK.
import { createMessage, type MessageDeps } from '../didcomm/message.js';
import type { PlainMessage } from '../didcomm/types.js';
import type { MessageRule } from '../conformance/types.js';
import { assertRules, isString, rule } from './protocol-kit.js';

export const ACK_STATUSES = ['OK', 'PENDING', 'FAIL'] as const;
export type AckStatus = (typeof ACK_STATUSES)[number];

export interface AckInput {
  thid: string;
  pthid?: string;
  from?: string;
  to?: string;
  status?: AckStatus;
  id?: string;
}

/** `<piuri>/ack` in thread `thid` (RFC 0015: the ack is threaded to what it acknowledges). */
export function buildAck(piuri: string, input: AckInput, deps: MessageDeps): PlainMessage {
  return createMessage(
    {
      type: `${piuri}/ack`,
      id: input.id,
      from: input.from,
      to: input.to ? [input.to] : undefined,
      thid: input.thid,
      pthid: input.pthid,
      body: { status: input.status ?? 'OK' },
    },
    deps,
  );
}

/**
 * Body rules of an adopted ack: threaded, and (WACI-DIDComm §Ack) "The `body` property of an
 * `Acknowledgement` message MUST contain a `status` property", one of OK/PENDING/FAIL. A missing
 * status fails `…ack.status-present`, whose row is `tolerated`: idsync's agents read it as OK
 * (WACI's own present-proof vector acks with `body: {}`), the verdict on the sender stays. A
 * status of another value fails `…ack.status`, and that ack is refused: it may say FAIL in words
 * idsync does not know.
 */
export function ackRule(protocol: string): MessageRule {
  return (m) => [
    rule(`${protocol}.ack.thid`, isString(m.thid), 'an ack must carry thid = the thread it acknowledges'),
    rule(`${protocol}.ack.status-present`, m.body?.status !== undefined, 'body.status is missing'),
    rule(
      `${protocol}.ack.status`,
      m.body?.status === undefined || (ACK_STATUSES as readonly string[]).includes(m.body.status as string),
      `body.status must be one of ${ACK_STATUSES.join(', ')}`,
    ),
  ];
}

export interface ParsedAck {
  thid: string;
  status: AckStatus;
}

export function parseAck(message: PlainMessage, protocol = 'ack'): ParsedAck {
  assertRules(message, [ackRule(protocol)]);
  return { thid: message.thid as string, status: (message.body.status as AckStatus | undefined) ?? 'OK' };
}
