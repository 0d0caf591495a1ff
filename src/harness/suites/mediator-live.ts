// The mediator suite, Message Pickup 3.0 live mode: asked for over HTTP it is refused (problem
// report e.m.live-mode-not-supported, and no status says live_delivery true); asked for over the
// mediator's WebSocket it is answered with a status, and a message forwarded afterwards arrives
// on that socket without a delivery-request. The WebSocket side is a second harness party (its
// own DID and grant) whose exchanges are summed up in the case's detail; what the first one sends
// and receives over HTTP is in the case's messages. And no status is ever queued.
import { checkMessageText } from '../check.js';
import { startCounterpart, type Counterpart, type Received } from '../counterpart.js';
import { awaitAnswer, inconclusive, ok, skipped, unanswered, type CaseContext, type CaseDefinition } from '../case-kit.js';
import { MESSAGE_PICKUP } from '../../protocols/message-pickup.js';
import { mediationTypes } from '../../protocols/coordinate-mediation.js';
import type { BrokenRule } from '../types.js';
import {
  accepted, broke, deliveryRequest, enrolled, exchange, forward, granted, isProblem, mediate, messagesReceived, newRecipient, noAnswer, PICKUP_SECTION, PICKUP_URL, problemCode, register, statusRequest,
} from './mediator-kit.js';

const SUITE = 'live-mode';
const base = { suite: SUITE, section: `${PICKUP_SECTION} §Live Mode`, url: PICKUP_URL };

/** A second harness party that talks to the target over its WebSocket, as its own CaseContext. */
async function overWebSocket(c: CaseContext): Promise<{ ws: CaseContext & { cp: Counterpart }; close(): Promise<void> } | undefined> {
  let cp: Counterpart;
  try {
    cp = await startCounterpart({ target: c.target, resolve: c.cp.ctx.resolve, postTimeoutMs: c.timeoutMs, transport: 'ws' });
  } catch {
    return undefined;
  }
  // A DID document without a ws/wss DIDCommMessaging endpoint: nothing to connect to.
  if (cp.unreachable()) {
    await cp.close();
    return undefined;
  }
  return { ws: { ...c, cp }, close: () => cp.close() };
}

function summary(cp: Counterpart): string {
  return cp.log.map((e) => `${e.direction === 'sent' ? '→' : '←'} ${e.type?.split('/').slice(-2).join('/') ?? e.mode}`).join(', ');
}

