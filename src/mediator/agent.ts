// The standalone mediator as a DIDComm party: its own DID (identity.ts), keys, router, message
// log and replay memory in its own store, the mediator's modules (mediator.ts) with trust-ping,
// discover-features and report-problem beside them, and an outbound for what it sends on its own
// (outbound.ts). server.ts puts it behind HTTP and a WebSocket; tests may drive it directly.
import { EventEmitter } from 'node:events';
import { systemClock, uuid, type Clock, type IdGenerator } from '../clock.js';
import type { CrashPoint } from '../crash-point.js';
import { sameDid } from '../didcomm/message.js';
import { createResolver, documentResolver } from '../did/resolver.js';
import type { DocumentResolver } from '../did/types.js';
import { memorySecrets } from '../didcomm/secrets.js';
import { httpTransport } from '../didcomm/transport/http.js';
import type { InboundOutcome } from '../didcomm/transport/media-type.js';
import { wsTransport } from '../didcomm/transport/ws.js';
import type { EnvelopeContext, EnvelopeEngine, InboundRefusal, Transport } from '../didcomm/types.js';
import { isErrorCode, problemCodeOf, toIdsyncError, type ErrorCode } from '../errors.js';
import { connectGuard } from '../net/connect-guard.js';
import type { AddressPolicy } from '../net/address-policy.js';
import { guardedFetch } from '../net/guarded-fetch.js';
import { basicProtocols } from '../protocols/basic.js';
import type { Invitation } from '../protocols/out-of-band.js';
import { createRouter, type Router, type RouterResult } from '../router/router.js';
import { messageLog } from '../store/messages.js';
import type { Store } from '../store/store.js';
import { loadMediatorIdentity, wsUrlOf, type MediatorIdentity } from './identity.js';
import { loadMediationInvitation, mediationInvitationUrl, mediationShortInvitationUrl } from './invitation.js';
import { createMediator, type Mediator } from './mediator.js';
import { mediatorOutbound } from './outbound.js';
import type { MediatorPolicy } from './policy.js';
import type { QueueOptions } from './queue.js';

export interface MediatorAgentOptions {
  store: Store;
  /** The URL the mediator is reached at: its DID names `<url>/didcomm` over HTTP and WebSocket. */
  publicUrl: string;
  clock?: Clock;
  ids?: IdGenerator;
  policy?: Partial<MediatorPolicy>;
  /** Queue lifetime (default 30 days); messages per recipient come from policy.maxQueue. */
  queue?: Pick<QueueOptions, 'ttlMs'>;
  /** Outbound transports (default HTTP and WebSocket through the address guard). */
  transports?: Transport[];
  /** Which addresses the mediator sends to (replies, forwards passed on): default loopback yes, private ranges no; link-local and metadata never. */
  addressPolicy?: AddressPolicy;
  /** DID resolution for everyone but the mediator itself (default: did:peer, did:key, did:ion long form, did:web). */
  resolve?: DocumentResolver;
  engine?: EnvelopeEngine;
  /** Crash tests (crash-point.ts). */
  crashPoint?: CrashPoint;
  /** How long message ids are remembered against replays (default 7 days). */
  seenRetentionMs?: number;
  /** How often messages past the queue's TTL or their own end are deleted (default hourly; also once at start). */
  pruneEveryMs?: number;
}

/** A recipient that never comes back would otherwise keep its expired messages on disk: they go by this sweep. */
export const DEFAULT_MEDIATOR_PRUNE_EVERY_MS = 3600_000;

export interface MediatorAgent {
  readonly did: string;
  readonly identity: MediatorIdentity;
  readonly router: Router;
  readonly mediator: Mediator;
  /** The mediator's events (mediator.ts) and the router's 'received' results as 'inbound'. */
  readonly events: EventEmitter;
  readonly invitation: Invitation;
  readonly invitationUrl: string;
  /** The same invitation's short URL (`_oobid`), which GET /invitation answers. */
  readonly shortInvitationUrl: string;
  /** One inbound message; resolves as HTTP wants it answered (retry later, or refused for good with no report sent). */
  receive(packed: string, info: { transport: string; reply?: (packed: string) => Promise<void>; bind?: (key: string) => void; open?: () => boolean }): Promise<void | InboundOutcome>;
  /** Resolves when no live push is running. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** The refusals of the mediator's own limits that may pass, named in their 503 (docs/mediation.md "Options: policy and limits"). */
const NAMED_RETRY_REASONS: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['queue_full']);

