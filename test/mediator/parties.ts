// Parties that use a mediator in tests, over real sockets: a recipient (a did:peer:2 with no
// endpoint, or one naming the mediator's DID as its endpoint; or a did:peer:4, which it may use in
// either form, DID Peer §Method 4) that asks for mediation, registers
// DIDs and picks up over HTTP or a WebSocket, and a sender that sends to a DID behind the mediator
// (pack() wraps the forward itself, DIDComm v2.1 §Using a DID as an endpoint). Each is an idsync
// router with the client side of the protocols; what the mediator answers is awaited as events.
import { EventEmitter } from 'node:events';
import { systemClock } from '../../src/clock.js';
import { createKeyDid } from '../../src/did/key.js';
import { createPeerDid } from '../../src/did/peer.js';
import { createPeerDid4 } from '../../src/did/peer4.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { shortForm } from '../../src/did/short-form.js';
import type { CreatedDid, DocumentResolver } from '../../src/did/types.js';
import { unpack } from '../../src/didcomm/envelope/index.js';
import { sameDid } from '../../src/didcomm/message.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import { httpTransport } from '../../src/didcomm/transport/http.js';
import { wsTransport } from '../../src/didcomm/transport/ws.js';
import type { EnvelopeContext, PlainMessage } from '../../src/didcomm/types.js';
import { basicProtocols } from '../../src/protocols/basic.js';
import { mediationClientProtocol } from '../../src/protocols/coordinate-mediation.js';
import {
  buildDeliveryRequest, buildLiveDeliveryChange, buildMessagesReceived, buildStatusRequest, messagePickupProtocol, type QueueStatus,
} from '../../src/protocols/message-pickup.js';
import { createRouter, transportOutbound, type Router } from '../../src/router/router.js';

export interface Party {
  did: string;
  created: CreatedDid;
  router: Router;
  envelope: EnvelopeContext;
  events: EventEmitter;
  /** Every plaintext message this party received, in order. */
  inbox: PlainMessage[];
  ws: ReturnType<typeof wsTransport>;
  close(): Promise<void>;
}

export interface Delivered {
  message: PlainMessage;
  /** Attachment id (queue id) and the packed message, as delivered. */
  messages: Array<{ id: string; packed: string }>;
}

const baseResolver = documentResolver(createResolver({ cache: false }));

/**
 * A party with a did:peer:2 (or did:key, or did:peer:4) of its own; `endpoint` is its service URI
 * (a URL, or a mediator's DID). `created` gives it an existing DID instead, and `as` the form of it
 * it sends from (a did:peer:4's short form). `knows`: did:peer:4 long forms it has seen, so it
 * resolves their short forms (DID Peer §Method 4 "Short form").
 */
export function party(o: { endpoint?: string; key?: boolean; peer4?: boolean; created?: CreatedDid; as?: string; knows?: string[] } = {}): Party {
  const created = o.created ?? (o.key ? createKeyDid() : o.peer4 ? createPeerDid4(o.endpoint ? { endpoint: o.endpoint } : {}) : createPeerDid(o.endpoint ? { endpoint: o.endpoint } : {}));
  const extra: CreatedDid[] = [];
  const longForms = new Map([created.did, ...(o.knows ?? [])].map((long) => [shortForm(long), long]));
  const peer4Resolver = documentResolver(createResolver({ cache: false, registry: { get: async (did) => longForms.get(did) } }));
  const resolve: DocumentResolver = async (did) => {
    // A did:peer:4 short form resolves to its own document (ids in the short form), not the long form's.
    if (did.startsWith('did:peer:4')) return peer4Resolver(did);
    for (const c of [created, ...extra]) if (sameDid(did, c.did)) return c.document;
    return baseResolver(did);
  };
  const secrets = memorySecrets(created.secrets);
  const envelope: EnvelopeContext = { resolve, secrets };
  const events = new EventEmitter();
  const inbox: PlainMessage[] = [];
  let router: Router;
  const ws = wsTransport({ onInbound: async (packed, info) => void (await router.receive(packed, { transport: 'ws', ...(info.reply ? { reply: info.reply } : {}), redelivery: true })) });
  router = createRouter({ envelope, send: transportOutbound([httpTransport(), ws]), clock: systemClock, myDids: [o.as ?? created.did], reportDuplicates: false });
  router.events.on('received', (e: { message: PlainMessage }) => inbox.push(e.message));
  router.use(
    ...basicProtocols(),
    mediationClientProtocol('2.0'),
    mediationClientProtocol('3.0'),
    messagePickupProtocol(
      {
        status: (ctx, status) => void events.emit('status', { message: ctx.message, status }),
        delivery: (ctx, d) => void events.emit('delivery', { message: ctx.message, messages: d.messages }),
      },
      ['recipient'],
    ),
  );
  return { did: o.as ?? created.did, created, router, envelope, events, inbox, ws, close: () => ws.close() };
}

