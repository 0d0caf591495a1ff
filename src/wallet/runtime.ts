// The running wallet behind the Wallet class: identity loaded or created, the router with the
// holder's protocols, transports (HTTP, a WebSocket client for live mode, any given ones), and the
// operations that need all of them. Built by Wallet.init().
import { isoNow, systemClock, uuid } from '../clock.js';
import { sameDid } from '../didcomm/message.js';
import { createRouter, type ReceiveInfo, type Router, type RouterResult } from '../router/router.js';
import { httpTransport } from '../didcomm/transport/http.js';
import { multiTransport } from '../didcomm/transport/index.js';
import { wsTransport } from '../didcomm/transport/ws.js';
import { connectGuard } from '../net/connect-guard.js';
import { guardedFetch } from '../net/guarded-fetch.js';
import type { EnvelopeMode, InboundHandler, PlainMessage, Transport } from '../didcomm/types.js';
import { IdsyncError, toIdsyncError } from '../errors.js';
import { request } from '../protocols/await-reply.js';
import { basicProtocols } from '../protocols/basic.js';
import { TRUST_PING } from '../protocols/trust-ping.js';
import { outOfBandProtocol, type Invitation } from '../protocols/out-of-band.js';
import { connections } from '../store/connections.js';
import { didRegistry } from '../store/dids.js';
import { messageLog, type MessageLog } from '../store/messages.js';
import { storeSecrets } from '../store/secrets.js';
import { approvePending, declinePending } from './approvals.js';
import { outgoingHeaders, withWalletFrom, type WalletContext } from './context.js';
import { httpStatusListFetch } from './credential-check.js';
import { credentialStore } from './credential-store.js';
import { walletDataPipe } from './data-pipe.js';
import type { WalletEvents } from './events.js';
import { createIdentity, loadIdentity, walletDidMethod } from './identity.js';
import { acceptInvitation, type Acceptance, type AcceptOptions } from './invitations.js';
import { walletIssueCredential } from './issue-credential.js';
import { chooseEndpoint, didcommEndpoints, Routes, walletOutbound } from './outbound.js';
import { flushLiveAcks, liveDeliveryChange, pickup, PickupSession, walletPickupProtocol, type PickupOptions, type PickupResult } from './pickup.js';
import { park } from './pending.js';
import { pendingStore, resolvePolicy } from './policies.js';
import { onProblemReceived } from './problems.js';
import { walletPresentProof } from './present-proof.js';
import { threadStore } from './threads.js';
import { walletResolver } from './resolver.js';
import { DEFAULT_WALLET_ADDRESSES } from './addresses.js';
import { envCrashPoint } from '../crash-point.js';
import { resendKind } from '../protocols/resend-kinds.js';

import { stepGivenUp } from './thread-steps.js';
import type { WalletOptions } from './options.js';
import { completeMediation, mediationStore, mediatorDidOf, serviceForMediator, type MediationRecord } from './mediation.js';
import { startCollector, type MediatorCollector } from './mediator-collect.js';
import { mediationClientProtocol } from '../protocols/coordinate-mediation.js';

/** How long close() waits for the deliveries being handled before it confirms what was handled. */
const CLOSE_SETTLE_MS = 10_000;

/** Message ids already processed (router duplicate detection across restarts). */
export const SEEN_COLLECTION = 'wallet-seen';
/** Each thread's durable-steps state: its retry deadline, the peer's last message, the ids we sent (router/steps). */
export const RESEND_COLLECTION = 'wallet-resend';
/** The last message we sent on each thread, apart from its state (router/steps/store.ts). */
export const RESEND_OUT_COLLECTION = 'wallet-resend-out';

export interface Runtime {
  ctx: WalletContext;
  log: MessageLog;
  receive(packed: string, info?: ReceiveInfo & { transport?: string }): Promise<RouterResult>;
  acceptInvitation(input: string | Invitation, options?: AcceptOptions): Promise<Acceptance>;
  /** Invitations: what accepting gave (Data Pipe established, or the issuance started). */
  approve(id: string, options?: AcceptOptions): Promise<Acceptance | undefined>;
  decline(id: string, reason?: string): Promise<void>;
  pickup(target?: string, options?: PickupOptions): Promise<PickupResult>;
  goLive(target?: string): Promise<void>;
  defaultPeer(): Promise<string>;
  /** Trust Ping 2.0 to `peer` (default: the connected service); resolves with the response. */
  ping(peer?: string, timeoutMs?: number): Promise<void>;
  /** The mediator the wallet sits behind and its grant (mediation.ts), if any. */
  mediation(): MediationRecord | undefined;
  /** Collection from the mediator while the wallet runs (mediator-collect.ts). */
  collector(): MediatorCollector | undefined;
  close(): Promise<void>;
}