export const MEDIATOR_LIVE_CASES: CaseDefinition[] = [
  {
    ...base,
    id: 'live/http-refused',
    title: 'Live mode asked for over HTTP is refused with e.m.live-mode-not-supported, and stays off',
    steps: ['after a grant, send live-delivery-change {live_delivery: true} over HTTP', 'a problem report e.m.live-mode-not-supported answers it (SHOULD)', 'no status says live_delivery true (MUST: only over a persistent transport)'],
    async run(c) {
      const grant = await mediate(c);
      if (!granted(grant)) return skipped('mediation was not granted to the harness');
      // On a socket live mode is the mediator's to grant (live/push judges it): this case is HTTP's.
      if (grant.outcome.transport === 'ws') return skipped('the run\'s transport is a WebSocket, where live mode may be granted (live/push): this case asks over HTTP, run it with --transport http');
      const ex = await exchange(c, c.cp.draft(MESSAGE_PICKUP.liveDeliveryChange, { live_delivery: true }), 'the live-delivery-change over HTTP');
      const broken: BrokenRule[] = [...ex.broken];
      if (!ex.answer) return inconclusive(noAnswer('the live-delivery-change', c, ex), broken);
      if (ex.answer.message?.type === MESSAGE_PICKUP.status && ex.answer.message.body.live_delivery === true) {
        broken.push(broke('messagepickup.live.persistent-only', 'live mode asked for over HTTP was answered with a status saying live_delivery true', ex.answer.entry.seq));
      }
      if (problemCode(ex.answer) !== 'e.m.live-mode-not-supported') {
        broken.push(broke('messagepickup.live.not-supported-report', `live mode over HTTP was answered with ${isProblem(ex.answer) ? `problem ${problemCode(ex.answer)}` : String(ex.answer.message?.type)}, not e.m.live-mode-not-supported`, ex.answer.entry.seq));
      }
      const after = await statusRequest(c);
      if (after.answer?.message?.body.live_delivery === true) broken.push(broke('messagepickup.live.persistent-only', 'after live mode was asked for over HTTP, a status says live_delivery true', after.answer.entry.seq));
      return { broken };
    },
  },
  {
    ...base,
    id: 'live/push',
    title: 'Over the WebSocket, live-delivery-change is answered with a status, and a message forwarded afterwards is pushed on the socket',
    steps: [
      'a second harness party connects to the WebSocket endpoint of the target\'s DID document, gets mediation, registers a DID',
      'it sends live-delivery-change {live_delivery: true}: a status answers it',
      'the first party forwards a message for the registered DID',
      'the message arrives on the socket (in a delivery) without a delivery-request; it is confirmed with messages-received',
    ],
    async run(c) {
      const opened = await overWebSocket(c);
      if (!opened) return skipped('the target\'s DID document names no WebSocket endpoint (or it refused the connection): live mode cannot be tried');
      const { ws } = opened;
      try {
        const grant = await exchange(ws, ws.cp.draft(mediationTypes('2.0').request, {}), 'the mediate-request over the WebSocket');
        if (!granted(grant)) return inconclusive(`the mediate-request over the WebSocket was answered ${String(grant.answer?.message?.type ?? 'with nothing')} (${summary(ws.cp)})`, grant.broken);
        const r = newRecipient(ws);
        const reg = await register(ws, r);
        if (reg.result !== 'success') return inconclusive(`registering a DID over the WebSocket gave ${reg.result ?? 'no answer'} (${summary(ws.cp)})`, reg.broken);
        const change = await exchange(ws, ws.cp.draft(MESSAGE_PICKUP.liveDeliveryChange, { live_delivery: true }), 'the live-delivery-change');
        const broken: BrokenRule[] = [...change.broken];
        if (change.answer?.message?.type !== MESSAGE_PICKUP.status) {
          broken.push(broke('messagepickup.live-delivery-change.status', `live-delivery-change over the WebSocket was answered ${String(change.answer?.message?.type ?? 'with nothing')}`, change.answer?.entry.seq));
          return { broken, detail: `over the WebSocket: ${summary(ws.cp)}` };
        }
        const before = ws.cp.log.length;
        const f = await forward(c, r.did, { note: 'forward for the DID registered over the WebSocket' });
        if (!accepted(f.outcome)) return inconclusive(`the forward was answered ${f.outcome.status ?? f.outcome.error}`, broken);
        const isDelivery = (x: Received) => x.message?.type === MESSAGE_PICKUP.delivery && x.entry.seq > before;
        // Pushed on the socket live mode was asked for on: once that closes, nothing more can come.
        const pushed = await awaitAnswer(ws, change.outcome, isDelivery, c.timeoutMs);
        if (!pushed) {
          broken.push(broke('messagepickup.live.push', `with live mode on, a message forwarded for the DID did not arrive on the socket${unanswered(c, change.outcome)}`));
          return { broken, detail: `over the WebSocket: ${summary(ws.cp)}` };
        }
        const attachments = (pushed.message!.attachments ?? []) as Array<{ id?: string; data?: { base64?: string; json?: unknown } }>;
        const texts = attachments.map((a) => (a.data?.json ? JSON.stringify(a.data.json) : a.data?.base64 ? Buffer.from(a.data.base64, 'base64url').toString('utf8') : ''));
        const inner = await Promise.all(texts.map((t) => checkMessageText(t, r.ctx)));
        if (!inner.some((i) => i.message?.id === f.innerId)) broken.push(broke('messagepickup.delivery.forwarded-payload', 'the pushed delivery does not carry the forwarded message', pushed.entry.seq));
        await messagesReceived(ws, attachments.map((a) => String(a.id)));
        return broken.length ? { broken, detail: `over the WebSocket: ${summary(ws.cp)}` } : ok();
      } finally {
        await opened.close();
      }
    },
  },
  {
    ...base,
    id: 'live/status-not-queued',
    title: 'No status is ever queued: what a delivery-request for the harness\'s own DID brings holds none',
    steps: ['after the status-requests of the other cases, send delivery-request without recipient_did', 'open every delivered message the harness can: none is a status'],
    async run(c) {
      const e = await enrolled(c);
      if ('why' in e) return skipped(e.why);
      await statusRequest(c);
      const d = await deliveryRequest(c, 100);
      if (!d.answer) return inconclusive(noAnswer('the delivery-request', c, d), d.broken);
      const opened = await Promise.all((d.messages ?? []).map((m) => checkMessageText(m.packed, c.cp.ctx)));
      const statuses = opened.filter((o) => o.message?.type === MESSAGE_PICKUP.status);
      if (d.messages?.length) await messagesReceived(c, d.messages.map((m) => m.id));
      return statuses.length ? { broken: [broke('messagepickup.status.not-queued', `${statuses.length} status message(s) were queued and delivered`, d.answer.entry.seq)] } : { broken: d.broken };
    },
  },
];
