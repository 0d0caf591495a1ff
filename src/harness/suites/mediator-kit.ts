// What the mediator suites share: idsync plays the mediator's recipient (it asks for mediation
// from its own DID and registers recipient DIDs whose keys it holds, their service naming the
// mediator's DID) and a sender (a ping packed for such a DID, wrapped in a forward anoncrypted to
// the mediator and POSTed to it). Requests go in the run's envelope (--mode, authcrypt unless
// told) with return_route "all", so answers come back in the HTTP response; one threaded to the
// request that arrives at the harness's endpoint counts too. An HTTP 4xx/5xx to a request is the
// mediator's answer, read at once (case-kit `ordinary`): refusing authcrypt breaks the MUST v2.1
// puts on it and blocks the cases after it, which `--mode anoncrypt` then runs.
import { createPeerDid } from '../../did/peer.js';
import type { CreatedDid } from '../../did/types.js';
import { pack } from '../../didcomm/envelope/index.js';
import { memorySecrets } from '../../didcomm/secrets.js';
import type { EnvelopeContext, PlainMessage } from '../../didcomm/types.js';
import { mediationTypes, type MediationVersion } from '../../protocols/coordinate-mediation.js';
import { MESSAGE_PICKUP, parseDelivery, type QueuedMessage } from '../../protocols/message-pickup.js';
import { buildForward } from '../../protocols/routing.js';
import { systemClock } from '../../clock.js';
import type { WsClosed } from '../../didcomm/transport/ws.js';
import { awaitAnswer, broke, messageRules, ordinary, PING, PROBLEM_REPORT, socketClosed, transportRules, unanswered, type CaseContext } from '../case-kit.js';
import { checkMessageText } from '../check.js';
import type { PostOutcome, Received } from '../counterpart.js';
import type { BrokenRule } from '../types.js';

export const CM_SECTION = 'Coordinate Mediation 2.0 / 3.0';
export const CM_URL = 'https://didcomm.org/coordinate-mediation/2.0/';
export const PICKUP_SECTION = 'Message Pickup 3.0';
export const PICKUP_URL = 'https://didcomm.org/messagepickup/3.0/';
export const ROUTING_SECTION = 'DIDComm Messaging v2.1 §Routing Protocol 2.0';
export const ROUTING_URL = 'https://identity.foundation/didcomm-messaging/spec/v2.1/#routing-protocol-20';

export interface Exchange {
  sent: PlainMessage;
  outcome: PostOutcome;
  /** The answer threaded to the request (or a problem report about it), if one came in time. */
  answer?: Received;
  /** Over WebSocket, when no answer came: how the socket the request went on closed, if it did. */
  closed?: WsClosed;
  broken: BrokenRule[];
}

/** Sends `message` from the harness in the run's mode with return_route "all" and waits for its answer; a refusal ends the case. */
export async function exchange(c: CaseContext, message: PlainMessage, what: string, note?: string): Promise<Exchange> {
  const sent = { ...message, return_route: 'all' as const };
  const outcome = await c.cp.send(sent, { mode: c.mode, ...(note ? { note } : {}) });
  await ordinary(c, outcome, sent, what);
  const broken = transportRules(outcome, what);
  const threaded = (r: Received) => r.message !== undefined && (r.message.thid === sent.id || (r.message.type === PROBLEM_REPORT && r.message.pthid === sent.id));
  // On a WebSocket the wait ends when the socket closes: nothing written on it is answered after.
  const answer = outcome.received.find(threaded) ?? (await awaitAnswer(c, outcome, (r) => r.entry.seq > outcome.entry.seq && threaded(r)));
  if (answer) broken.push(...messageRules(answer, `the answer to ${what}`));
  const closed = answer ? undefined : socketClosed(outcome);
  return { sent, outcome, ...(answer ? { answer } : {}), ...(closed ? { closed } : {}), broken };
}

export const isProblem = (r: Received | undefined): boolean => r?.message?.type === PROBLEM_REPORT;
export const problemCode = (r: Received | undefined): string | undefined => (isProblem(r) ? String(r!.message!.body.code) : undefined);

/** The harness's grant, asked for once per run and version. */
const grants = new WeakMap<object, Map<MediationVersion, Promise<Exchange>>>();

export function mediate(c: CaseContext, v: MediationVersion = '2.0'): Promise<Exchange> {
  let byVersion = grants.get(c.cp);
  if (!byVersion) grants.set(c.cp, (byVersion = new Map()));
  let ex = byVersion.get(v);
  if (!ex) {
    ex = exchange(c, c.cp.draft(mediationTypes(v).request, {}), `the ${v} mediate-request`);
    byVersion.set(v, ex);
  }
  return ex;
}

