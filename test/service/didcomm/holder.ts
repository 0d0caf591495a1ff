// A minimal hand-written holder for driving the service's DIDComm agent in tests: a did:ion (or a
// did:peer:4, long form first and short form after, DID Peer §Method 4), real envelopes, the protocol builders of src/protocols. NOT src/wallet: the two sides meet only on the wire.
// Policies make it decline offers or refuse credentials; every step is an awaitable router event.
import { EventEmitter } from 'node:events';
import type { Clock } from '../../../src/clock.js';
import { sequentialIds } from '../../../src/clock.js';
import { createIonDid } from '../../../src/did/ion.js';
import { createPeerDid4 } from '../../../src/did/peer4.js';
import { shortForm } from '../../../src/did/short-form.js';
import { createResolver, documentResolver } from '../../../src/did/resolver.js';
import type { CreatedDid, DIDDocument } from '../../../src/did/types.js';
import { createRouter, type Router } from '../../../src/router/router.js';
import type { MessageDraft } from '../../../src/didcomm/message.js';
import { memorySecrets } from '../../../src/didcomm/secrets.js';
import type { PlainMessage, Transport } from '../../../src/didcomm/types.js';
import { signPresentation } from '../../../src/credentials/presentation.js';
import { verifyCredential } from '../../../src/credentials/verify.js';
import type { VerificationResult } from '../../../src/credentials/types.js';
import { keyPairFromJwk } from '../../../src/keys.js';
import { basicProtocols } from '../../../src/protocols/basic.js';
import { buildDataPipeRequest, dataPipeProtocol } from '../../../src/protocols/data-pipe.js';
import {
  buildCredentialApplication,
  buildIssueAck,
  buildProposeCredential,
  buildRequestCredential,
  issueCredentialProtocol,
  type ParsedOffer,
} from '../../../src/protocols/issue-credential.js';
import { buildDeliveryRequest, buildLiveDeliveryChange, buildMessagesReceived, buildStatusRequest, messagePickupProtocol } from '../../../src/protocols/message-pickup.js';
import { buildDidAuthPresentation, buildPresentation, presentProofProtocol } from '../../../src/protocols/present-proof.js';
import { problemReportDraft } from '../../../src/protocols/report-problem.js';

export interface HolderOptions {
  clock: Clock;
  transport: Transport;
  /** Where the service listens (memory://service, or http://…/didcomm). */
  serviceEndpoint: string;
  /** The holder's own endpoint; none: a wallet that collects by Message Pickup. */
  endpoint?: string;
  /** The service DID (it follows the service's listen address). */
  serviceDid: () => string;
  /** Answers the service DID without HTTP (in-memory tests). */
  serviceDocument?: () => DIDDocument;
  name?: string;
  /** A did:peer:4 (authentication key `#key-2`) instead of a did:ion (`#key-1`). */
  peer4?: boolean;
}

export interface Holder {
  did: CreatedDid;
  router: Router;
  events: EventEmitter;
  policy: { offer: 'accept' | 'decline' | 'ignore'; credential: 'verify' | 'refuse' };
  credentials: { id: string; credential: unknown; result: VerificationResult; replacementId?: string; thid: string }[];
  /** Messages of ours, in order, as sent (for replay tests). */
  sentPacked: { message: PlainMessage; packed: string }[];
  /** The form of our DID we sign messages with: long until the pipe is established. */
  from(): string;
  send(message: Record<string, unknown> & { type: string }): Promise<PlainMessage>;
  acceptDataPipe(invitation: PlainMessage | Record<string, unknown>): Promise<PlainMessage>;
  propose(invitation: { id: string; from?: string }): Promise<PlainMessage>;
  /** One pickup round: status, delivery, messages-received. Resolves with how many messages were delivered. */
  pickup(limit?: number): Promise<number>;
  goLive(): Promise<void>;
  /** Sends a packed message again, byte for byte. */
  replay(packed: string): Promise<void>;
  /** A signed credential application, for hand-made requests. */
  application(o: { challenge: string; domain: string; manifestId: string }): ReturnType<typeof signPresentation>;
  offers: Map<string, ParsedOffer>;
}