/**
 * Why a message that may be sent again was not taken, for the transport's answer (HTTP 503): a
 * full queue (queue_full, e.p.me.res.storage.queue-full), which an anoncrypted forward's sender
 * can learn no other way. Anything else that may pass (a store failure, a reply not delivered)
 * keeps the generic retry-later answer.
 */
function retryReason(result: RouterResult): { reason?: InboundRefusal } {
  const code = result.code;
  if (!isErrorCode(code) || !NAMED_RETRY_REASONS.has(code)) return {};
  return { reason: { code, message: result.error?.message ?? code, problemCode: result.problemCode ?? problemCodeOf(code) } };
}

const DEFAULT_ADDRESS_POLICY: Required<AddressPolicy> = { allowLoopback: true, allowPrivate: false };

export async function createMediatorAgent(options: MediatorAgentOptions): Promise<MediatorAgent> {
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? uuid;
  const store = options.store;
  const publicUrl = options.publicUrl.replace(/\/+$/, '');
  const identity = await loadMediatorIdentity(store, publicUrl);
  const did = identity.did;
  const invitation = await loadMediationInvitation(store, did, { clock, ids });
  const guard = connectGuard({ ...DEFAULT_ADDRESS_POLICY, ...options.addressPolicy });
  const netFetch = guardedFetch(guard);
  const others = options.resolve ?? documentResolver(createResolver({ fetch: netFetch }));
  const resolve: DocumentResolver = async (d) => (sameDid(d, did) ? identity.document : others(d));
  const envelope: EnvelopeContext = { resolve, secrets: memorySecrets(identity.secrets), ...(options.engine ? { engine: options.engine } : {}) };
  const events = new EventEmitter();
  const transports = options.transports ?? [httpTransport({ fetch: netFetch }), wsTransport({ guard })];
  const ownEndpoints = [`${publicUrl}/didcomm`, `${wsUrlOf(publicUrl)}/didcomm`];

  // The outbound needs the mediator's queue and keylist, the mediator the outbound's relay.
  let outbound: ReturnType<typeof mediatorOutbound> | undefined;
  const mediator = createMediator({
    store,
    clock,
    ids,
    did: () => did,
    events,
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.queue ? { queueOptions: options.queue } : {}),
    relay: (to, packed) => outbound!.relay(to, packed),
    ...(options.crashPoint ? { crashPoint: options.crashPoint } : {}),
  });
  outbound = mediatorOutbound({
    did: () => did, ownEndpoints: () => ownEndpoints, resolve, envelope, transports,
    live: mediator.live, queue: mediator.queue, keylist: mediator.keylist, events, clock, ids,
  });

  const log = messageLog(store, clock);
  const router = createRouter({
    envelope,
    pack: outbound.pack,
    send: outbound.deliver,
    clock,
    ids,
    seen: store.collection('med-seen'),
    ...(options.seenRetentionMs !== undefined ? { seenRetentionMs: options.seenRetentionMs } : {}),
    log: { record: (rec) => log.record(rec), update: (seq, patch) => log.update(seq, patch) },
    myDids: [did],
  });
  router.use(...basicProtocols(), ...mediator.protocols);

  // The queue deletes what expired for a recipient when it next looks at that recipient's queue;
  // this sweep deletes the rest (Message Pickup 3.0 leaves retention to the mediator).
  const prune = () =>
    void mediator.queue.prune().then(
      (removed) => void (removed && events.emit('queue-pruned', { removed })),
      (err: unknown) => void events.emit('mediator-error', { what: 'prune queue', code: toIdsyncError(err).code }),
    );
  prune();
  const sweep = setInterval(prune, options.pruneEveryMs ?? DEFAULT_MEDIATOR_PRUNE_EVERY_MS);
  sweep.unref();

  return {
    did,
    identity,
    router,
    mediator,
    events,
    invitation,
    invitationUrl: mediationInvitationUrl(publicUrl, invitation),
    shortInvitationUrl: mediationShortInvitationUrl(publicUrl, invitation),
    async receive(packed, info) {
      const result: RouterResult = await router.receive(packed, info);
      events.emit('inbound', { status: result.status, type: result.message?.type, id: result.message?.id, code: result.code, problemCode: result.problemCode, transport: info.transport });
      // The message may be sent again (its id was left free): HTTP answers 503 with Retry-After.
      if (result.retryable) return { retryable: true, ...(result.code ? { code: result.code } : {}), ...retryReason(result) } as InboundOutcome;
      if (result.refusal) return { refusal: result.refusal };
      return undefined;
    },
    idle: () => mediator.idle(),
    async close() {
      clearInterval(sweep);
      await mediator.idle();
      await outbound!.close();
      await netFetch.close();
    },
  };
}
