// The mediator suite, forward and Message Pickup 3.0: a forward to a registered DID is taken
// (2xx) and held; status counts it (for that recipient_did only, echoed back); a delivery carries
// it unchanged and it stays until messages-received, which removes exactly it; an empty queue
// answers a delivery-request with a status; limit and recipient_did bound a delivery; a forward
// for a DID nobody registered is refused, not taken and lost. Each case registers its own DID.
import { MESSAGE_PICKUP } from '../../protocols/message-pickup.js';
import { inconclusive, skipped, type CaseDefinition } from '../case-kit.js';
import type { BrokenRule } from '../types.js';
import {
  accepted, broke, deliveryRequest, drain, enrolled, forward, messagesReceived, newRecipient, noAnswer, openFor, PICKUP_SECTION, PICKUP_URL, problemCode, ROUTING_SECTION, ROUTING_URL, statusRequest,
} from './mediator-kit.js';

const SUITE = 'forward-pickup';
const base = { suite: SUITE, section: `${ROUTING_SECTION}; ${PICKUP_SECTION}`, url: PICKUP_URL };

function receipt(f: Awaited<ReturnType<typeof forward>>, broken: BrokenRule[]): boolean {
  if (accepted(f.outcome)) return true;
  broken.push(broke('routing.forward.receipt', `a forward to a registered DID was answered ${f.outcome.status ?? f.outcome.error}`, f.outcome.entry.seq));
  return false;
}