export const granted = (ex: Exchange, v: MediationVersion = '2.0'): boolean => ex.answer?.message?.type === mediationTypes(v).grant;

/** A recipient DID the harness holds: a did:peer:2 whose service names the mediator's DID. */
export interface Recipient {
  did: string;
  created: CreatedDid;
  /** Opens what is encrypted to this DID. */
  ctx: EnvelopeContext;
}

export function newRecipient(c: CaseContext): Recipient {
  const created = createPeerDid({ endpoint: c.target });
  return { did: created.did, created, ctx: { resolve: c.cp.ctx.resolve, secrets: memorySecrets(created.secrets), engine: 'native' } };
}

/** Registers `r` with a keylist-update (2.0) or recipient-update (3.0); the exchange, and whether it says success. */
export async function register(c: CaseContext, r: Recipient, action: 'add' | 'remove' = 'add', v: MediationVersion = '2.0'): Promise<Exchange & { result?: string }> {
  const ex = await exchange(c, c.cp.draft(mediationTypes(v).update, { updates: [{ recipient_did: r.did, action }] }), `the ${v === '2.0' ? 'keylist' : 'recipient'}-update (${action})`);
  const updated = ex.answer?.message?.body.updated as Array<{ recipient_did?: string; result?: string }> | undefined;
  const result = Array.isArray(updated) ? updated.find((u) => u?.recipient_did === r.did)?.result : undefined;
  return { ...ex, ...(result ? { result } : {}) };
}

/** Whether the keylist (2.0) or recipient list (3.0) the mediator returns names `r`. */
export async function listed(c: CaseContext, r: Recipient, v: MediationVersion = '2.0'): Promise<boolean> {
  return (await listing(c, v)).dids?.includes(r.did) === true;
}

/** The recipient DIDs the mediator's keylist (2.0) or recipient list (3.0) names; `dids` undefined when it gave no list. */
export async function listing(c: CaseContext, v: MediationVersion = '2.0'): Promise<Exchange & { dids?: string[] }> {
  const ex = await exchange(c, c.cp.draft(mediationTypes(v).query, {}), `the ${v === '2.0' ? 'keylist' : 'recipient'}-query`);
  const entries = ex.answer?.message?.type === mediationTypes(v).list ? ex.answer.message.body[v === '2.0' ? 'keys' : 'dids'] : undefined;
  if (!Array.isArray(entries)) return ex;
  return { ...ex, dids: entries.map((k) => (k as { recipient_did?: unknown })?.recipient_did).filter((d): d is string => typeof d === 'string') };
}

/** Why a recipient DID could not be registered with each coordinate-mediation version in this run (each tried once). */
const unregistrable = new WeakMap<object, Map<MediationVersion, string>>();

/**
 * Mediation granted and a fresh recipient registered: what the pickup cases start from; undefined
 * with why when the target would not. Coordinate Mediation 2.0 first (keylist-update), then 3.0
 * (recipient-update), each a protocol of its own that a mediator may speak alone. A registration
 * whose answer does not say success for the DID still counts when the mediator's own list (the
 * query of the same version) names it: the mediation cases judge the answer, these the pickup.
 */
export async function enrolled(c: CaseContext): Promise<{ recipient: Recipient; version: MediationVersion; broken: BrokenRule[] } | { why: string; broken: BrokenRule[] }> {
  let failed = unregistrable.get(c.cp);
  if (!failed) unregistrable.set(c.cp, (failed = new Map()));
  for (const v of ['2.0', '3.0'] as const) {
    if (failed.has(v)) continue;
    const grant = await mediate(c, v);
    if (!granted(grant, v)) {
      failed.set(v, `the ${v} mediate-request was not granted (${grant.answer?.message?.type ?? 'no answer'})`);
      continue;
    }
    const recipient = newRecipient(c);
    const reg = await register(c, recipient, 'add', v);
    if (reg.result === 'success' || (reg.answer?.message?.type === mediationTypes(v).updateResponse && (await listed(c, recipient, v)))) return { recipient, version: v, broken: [] };
    failed.set(v, `registering a recipient DID with ${v} gave ${reg.result ?? reg.answer?.message?.type ?? 'no answer'}`);
  }
  return { why: [...failed.values()].join('; '), broken: [] };
}

export interface Forwarded {
  outcome: PostOutcome;
  /** The packed message the forward carried. */
  inner: string;
  innerId: string;
}