/** `fetchFn` whose every request is also ended by `signal` (WalletOptions.signal), besides its own. */
function abortable(fetchFn: typeof fetch, signal: AbortSignal | undefined): typeof fetch {
  if (!signal) return fetchFn;
  return (input, init) => fetchFn(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
}

export async function startWallet(options: WalletOptions, events: WalletEvents, env: { endpoint?: string; isListening(): boolean }): Promise<Runtime> {
  const { store } = options;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? uuid;
  const logger = options.logger ?? (() => {});
  const registry = didRegistry(store);
  const secrets = storeSecrets(store);
  // Every connection the wallet makes on others' say-so is checked after name resolution (src/net).
  const guard = connectGuard(() => ({ ...DEFAULT_WALLET_ADDRESSES, ...options.outboundAddresses }), options.resolveHost);
  const ownFetch = options.fetch ? undefined : guardedFetch(guard);
  const netFetch = abortable(options.fetch ?? ownFetch!, options.signal);
  const resolver = walletResolver(registry, { ...options, fetch: netFetch });
  const resolve = resolver.document;
  const mediations = mediationStore(store);
  let mediation = await mediations.get();
  let created = await loadIdentity(registry);
  if (!created && (mediation || options.mediator)) {
    // Behind a mediator: the DID's service names it (mediation.ts); the record goes first, so a
    // wallet stopped before its DID was kept makes it again for the same mediator.
    const mediator = mediation?.mediator ?? (await mediatorDidOf(options.mediator!, netFetch));
    const form = mediation?.form ?? options.mediation?.endpointForm ?? 'did';
    const version = options.mediation?.version;
    mediation = { mediator, routingDid: mediation?.routingDid ?? mediator, form, state: 'pending', ...(version && version !== 'auto' ? { version } : {}) };
    const service = await serviceForMediator(mediation.routingDid, form, resolve);
    await mediations.put(mediation);
    try {
      created = await createIdentity({ store, registry, secrets, clock }, { ...service, ...(options.didMethod ? { method: options.didMethod } : {}) });
    } catch (err) {
      await mediations.remove();
      // ION caps a document at 1000 bytes: a long routing key (a did:peer:2 key id) may not fit.
      const e = toIdsyncError(err);
      if (e.code !== 'invalid_argument') throw err;
      throw new IdsyncError('mediation_failed', `the wallet's did:ion cannot name this mediator in the ${form} form (${e.message}); the did form (its DID as the endpoint) is shorter, and a did:peer wallet (--did-method peer, didMethod 'peer' in the library) has no such cap`, { details: { mediator, form }, cause: err });
    }
  } else if (!created) {
    created = await createIdentity({ store, registry, secrets, clock }, { endpoint: env.endpoint, ...(options.didMethod ? { method: options.didMethod } : {}) });
  } else {
    if (options.mediator && !mediation) {
      logger('warn', 'the wallet DID was made without a mediator: the mediator option is ignored (create a new wallet to sit behind one)', { did: created.shortDid });
    }
    if (options.didMethod && options.didMethod !== walletDidMethod(created.did)) {
      logger('warn', `the wallet DID is a did:${walletDidMethod(created.did)}: didMethod '${options.didMethod}' is ignored (create a new wallet for another method)`, { did: created.shortDid });
    }
  }
  const identity = created;
  const log = messageLog(store, clock);
  const routes = new Routes(options.routes);
  const session = new PickupSession(options.mediation?.ackDelayMs);

  let router: Router | undefined;
  let ctxRef: WalletContext | undefined;
  const receive = async (packed: string, info: ReceiveInfo & { transport?: string } = {}): Promise<RouterResult> => {
    // Message Pickup 3.0 and a live socket may deliver again what was not yet acknowledged:
    // redelivery by the mediator, not a replay to report (the router answers real replays).
    const redelivery = info.redelivery ?? (info.transport === 'pickup' || info.transport === 'ws-live');
    return router!.receive(packed, { ...info, redelivery });
  };
  const inbound: InboundHandler = async (packed, info) => void (await receive(packed, info));
  const ws = (options.webSocket ?? wsTransport)({
    guard,
    // Ended with the HTTP requests (netFetch): a mediator reached over WebSocket keeps no stopped create waiting.
    ...(options.signal ? { signal: options.signal } : {}),
    // Messages on our own outgoing sockets: live-mode pushes and replies (logged as 'ws-live').
    onInbound: (packed, info) => inbound(packed, { ...info, transport: 'ws-live' }),
    onError: (err) => logger('warn', 'WebSocket transport error', { code: err.code }),
    onClose: (endpoint) => {
      for (const peer of [...session.live]) {
        // Live mode ends with the socket it was turned on over, not with any other socket of ours.
        const url = session.liveUrls.get(peer);
        if (url !== undefined && url !== endpoint) continue;
        session.live.delete(peer);
        for (const [thid, p] of session.liveThreads) if (p === peer) session.liveThreads.delete(thid);
        session.liveUrls.delete(peer);
        events.emit('live-ended', { peer, endpoint });
      }
    },
  });
  const extra = (options.transports ?? []).map((t) => (typeof t === 'function' ? t(inbound) : t));
  const wrap = (t: Transport) => (options.wrapTransport ? options.wrapTransport(t, inbound) : t);
  const transport = multiTransport([...extra, httpTransport({ fetch: netFetch }), ws].map(wrap));

  router = createRouter({
    envelope: { resolve, secrets, ...(options.envelopeEngine ? { engine: options.envelopeEngine } : {}) },
    clock,
    ids,
    seen: store.collection(SEEN_COLLECTION),
    log,
    send: walletOutbound({ resolve, transport, routes }),
    myDids: [identity.did, identity.shortDid],
    logger,
    steps: {
      store,
      collections: { states: RESEND_COLLECTION, outs: RESEND_OUT_COLLECTION },
      kind: resendKind,
      ...options.retry,
      onGiveUp: async (record) => stepGivenUp(ctxRef!, record.thid),
      ...((options.crashPoint ?? envCrashPoint()) ? { crashPoint: options.crashPoint ?? envCrashPoint() } : {}),
    },
  });

  const ctx: WalletContext = {
    store, clock, ids, resolve, resolution: resolver.result, identity, secrets, router, logger, events,
    threads: threadStore(store),
    credentials: credentialStore(store, clock),
    pending: pendingStore(store),
    connections: connections(store, clock),
    policy: resolvePolicy(options.policy),
    statusListFetch: options.statusListFetch ?? httpStatusListFetch(netFetch, options.statusListLimits),
    // Behind a mediator the wallet has an inbound route: replies come through it.
    needsReturnRoute: () => !env.isListening() && !mediation,
  };
  ctxRef = ctx;

  router.use(
    ...basicProtocols({ reportProblem: { onProblem: (problem, message, sender) => onProblemReceived(ctx, problem, message, sender) } }).map((m) => withWalletFrom(() => ctx, m)),
    outOfBandProtocol({
      // The wallet takes invitations; it issues none.
      roles: ['receiver'],
      onInvitation: async (invitation, message) => {
        const item = { id: invitation.id, kind: 'invitation' as const, thid: invitation.id, from: invitation.from, receivedAt: isoNow(ctx.clock), message, ...(invitation.body.goal_code ? { goalCode: invitation.body.goal_code } : {}) };
        await park(ctx, item);
        // Accepted after this handler returns (the service's delivery is not held open while the
        // Data Pipe or issuance runs); a failure leaves the item pending for approve/decline.
        if (ctx.policy.invitations === 'auto') {
          setImmediate(() => {
            approve(item.id).catch((err: unknown) => {
              const e = toIdsyncError(err);
              logger('warn', 'an invitation could not be accepted automatically', { id: item.id, code: e.code });
              events.emit('auto-accept-failed', { item, code: e.code, message: e.message });
            });
          });
        }
      },
    }),
    walletDataPipe(() => ctx),
    walletPresentProof(() => ctx),
    walletIssueCredential(() => ctx),
    walletPickupProtocol(() => ctx, session),
    mediationClientProtocol('2.0'),
    mediationClientProtocol('3.0'),
  );
  let collector: MediatorCollector | undefined;
  try {
    // Resumes every open thread: its last message goes out again at once (router/steps).
    await router.steps()!.start();
    if (mediation) {
      if (mediation.state !== 'registered') {
        mediation = await completeMediation({ router, store, did: identity.did, now: () => isoNow(clock), version: options.mediation?.version, ...(options.signal ? { signal: options.signal } : {}) }, mediation);
      }
      if (options.mediation?.collect !== false) {
        collector = await startCollector({
          ctx, session, mediator: mediation.mediator, connect: (url) => ws.connect(url),
          live: options.mediation?.live ?? true, pollIntervalMs: options.mediation?.pollIntervalMs ?? 2000,
        });
      }
    }
  } catch (err) {
    // A start that failed (the mediator refused, did not answer, or the start was aborted) leaves
    // no socket open behind it: a WebSocket to the mediator would keep the process alive.
    router.steps()?.close();
    await transport.close().catch(() => {});
    await ownFetch?.close().catch(() => {});
    throw err;
  }
  router.events.on('result', (r: RouterResult, packed?: string) => {
    events.emit('message', { direction: 'in', message: r.message, mode: r.metadata?.mode, status: r.status, problemCode: r.problemCode, conformance: r.conformance, packed });
  });
  router.events.on('sent', (e: { message: PlainMessage; mode: EnvelopeMode; packed: string }) => {
    events.emit('message', { direction: 'out', message: e.message, mode: e.mode, status: 'sent', packed: e.packed });
  });

  async function defaultPeer(): Promise<string> {
    const established = (await ctx.connections.list({ state: 'established' })).filter((c) => sameDid(c.myDid, identity.did));
    const peers = [...new Set(established.map((c) => c.theirDid))];
    if (peers.length === 1) return peers[0];
    throw new IdsyncError('invalid_argument', peers.length ? 'several services are connected: name the peer DID' : 'no established Data Pipe: name the peer DID or endpoint');
  }

  async function doPickup(target?: string, o?: PickupOptions): Promise<PickupResult> {
    const isUrl = target !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(target);
    // Behind a mediator, everything for the wallet waits there.
    if (!target && mediation) return collector && !o ? collector.collect() : pickup(ctx, session, mediation.mediator, undefined, o);
    const peer = target && !isUrl ? target : await defaultPeer();
    return pickup(ctx, session, peer, isUrl ? target : undefined, o);
  }

  const acceptDeps = () => ({
    log,
    canReach: (peer: string) => routes.get(peer) !== undefined,
    // A wallet nobody can reach collects `established` itself when it was queued. Behind a
    // mediator in live mode it is pushed as it arrives (Message Pickup 3.0 §Live Mode: "messages
    // that arrive when an existing connection exists are delivered over the connection
    // immediately"): a pickup then would only fetch it a second time.
    pickup: mediation ? async () => void (collector?.mode === 'live' ? undefined : await doPickup()) : env.isListening() ? undefined : (peer: string) => pickup(ctx, session, peer),
  });

  function approve(id: string, o: AcceptOptions = {}): Promise<Acceptance | undefined> {
    return approvePending(ctx, id, (invitation) => acceptInvitation(ctx, acceptDeps(), invitation, { fetch: netFetch, ...o }));
  }

  // Invitations parked to be accepted at once (policy 'auto') by a wallet that stopped before it
  // accepted them: accepted now, as they would have been.
  if (ctx.policy.invitations === 'auto') {
    for (const item of await ctx.pending.list('invitation')) {
      setImmediate(() => {
        approve(item.id).catch((err: unknown) => {
          const e = toIdsyncError(err);
          logger('warn', 'an invitation could not be accepted automatically', { id: item.id, code: e.code });
          events.emit('auto-accept-failed', { item, code: e.code, message: e.message });
        });
      });
    }
  }

  return {
    ctx,
    log,
    receive,
    acceptInvitation: (input, o) => acceptInvitation(ctx, acceptDeps(), input, { fetch: netFetch, ...o }),
    approve,
    decline: (id, reason) => declinePending(ctx, id, reason),
    pickup: doPickup,
    async goLive(target) {
      const isUrl = target !== undefined && /^wss?:\/\//i.test(target);
      const peer = target && !isUrl ? target : await defaultPeer();
      const url = isUrl ? target : chooseEndpoint(didcommEndpoints(await resolve(peer)), ['ws', 'wss']);
      if (!url) throw new IdsyncError('no_endpoint', `${peer} names no WebSocket endpoint`);
      await ws.connect(url);
      await liveDeliveryChange(ctx, session, peer, url, true);
    },
    defaultPeer,
    async ping(peer, timeoutMs) {
      const to = peer ?? (await defaultPeer());
      await request(router!, { type: TRUST_PING.ping, body: { response_requested: true }, ...(await outgoingHeaders(ctx, to)) }, 'trust-ping-response', { to, timeoutMs });
    },
    mediation: () => mediation,
    collector: () => collector,
    async close() {
      collector?.close();
      // Deliveries still being handled finish first, and their confirmations join those waiting:
      // a wallet is often closed as soon as its credential is stored, while the delivery that
      // brought it is still in the router. Then every live delivery handled but not confirmed
      // is confirmed while the socket is open (Message Pickup 3.0 §Messages Received).
      session.closing = true;
      if (!(await session.settled(CLOSE_SETTLE_MS))) ctx.logger('warn', 'closing while deliveries are still being handled: they will be delivered again', {});
      await flushLiveAcks(ctx, session);
      router!.steps()?.close();
      await transport.close();
      await ownFetch?.close();
    },
  };
}
