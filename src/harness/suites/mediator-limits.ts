// The mediator suite, limits and routing headers: whatever limits a mediator has, a forward it
// answers 2xx must be held (never taken and dropped), one over its size or queue limit refused
// clearly (HTTP 413/429/503 or a problem report), an expired one not acted on, and one asking for
// a delay either refused or held back, never delivered early; and a keylist update past the
// number of DIDs it keeps for a party refused clearly, its list saying what its answer said.
// idsync's mediator shows them with small limits: --max-keys 30 --max-message-bytes 65536
// --max-queue 20 --max-delay 1m (each case registers a DID of its own, and the keylist probe 25
// more, so a whole run passes 30 by the time it probes).
import { ruleOf } from '../../conformance/catalogue.js';
import { WS_CLOSE } from '../../didcomm/transport/ws.js';
import { mediationTypes } from '../../protocols/coordinate-mediation.js';
import { inconclusive, ok, skipped, type CaseDefinition } from '../case-kit.js';
import type { BrokenRule } from '../types.js';
import {
  accepted, broke, CM_URL, drain, NO_RECEIPT_ON_SOCKET, enrolled, exchange, forward, isProblem, listing, newRecipient, noAnswer, problemCode, ROUTING_SECTION, ROUTING_URL, statusRequest,
} from './mediator-kit.js';

const SUITE = 'limits';
const base = { suite: SUITE, section: ROUTING_SECTION, url: ROUTING_URL };

/** Forwards the harness sends for one recipient looking for the queue limit; more is not tried. */
export const QUEUE_PROBE = 25;
/** DIDs one keylist update adds looking for the keylist limit. */
export const KEYS_PROBE = 25;
/** The size of the message that looks for the size limit. */
export const LARGE_MESSAGE_BYTES = 600 * 1024;