export function createHolder(o: HolderOptions): Holder {
  const did = (o.peer4 ? createPeerDid4 : createIonDid)(o.endpoint ? { endpoint: o.endpoint } : {});
  const authKid = `${did.did}#${o.peer4 ? 'key-2' : 'key-1'}`;
  const ids = sequentialIds(o.name ?? 'holder');
  const events = new EventEmitter();
  const registry = { get: async (d: string) => (shortForm(d) === did.shortDid ? did.did : undefined) };
  const base = documentResolver(createResolver({ registry }));
  const resolve = async (d: string) => (o.serviceDocument && d === o.serviceDid() ? o.serviceDocument() : base(d));
  const authKey = keyPairFromJwk(did.secrets.find((s) => s.id === authKid)!.privateKeyJwk);
  let established = false;
  const mediated = !o.endpoint;
  const offers = new Map<string, ParsedOffer>();
  const sentPacked: Holder['sentPacked'] = [];
  const md = () => ({ clock: o.clock, ids });

  const router: Router = createRouter({
    envelope: { resolve, secrets: memorySecrets(did.secrets) },
    clock: o.clock,
    ids,
    myDids: [did.did],
    send: async (packed, target) => {
      sentPacked.push({ message: target.message, packed });
      return o.transport.send(o.serviceEndpoint, packed, { returnRoute: target.returnRoute });
    },
  });
  const from = () => (established ? did.shortDid! : did.did);
  // A wallet without an endpoint asks for every answer on the connection it sends on.
  const headers = () => ({ from: from(), ...(mediated ? { return_route: 'all' as const } : {}) });
  const reply = (ctx: { reply: (d: MessageDraft) => Promise<PlainMessage> }, m: MessageDraft) => ctx.reply({ ...m, ...headers() });
  const serviceOf = (m: PlainMessage) => String(m.from);

  router.use(
    ...basicProtocols({ reportProblem: { onProblem: (p) => void events.emit('problem', p) } }),
    dataPipeProtocol({
      established: (_ctx, parsed) => {
        established = true;
        events.emit('established', parsed);
      },
    }),
    presentProofProtocol({
      'request-presentation': async (ctx, req) => {
        const vp = signPresentation(buildDidAuthPresentation({ holder: did.did, definitionId: req.definitionId }), {
          kid: authKid, privateKey: authKey.privateKey, challenge: req.challenge, domain: req.domain,
        });
        await reply(ctx, buildPresentation({ to: serviceOf(ctx.message), thid: req.thid, presentation: vp }, md()));
      },
      ack: (ctx) => void events.emit('authenticated', { thid: ctx.thid }),
    }),
    issueCredentialProtocol({
      'offer-credential': async (ctx, offer) => {
        offers.set(offer.thid, offer);
        events.emit('offer', offer);
        if (holder.policy.offer === 'ignore') return;
        if (holder.policy.offer === 'decline') {
          await reply(ctx, problemReportDraft(ctx.message, { code: 'e.p.req.offer-declined' }));
          return;
        }
        const application = holder.application({ challenge: offer.challenge, domain: offer.domain, manifestId: String(offer.manifest.id) });
        await reply(ctx, buildRequestCredential({ to: serviceOf(ctx.message), thid: offer.thid, application }, md()));
      },
      'issue-credential': async (ctx, issued) => {
        const offer = offers.get(issued.thid);
        const credential = issued.credentials[0].credential;
        const result = await verifyCredential(credential, {
          resolve, clock: o.clock, expectedSubject: did.did, expectedIssuer: serviceOf(ctx.message),
          ...(offer?.datapoints ? { expectedClaims: offer.datapoints as Record<string, unknown> } : {}),
          statusList: async () => issued.statusListCredential,
        });
        if (!result.verified || holder.policy.credential === 'refuse') {
          events.emit('refused-credential', { result, thid: issued.thid });
          await reply(ctx, problemReportDraft(ctx.message, { code: 'e.p.msg.credential-invalid', comment: 'failed check: {1}', args: [result.checks.filter((c) => !c.ok).map((c) => c.check).join(',') || 'policy'] }));
          return;
        }
        const id = typeof credential === 'string' ? (result.credential?.id ?? '') : String((credential as { id?: string }).id);
        holder.credentials.push({ id, credential, result, thid: issued.thid, ...(issued.replacementId ? { replacementId: issued.replacementId } : {}) });
        events.emit('credential', { id, thid: issued.thid });
        await reply(ctx, buildIssueAck({ to: serviceOf(ctx.message), thid: issued.thid, status: 'OK' }, md()));
      },
    }),
    messagePickupProtocol({
      status: (_ctx, status) => void events.emit('pickup-status', status),
      delivery: async (ctx, delivery) => {
        for (const m of delivery.messages) await router.receive(m.packed, { transport: 'pickup' });
        // The delivery is anoncrypted (no `from`): the mediator is the service.
        await router.send({ ...buildMessagesReceived({ to: o.serviceDid(), messageIds: delivery.messages.map((m) => m.id) }, md()), from: from() });
        events.emit('pickup-delivery', delivery.messages.length);
      },
    }),
  );

  const holder: Holder = {
    did, router, events, sentPacked, from,
    policy: { offer: 'accept', credential: 'verify' },
    credentials: [],
    async send(message) {
      return (await router.send({ to: [o.serviceDid()], ...headers(), ...message })).message;
    },
    async acceptDataPipe(invitation) {
      const inv = invitation as PlainMessage;
      const request = buildDataPipeRequest({ from: did.did, to: String(inv.from), invitationId: inv.id, consentAt: new Date(o.clock.now()).toISOString() }, md());
      const done = router.waitFor('handled', (e: { message: PlainMessage }) => e.message.type.endsWith('/established'));
      await router.send({ ...request, ...(mediated ? { return_route: 'all' } : {}) });
      await done;
      return request;
    },
    async propose(invitation) {
      return (await router.send({ ...buildProposeCredential({ to: String(invitation.from), pthid: invitation.id }, md()), ...headers() })).message;
    },
    async pickup(limit = 10) {
      const to = o.serviceDid();
      await router.send({ ...buildStatusRequest({ to }, md()), ...headers() });
      const r = await router.send({ ...buildDeliveryRequest({ to, limit }, md()), ...headers() });
      let delivered = 0;
      for (const res of r.replies) if (res.message?.type.endsWith('/delivery')) delivered += res.message.attachments?.length ?? 0;
      return delivered;
    },
    async goLive() {
      await router.send({ ...buildLiveDeliveryChange({ to: o.serviceDid(), liveDelivery: true }, md()), ...headers() });
    },
    offers,
    application: (a) =>
      signPresentation(buildCredentialApplication({ holder: did.did, manifestId: a.manifestId }), {
        kid: authKid, privateKey: authKey.privateKey, challenge: a.challenge, domain: a.domain,
      }),
    async replay(packed) {
      await o.transport.send(o.serviceEndpoint, packed);
    },
  };
  return holder;
}