/** A ping from the harness for `to`, wrapped in a forward to the mediator (anoncrypted) and POSTed. */
export async function forward(c: CaseContext, to: string, o: { padding?: number; expiresTime?: number; delayMilli?: number; note?: string } = {}): Promise<Forwarded> {
  const ping: PlainMessage = { id: crypto.randomUUID(), type: PING, from: c.cp.did, to: [to], created_time: Math.floor(Date.now() / 1000), body: { response_requested: false, ...(o.padding ? { padding: 'x'.repeat(o.padding) } : {}) } };
  const inner = (await pack(ping, { mode: 'authcrypt', to, from: c.cp.did, forward: false }, c.cp.ctx)).packed;
  const fwd = buildForward({ next: to, packed: inner, id: crypto.randomUUID(), to: c.target, ...(o.expiresTime !== undefined ? { expiresTime: o.expiresTime } : {}), ...(o.delayMilli !== undefined ? { delayMilli: o.delayMilli } : {}) }, { clock: systemClock });
  const outcome = await c.cp.send(fwd, { mode: 'anoncrypt', note: o.note ?? `forward for ${to.slice(0, 40)}…` });
  return { outcome, inner, innerId: ping.id };
}

/** Whether a forward was taken: a 2xx over HTTP, or a frame written on a WebSocket. */
export const accepted = (o: PostOutcome): boolean => o.error === undefined && (o.transport === 'ws' || (o.status !== undefined && o.status >= 200 && o.status < 300));

/**
 * Why a case that judges the mediator's answer to a forward cannot run on a WebSocket: a frame
 * written is no receipt (DIDComm v2.1 §Transports: only HTTPS has "A successful message receipt
 * MUST return a code in the 2xx"; on a WebSocket "responses don't flow back the other way on the
 * socket"), and an anoncrypted forward has no sender a problem report could go to.
 */
export const NO_RECEIPT_ON_SOCKET = 'the forwards went on a WebSocket, which answers none of them (DIDComm v2.1 §Transports: only HTTPS has a receipt), so a refusal cannot be told from a message taken: run with --transport http';

export async function statusRequest(c: CaseContext, recipientDid?: string): Promise<Exchange & { count?: number }> {
  const ex = await exchange(c, c.cp.draft(MESSAGE_PICKUP.statusRequest, recipientDid ? { recipient_did: recipientDid } : {}), 'the status-request');
  const count = ex.answer?.message?.type === MESSAGE_PICKUP.status ? (ex.answer.message.body.message_count as number) : undefined;
  return { ...ex, ...(typeof count === 'number' ? { count } : {}) };
}

export async function deliveryRequest(c: CaseContext, limit: number, recipientDid?: string): Promise<Exchange & { messages?: QueuedMessage[] }> {
  const ex = await exchange(c, c.cp.draft(MESSAGE_PICKUP.deliveryRequest, { limit, ...(recipientDid ? { recipient_did: recipientDid } : {}) }), 'the delivery-request');
  if (ex.answer?.message?.type !== MESSAGE_PICKUP.delivery) return ex;
  try {
    return { ...ex, messages: parseDelivery(ex.answer.message).messages };
  } catch {
    return { ...ex, messages: [] };
  }
}

export function messagesReceived(c: CaseContext, ids: string[]): Promise<Exchange & { count?: number }> {
  return exchange(c, c.cp.draft(MESSAGE_PICKUP.messagesReceived, { message_id_list: ids }), 'messages-received').then((ex) => {
    const count = ex.answer?.message?.type === MESSAGE_PICKUP.status ? (ex.answer.message.body.message_count as number) : undefined;
    return { ...ex, ...(typeof count === 'number' ? { count } : {}) };
  });
}

/** Opens a delivered message for `r`: the plaintext, or undefined when it does not open. */
export async function openFor(r: Recipient, packed: string): Promise<PlainMessage | undefined> {
  const check = await checkMessageText(packed, r.ctx);
  return check.message;
}

/** Collects and confirms everything queued for `r` (so that one case leaves nothing to the next). */
export async function drain(c: CaseContext, r: Recipient): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const d = await deliveryRequest(c, 100, r.did);
    if (!d.messages?.length) return;
    await messagesReceived(c, d.messages.map((m) => m.id));
  }
}

/** When the target did not answer in time, or closed the socket first: the rule-less inconclusive detail. */
export const noAnswer = (what: string, c: CaseContext, ex?: Pick<Exchange, 'outcome'>) => `no answer to ${what}${unanswered(c, ex?.outcome)}`;

export { broke };