export const MEDIATOR_LIMIT_CASES: CaseDefinition[] = [
  {
    ...base,
    id: 'limits/message-size',
    section: 'DIDComm Messaging v2.1 §Agent Constraint Disclosure: max_receive_bytes',
    url: 'https://identity.foundation/didcomm-messaging/spec/v2.1/#max_receive_bytes',
    title: `A forward of a ${LARGE_MESSAGE_BYTES / 1024} KiB message is refused clearly (413, a problem report, or over a WebSocket its close with 1009), or taken and held`,
    steps: [
      'register a new DID',
      `forward a ${LARGE_MESSAGE_BYTES / 1024} KiB message for it`,
      'refused: 413 or a problem report; over a WebSocket, the socket closed with 1009 (RFC 6455 §7.4.1) and the status, asked on a new socket, counts none; taken (2xx): the status counts it',
    ],
    judges: ['routing.forward.too-big', 'transport.ws-close-too-big'],
    async run(c) {
      const e = await enrolled(c);
      if ('why' in e) return skipped(e.why);
      const f = await forward(c, e.recipient.did, { padding: LARGE_MESSAGE_BYTES, note: `forward of ${LARGE_MESSAGE_BYTES / 1024} KiB` });
      if (accepted(f.outcome) && !problemCode(f.outcome.received[0])) {
        let s = await statusRequest(c, e.recipient.did);
        // Written before the close frame arrived, the status-request went on a socket the target no
        // longer read: asked again, on a new one.
        if (s.closed) s = await statusRequest(c, e.recipient.did);
        await drain(c, e.recipient);
        if (s.count === 1) return skipped(`the target took and held a ${LARGE_MESSAGE_BYTES / 1024} KiB message: its size limit, if any, is higher`);
        const close = f.outcome.socket?.close;
        if (close?.code === WS_CLOSE.tooBig && s.count === 0) {
          // A WebSocket has no status (DIDComm v2.1 §Transports): the close frame is the refusal.
          return ok([
            `the target closed the WebSocket with ${close.code}${close.reason ? ` (${close.reason})` : ''} after the ${LARGE_MESSAGE_BYTES / 1024} KiB forward (#${f.outcome.entry.seq}), and the status asked on a new socket (#${s.outcome.entry.seq}) counts none: RFC 6455 §7.4.1 (transport.ws-close-too-big): "${ruleOf('transport.ws-close-too-big')!.quote}"`,
          ]);
        }
        const closed = close ? `; the socket closed with ${close.code}` : '';
        if (f.outcome.transport === 'ws') return skipped(`${NO_RECEIPT_ON_SOCKET} (the status counts ${s.count ?? 'nothing: no answer'}${closed})`);
        return { broken: [broke('routing.forward.receipt', `a forward answered ${f.outcome.status ?? 'on the socket'} is not counted (status ${s.count ?? '?'})`, s.answer?.entry.seq)] };
      }
      const status = f.outcome.status;
      if (status === 413 || problemCode(f.outcome.received[0]) !== undefined) return ok();
      return { broken: [broke('routing.forward.too-big', `the oversize forward was answered ${status ?? f.outcome.error} without a problem report`, f.outcome.entry.seq)] };
    },
  },
  {
    ...base,
    id: 'limits/queue',
    title: `Forwards beyond the mediator's queue limit are refused clearly, and the status counts exactly those taken (probes ${QUEUE_PROBE})`,
    steps: ['register a new DID', `forward up to ${QUEUE_PROBE} messages for it, stopping at the first refusal`, 'a refusal is 429/503 or a problem report, never 2xx; the status counts the ones answered 2xx'],
    async run(c) {
      const e = await enrolled(c);
      if ('why' in e) return skipped(e.why);
      let taken = 0;
      let refusal: Awaited<ReturnType<typeof forward>> | undefined;
      let socket = false;
      for (let i = 0; i < QUEUE_PROBE; i++) {
        const f = await forward(c, e.recipient.did, { note: `forward ${i + 1} of at most ${QUEUE_PROBE}` });
        socket = f.outcome.transport === 'ws';
        if (!accepted(f.outcome)) {
          refusal = f;
          break;
        }
        taken++;
      }
      const s = await statusRequest(c, e.recipient.did);
      const broken: BrokenRule[] = [];
      if (socket && s.count !== taken) {
        await drain(c, e.recipient);
        return skipped(`${NO_RECEIPT_ON_SOCKET} (${taken} sent, the status counts ${s.count ?? 'nothing: no answer'})`);
      }
      if (s.count !== taken) broken.push(broke('routing.forward.receipt', `${taken} forwards were answered 2xx but the status counts ${s.count ?? '?'}`, s.answer?.entry.seq));
      await drain(c, e.recipient);
      if (!refusal) return broken.length ? { broken } : skipped(`the target took ${QUEUE_PROBE} messages for one recipient without refusing: its queue limit, if any, is higher (idsync mediator --max-queue 20 shows one)`);
      if (refusal.outcome.status !== undefined && refusal.outcome.status >= 500 && refusal.outcome.status !== 503) broken.push(broke('transport.no-server-error', `a forward beyond the queue limit was answered HTTP ${refusal.outcome.status}`, refusal.outcome.entry.seq));
      return { broken };
    },
  },
  {
    ...base,
    id: 'limits/keylist',
    section: 'Coordinate Mediation 2.0 §Keylist Update Response (3.0 §Recipient Update Response)',
    url: CM_URL,
    title: `One update adding ${KEYS_PROBE} DIDs is refused clearly past the mediator's keylist limit (a problem report, or an error result per DID), and its list then holds exactly the DIDs answered success`,
    steps: [
      'register a new DID (mediation granted)',
      `send one keylist-update (recipient-update) adding ${KEYS_PROBE} new DIDs`,
      'a problem report (nothing applied), or a result per DID',
      'the keylist-query (recipient-query) lists every DID answered success and none refused',
      'the DIDs added are removed again',
    ],
    async run(c) {
      const e = await enrolled(c);
      if ('why' in e) return skipped(e.why);
      const v = e.version;
      const what = `the ${v === '2.0' ? 'keylist' : 'recipient'}-update adding ${KEYS_PROBE} DIDs`;
      const dids = Array.from({ length: KEYS_PROBE }, () => newRecipient(c).did);
      const ex = await exchange(c, c.cp.draft(mediationTypes(v).update, { updates: dids.map((d) => ({ recipient_did: d, action: 'add' })) }), what);
      const broken: BrokenRule[] = [...ex.broken];
      if (!ex.answer) return inconclusive(noAnswer(what, c, ex), broken);
      const refusedWhole = isProblem(ex.answer);
      if (!refusedWhole && ex.answer.message?.type !== mediationTypes(v).updateResponse) {
        return { broken: [...broken, broke('coordinate-mediation.answered', `${what} was answered with ${String(ex.answer.message?.type)}, neither its response nor a problem report`, ex.answer.entry.seq)] };
      }
      const updated = refusedWhole ? undefined : ex.answer.message!.body.updated;
      // A response without its list of results (its message rules say so) tells nothing per DID:
      // only the mediator's own list can say what it took.
      const results = Array.isArray(updated);
      const resultOf = new Map<string, string>();
      if (results) for (const u of updated as Array<{ recipient_did?: unknown; result?: unknown }>) if (typeof u?.recipient_did === 'string') resultOf.set(u.recipient_did, String(u.result));
      const took = dids.filter((d) => resultOf.get(d) === 'success');
      const list = await listing(c, v);
      const listedNow = list.dids ? dids.filter((d) => list.dids!.includes(d)) : [];
      try {
        if (!results && !refusedWhole) {
          if (!list.dids) return inconclusive(`the response to ${what} gives no result per DID, and the query gave no list`, broken);
          if (listedNow.length === KEYS_PROBE) {
            return broken.length ? { broken } : skipped(`the target took ${KEYS_PROBE} more DIDs for one party in one update (its response gives no result per DID; its list names them all): its keylist limit, if any, is higher`);
          }
          return inconclusive(`the response to ${what} gives no result per DID, and the list names ${listedNow.length} of them`, broken);
        }
        if (list.dids) {
          // §Keylist Update Response: "result … describes the resulting state of the keylist update".
          const wrongly = listedNow.filter((d) => !took.includes(d));
          if (wrongly.length) broken.push(broke('coordinate-mediation.update-result', `${wrongly.length} DIDs ${refusedWhole ? 'of an update refused with a problem report' : 'answered with no success'} are listed all the same`, list.answer?.entry.seq));
          const paged = Number((list.answer?.message?.body.pagination as { remaining?: unknown } | undefined)?.remaining ?? 0) > 0;
          const missing = took.filter((d) => !list.dids!.includes(d));
          if (missing.length && !paged) broken.push(broke('coordinate-mediation.keylist-current', `${missing.length} DIDs answered success are not listed`, list.answer?.entry.seq));
        }
        if (broken.length) return { broken };
        if (took.length === KEYS_PROBE) {
          const held = list.dids ? `, the harness's party then holding ${list.dids.length}` : '';
          return skipped(`the target took ${KEYS_PROBE} more DIDs for one party in one update${held}: its keylist limit, if any, is higher (idsync mediator --max-keys 30 shows one in a whole run)`);
        }
        return ok();
      } finally {
        const added = [...new Set([...took, ...listedNow])];
        if (added.length) await exchange(c, c.cp.draft(mediationTypes(v).update, { updates: added.map((d) => ({ recipient_did: d, action: 'remove' })) }), `the ${v === '2.0' ? 'keylist' : 'recipient'}-update removing the DIDs added`).catch(() => undefined);
      }
    },
  },
  {
    ...base,
    id: 'limits/expired',
    section: 'DIDComm Messaging v2.1 §Message Headers',
    url: 'https://identity.foundation/didcomm-messaging/spec/v2.1/#message-headers',
    title: 'A forward whose expires_time has passed is not acted on: refused, or at least never delivered',
    steps: ['register a new DID', 'forward a message for it with expires_time one minute ago', 'the status for the DID counts nothing'],
    async run(c) {
      const e = await enrolled(c);
      if ('why' in e) return skipped(e.why);
      const f = await forward(c, e.recipient.did, { expiresTime: Math.floor(Date.now() / 1000) - 60, note: 'forward expired a minute ago' });
      const s = await statusRequest(c, e.recipient.did);
      await drain(c, e.recipient);
      if (s.count && s.count > 0) return { broken: [broke('plaintext.expires_time-honoured', `an expired forward (answered ${f.outcome.status ?? 'on the socket'}) was queued for delivery`, s.answer?.entry.seq)] };
      return ok();
    },
  },
  {
    ...base,
    id: 'limits/delay',
    title: 'A forward asking for a 10-day delay (delay_milli) is refused, or held back: never delivered at once',
    steps: ['register a new DID', 'forward a message for it with delay_milli 864000000', 'refused (4xx or a problem report), or taken and not yet counted by the status'],
    async run(c) {
      const e = await enrolled(c);
      if ('why' in e) return skipped(e.why);
      const f = await forward(c, e.recipient.did, { delayMilli: 864_000_000, note: 'forward asking to wait 10 days' });
      if (!accepted(f.outcome)) return ok();
      const s = await statusRequest(c, e.recipient.did);
      await drain(c, e.recipient);
      if (s.count && s.count > 0) return { broken: [broke('routing.forward.unsupported-header', 'a forward asking for a 10-day delay was taken and is deliverable at once', s.answer?.entry.seq)] };
      return ok();
    },
  },
];
