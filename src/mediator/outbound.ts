// Where the standalone mediator's own messages go when they are not return-routed: pushed on a
// live connection the party bound, else POSTed to the DIDComm endpoint its DID document names,
// else (no endpoint, or one that is this mediator: a recipient behind it) queued for it to pick
// up, when it is a party of this mediator; anything else is dropped and said so. A status is
// never queued (Message Pickup 3.0: "a status message MUST NOT be put on the pending message
// queue"), nor a delivery. `relay` passes a forwarded message on to a party beyond this mediator:
// its endpoint URL, or, when that is a mediator's DID (DIDComm v2.1 §Using a DID as an endpoint),
// that mediator's endpoint in a forward to its keys.
import type { EventEmitter } from 'node:events';
import { pack as packEnvelope } from '../didcomm/envelope/index.js';
import { didOf, sameDid } from '../didcomm/message.js';
import { multiTransport } from '../didcomm/transport/index.js';
import type { EnvelopeContext, Transport } from '../didcomm/types.js';
import { shortForm } from '../did/short-form.js';
import type { DocumentResolver } from '../did/types.js';
import type { Clock, IdGenerator } from '../clock.js';
import { IdsyncError } from '../errors.js';
import { MESSAGE_PICKUP } from '../protocols/message-pickup.js';
import { wrapForMediator } from '../protocols/routing.js';
import { serviceUris } from '../router/peer-route.js';
import type { Outbound, PackFn } from '../router/router.js';
import type { Keylist } from './keylist.js';
import type { LiveRoutes } from './live.js';
import type { MessageQueue } from './queue.js';

export interface MediatorOutboundDeps {
  did(): string;
  /** Endpoint URLs that are this mediator. */
  ownEndpoints(): string[];
  resolve: DocumentResolver;
  envelope: EnvelopeContext;
  transports: Transport[];
  live: LiveRoutes;
  queue: MessageQueue;
  keylist: Keylist;
  events: EventEmitter;
  clock: Clock;
  ids: IdGenerator;
}

type Route = { kind: 'remote'; endpoint: string } | { kind: 'did'; mediator: string } | { kind: 'here' };

const NEVER_QUEUED = new Set<string>([MESSAGE_PICKUP.status, MESSAGE_PICKUP.delivery]);
const norm = (url: string) => url.replace(/\/+$/, '').toLowerCase();

export interface MediatorOutbound {
  pack: PackFn;
  deliver: Outbound;
  relay(did: string, packed: string): Promise<void>;
  close(): Promise<void>;
}

export function mediatorOutbound(d: MediatorOutboundDeps): MediatorOutbound {
  const transport = multiTransport(d.transports);

  async function route(did: string): Promise<Route> {
    if (sameDid(did, d.did())) return { kind: 'here' };
    const doc = await d.resolve(didOf(did));
    const uri = serviceUris(doc)[0];
    if (!uri) return { kind: 'here' };
    if (uri.startsWith('did:')) return sameDid(uri, d.did()) ? { kind: 'here' } : { kind: 'did', mediator: uri };
    if (d.ownEndpoints().map(norm).includes(norm(uri))) return { kind: 'here' };
    return { kind: 'remote', endpoint: uri };
  }

  /** A party of this mediator: granted mediation, or a recipient DID someone registered. */
  async function isParty(did: string): Promise<boolean> {
    return (await d.keylist.granted(did)) !== undefined || (await d.keylist.lookup(did)) !== undefined;
  }

  return {
    async pack(message, options, ctx) {
      if (options.forward === false) return packEnvelope(message, options, ctx);
      const to = options.to ?? message.to?.[0];
      const r = to ? await route(to).catch(() => undefined) : undefined;
      // A party behind this mediator gets its messages from the queue: no forward to ourselves.
      return packEnvelope(message, { ...options, forward: r !== undefined && r.kind !== 'here' }, ctx);
    },

    async deliver(packed, target) {
      const { to, message } = target;
      if (d.live.has(to) && (await d.live.push(to, packed))) return [];
      const r = await route(to);
      if (r.kind !== 'here') {
        const endpoint = target.endpoint ?? (r.kind === 'remote' ? r.endpoint : undefined);
        if (!endpoint) throw new IdsyncError('no_endpoint', `no DIDComm endpoint for ${to.slice(0, 120)}`);
        return transport.send(endpoint, packed, { returnRoute: target.returnRoute, messageType: message.type });
      }
      if (NEVER_QUEUED.has(message.type) || !(await isParty(to))) {
        d.events.emit('message-dropped', { to: shortForm(to), messageId: message.id, type: message.type, reason: NEVER_QUEUED.has(message.type) ? 'never queued' : 'not a party of this mediator' });
        return [];
      }
      const entry = await d.queue.enqueue(to, packed, { messageId: message.id, thid: message.thid ?? message.id, type: message.type });
      d.events.emit('message-queued', { to: shortForm(to), queueId: entry.id, messageId: message.id, type: message.type });
      return [];
    },

    async relay(did, packed) {
      const r = await route(did);
      if (r.kind === 'here') throw new IdsyncError('no_endpoint', `${did.slice(0, 120)} names no DIDComm endpoint beyond this mediator`);
      if (r.kind === 'remote') {
        await transport.send(r.endpoint, packed);
        return;
      }
      // The next hop sits behind another mediator named by its DID: one more forward, to that mediator's keys.
      const wrapped = await wrapForMediator(packed, { next: did, mediator: r.mediator }, d.envelope, { clock: d.clock, ids: d.ids });
      if (!wrapped.serviceEndpoint || wrapped.serviceEndpoint.startsWith('did:')) throw new IdsyncError('no_endpoint', `the mediator ${r.mediator.slice(0, 120)} names no endpoint URL`);
      await transport.send(wrapped.serviceEndpoint, wrapped.packed);
    },

    close: () => transport.close(),
  };
}