/** A sender with no endpoint of its own (its answers, if any, are not awaited). */
export const sender = (): Party => party();

/** A did:key requester (the deny-rule tests: `did:key:*`). */
export const keyParty = (): Party => party({ key: true });

/** A further DID held by `p` (to register at the mediator), whose endpoint is `endpoint` (the mediator's DID). */
export function extraDid(p: Party, endpoint?: string): CreatedDid {
  const d = createPeerDid(endpoint ? { endpoint } : {});
  const prev = p.envelope.resolve;
  p.envelope.resolve = async (did) => (sameDid(did, d.did) ? d.document : prev(did));
  const prevSecrets = p.envelope.secrets;
  const more = memorySecrets(d.secrets);
  p.envelope.secrets = {
    get: async (kid) => (await more.get(kid)) ?? prevSecrets.get(kid),
    find: async (kids) => [...new Set([...(await more.find(kids)), ...(await prevSecrets.find(kids))])],
  };
  return d;
}

function once<T>(p: Party, event: string, match: (e: T) => boolean = () => true, timeoutMs = 5000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      p.events.off(event, on);
      reject(new Error(`no ${event} within ${timeoutMs} ms`));
    }, timeoutMs);
    const on = (e: T) => {
      if (!match(e)) return;
      clearTimeout(timer);
      p.events.off(event, on);
      resolve(e);
    };
    p.events.on(event, on);
  });
}

/** Status of `p`'s queue at the mediator (return-routed). */
export async function status(p: Party, mediator: string, recipientDid?: string, via?: string): Promise<{ message: PlainMessage; status: QueueStatus }> {
  const req = buildStatusRequest({ to: mediator, ...(recipientDid ? { recipientDid } : {}) }, { clock: systemClock });
  const answer = once<{ message: PlainMessage; status: QueueStatus }>(p, 'status', (e) => e.message.thid === req.id);
  answer.catch(() => {}); // a send that throws leaves the answer unawaited: its timeout must not surface as unhandled
  await p.router.send(req, { to: mediator, ...(via ? { via } : {}) });
  return answer;
}

/** A delivery-request; resolves with the delivery, or with the status the mediator answers when nothing waits. */
export async function deliveryRequest(p: Party, mediator: string, limit = 10, recipientDid?: string, via?: string): Promise<Delivered | { status: QueueStatus; message: PlainMessage }> {
  const req = buildDeliveryRequest({ to: mediator, limit, ...(recipientDid ? { recipientDid } : {}) }, { clock: systemClock });
  // Whichever answer comes first settles it; the other listener is removed with it, so no timer is
  // left to reject after the test has moved on.
  const answer = new Promise<Delivered | { status: QueueStatus; message: PlainMessage }>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      p.events.off('delivery', on);
      p.events.off('status', on);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error('no delivery or status within 5000 ms'));
    }, 5000);
    const on = (e: { message: PlainMessage }) => {
      if (e.message.thid !== req.id) return;
      done();
      resolve(e as Delivered | { status: QueueStatus; message: PlainMessage });
    };
    p.events.on('delivery', on);
    p.events.on('status', on);
  });
  answer.catch(() => {}); // a send that throws leaves the answer unawaited: its timeout must not surface as unhandled
  await p.router.send(req, { to: mediator, ...(via ? { via } : {}) });
  return answer;
}

export async function messagesReceived(p: Party, mediator: string, ids: string[], via?: string): Promise<QueueStatus> {
  const req = buildMessagesReceived({ to: mediator, messageIds: ids }, { clock: systemClock });
  const answer = once<{ status: QueueStatus; message: PlainMessage }>(p, 'status', (e) => e.message.thid === req.id);
  answer.catch(() => {}); // a send that throws leaves the answer unawaited: its timeout must not surface as unhandled
  await p.router.send(req, { to: mediator, ...(via ? { via } : {}) });
  return (await answer).status;
}

/** Live mode on over the mediator's WebSocket `wsEndpoint`; resolves with the status it answers. */
export async function goLive(p: Party, mediator: string, wsEndpoint: string): Promise<QueueStatus> {
  const req = buildLiveDeliveryChange({ to: mediator, liveDelivery: true }, { clock: systemClock });
  const answer = once<{ status: QueueStatus; message: PlainMessage }>(p, 'status', (e) => e.message.thid === req.id);
  answer.catch(() => {}); // a send that throws leaves the answer unawaited: its timeout must not surface as unhandled
  await p.router.send(req, { to: mediator, via: wsEndpoint });
  return (await answer).status;
}

/** The next delivery that arrives unasked (a live push). */
export const nextPush = (p: Party, timeoutMs = 5000) => once<Delivered>(p, 'delivery', () => true, timeoutMs);

/** Opens a delivered packed message with `p`'s keys. */
export async function open(p: Party, packed: string): Promise<PlainMessage> {
  return (await unpack(packed, p.envelope)).message;
}