export const MEDIATOR_PICKUP_CASES: CaseDefinition[] = [
  {
    ...base,
    id: 'pickup/status-empty',
    title: 'status for a registered DID with nothing queued: message_count 0, recipient_did echoed',
    steps: ['register a new DID', 'status-request with its recipient_did', 'status: message_count 0 and the same recipient_did'],
    async run(c) {
      const e = await enrolled(c);
      if ('why' in e) return skipped(e.why);
      const s = await statusRequest(c, e.recipient.did);
      const broken = [...s.broken];
      if (!s.answer) return inconclusive(noAnswer('the status-request', c, s), broken);
      if (s.count !== 0) broken.push(broke('messagepickup.status.scoped', `message_count is ${s.count ?? '(no status)'} for a DID with nothing queued`, s.answer.entry.seq));
      if (s.answer.message?.body.recipient_did !== e.recipient.did) broken.push(broke('messagepickup.status.recipient_did-echo', `the status carries recipient_did ${String(s.answer.message?.body.recipient_did)}, not the one asked about`, s.answer.entry.seq));
      return { broken };
    },
  },
  {
    ...base,
    id: 'pickup/forward-delivery',
    title: 'A forward to a registered DID is counted, delivered unchanged, kept until messages-received, then removed',
    steps: [
      'register a new DID; POST a forward (anoncrypt) for it: 2xx',
      'status for it: message_count 1',
      'delivery-request limit 1: a delivery threaded to it, whose attachment is the forwarded message and opens for the DID',
      'status again: still 1 (not confirmed yet)',
      'messages-received with the attachment id: status 0',
      'delivery-request again: a status (nothing waits), no delivery',
    ],
    async run(c) {
      const e = await enrolled(c);
      if ('why' in e) return skipped(e.why);
      const r = e.recipient;
      const broken: BrokenRule[] = [];
      const f = await forward(c, r.did);
      if (!receipt(f, broken)) return { broken };
      const s1 = await statusRequest(c, r.did);
      if (s1.count !== 1) broken.push(broke('routing.forward.receipt', `after a forward answered ${f.outcome.status ?? 'on the socket'}, the status counts ${s1.count ?? '(no status)'} messages for the DID`, s1.answer?.entry.seq));
      const d = await deliveryRequest(c, 1, r.did);
      broken.push(...d.broken);
      if (!d.answer) return inconclusive(noAnswer('the delivery-request', c, d), broken);
      const att = d.messages?.[0];
      if (!att) {
        broken.push(broke('routing.forward.receipt', `a delivery-request for a DID with one message queued was answered ${String(d.answer.message?.type)}`, d.answer.entry.seq));
        return { broken };
      }
      const opened = await openFor(r, att.packed);
      if (!opened || opened.id !== f.innerId) broken.push(broke('messagepickup.delivery.forwarded-payload', opened ? `the delivered message is ${opened.id}, not the one forwarded (${f.innerId})` : 'the delivered attachment does not open for the recipient DID', d.answer.entry.seq));
      const s2 = await statusRequest(c, r.did);
      if (s2.count !== 1) broken.push(broke('messagepickup.delivery.kept-until-received', `after the delivery and before messages-received the status counts ${s2.count ?? '(no status)'}, not 1`, s2.answer?.entry.seq));
      const mr = await messagesReceived(c, [att.id]);
      broken.push(...mr.broken);
      if (mr.count !== 0) broken.push(broke('messagepickup.messages-received.status', `messages-received was answered ${mr.count === undefined ? `with ${String(mr.answer?.message?.type ?? 'nothing')}` : `with a status counting ${mr.count}`}, not a status counting 0`, mr.answer?.entry.seq));
      const again = await deliveryRequest(c, 10, r.did);
      if (again.answer?.message?.type !== MESSAGE_PICKUP.status) broken.push(broke('messagepickup.delivery-request.empty-status', `a delivery-request with nothing queued was answered ${String(again.answer?.message?.type ?? 'with nothing')}`, again.answer?.entry.seq));
      return { broken };
    },
  },
  {
    ...base,
    id: 'pickup/limit',
    title: 'A delivery holds at most `limit` messages, and as many as are queued up to it',
    steps: ['register a new DID; forward 3 messages for it', 'delivery-request limit 2: exactly 2 attachments', 'messages-received for all; the queue is empty'],
    async run(c) {
      const e = await enrolled(c);
      if ('why' in e) return skipped(e.why);
      const broken: BrokenRule[] = [];
      for (let i = 0; i < 3; i++) if (!receipt(await forward(c, e.recipient.did), broken)) return { broken };
      const d = await deliveryRequest(c, 2, e.recipient.did);
      broken.push(...d.broken);
      if (!d.answer) return inconclusive(noAnswer('the delivery-request', c, d), broken);
      if (d.messages?.length !== 2) broken.push(broke('messagepickup.delivery.limit', `limit 2 with 3 queued delivered ${d.messages?.length ?? 0}`, d.answer.entry.seq));
      await drain(c, e.recipient);
      return { broken };
    },
  },
  {
    ...base,
    id: 'pickup/scoped',
    title: 'recipient_did scopes status and delivery to one DID; without it they cover every DID the recipient registered',
    steps: ['register two new DIDs; forward 2 messages for the first, 1 for the second', 'status for each: 2 and 1', 'delivery-request for the second: its message only', 'confirm everything'],
    async run(c) {
      const e1 = await enrolled(c);
      const e2 = await enrolled(c);
      if ('why' in e1) return skipped(e1.why);
      if ('why' in e2) return skipped(e2.why);
      const broken: BrokenRule[] = [];
      for (const to of [e1.recipient.did, e1.recipient.did, e2.recipient.did]) if (!receipt(await forward(c, to), broken)) return { broken };
      const s1 = await statusRequest(c, e1.recipient.did);
      const s2 = await statusRequest(c, e2.recipient.did);
      if (s1.count !== 2 || s2.count !== 1) broken.push(broke('messagepickup.status.scoped', `status per DID counts ${s1.count ?? '?'} and ${s2.count ?? '?'}, not 2 and 1`, s2.answer?.entry.seq));
      const d = await deliveryRequest(c, 10, e2.recipient.did);
      const opened = await Promise.all((d.messages ?? []).map((m) => openFor(e2.recipient, m.packed)));
      if (d.messages?.length !== 1 || opened.some((o) => o === undefined)) broken.push(broke('messagepickup.delivery.scoped', `a delivery for one DID held ${d.messages?.length ?? 0} messages, ${opened.filter((o) => o === undefined).length} not for it`, d.answer?.entry.seq));
      await drain(c, e1.recipient);
      await drain(c, e2.recipient);
      return { broken };
    },
  },
  {
    ...base,
    id: 'pickup/forward-unknown',
    section: ROUTING_SECTION,
    url: ROUTING_URL,
    title: 'A forward for a DID nobody registered is refused, not taken',
    steps: ['POST a forward whose next is a new DID registered nowhere', 'it is refused: HTTP 4xx, or a problem report; not 2xx'],
    async run(c) {
      const stranger = newRecipient(c);
      const f = await forward(c, stranger.did, { note: 'forward for a DID nobody registered' });
      const code = problemCode(f.outcome.received[0]);
      if (accepted(f.outcome) && !code) return { broken: [broke('routing.forward.unknown-next', `a forward for a DID nobody registered was answered ${f.outcome.status ?? 'on the socket'}`, f.outcome.entry.seq)] };
      return { broken: f.outcome.status !== undefined && f.outcome.status >= 500 ? [broke('transport.no-server-error', `the forward was answered HTTP ${f.outcome.status}`, f.outcome.entry.seq)] : [] };
    },
  },
];
