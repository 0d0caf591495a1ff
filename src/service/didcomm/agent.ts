// The service's DIDComm agent: implements the ServiceAgent seam (requestSync, receive) and
// the DIDCOMM invitation delivery (deliverInvitation) over one router with the Data Pipe responder, DID-auth
// verifier, WACI issuer, issuance workflows and the mediator (src/mediator: coordinate-mediation,
// forward, Message Pickup).
//
// Events on `agent.events` (tests await these; nothing here sleeps): 'data-pipe-established',
// 'data-pipe-closed', 'sync-requested', 'sync-started', 'sync-completed', 'sync-failed',
// 'sync-aborted', 'credential-issued', 'credential-status-changed', 'workflow-in-progress',
// 'workflow-completed', 'workflow-failed', 'message-queued', 'message-delivered',
// 'message-dropped' (not deliverable and not kept: outbound.ts), 'redelivery-scheduled',
// 'redelivery-given-up' (a message an endpoint answered 503/429 for: redelivery.ts), 'queue-pruned',
// 'pickup-delivered', 'pickup-received', 'received' (every inbound result), 'refused'
// (inbound not handled), 'sync-withdrawn' (queued messages of an ended sync removed),
// 'seen-pruned', 'agent-error' (a background task failed).
//
// Lifecycle: createServiceAgent only wires things up (it may be built before listen() fixes the
// service DID: every module reads deps.serviceDid / publicUrl / identity when it uses them).
// start() resumes what a restart left (queued syncs) and sweeps old replay records; createService
// calls it once the DID is final (at creation with a public URL, else from listen()).
import { DEFAULT_WAIT_TIMEOUT_MS, waitForEvent } from '../../wait.js';
import { isoNow } from '../../clock.js';
import { EventEmitter } from 'node:events';
import { createRouter, type HandlerContext, type ProtocolModule, type Router } from '../../router/router.js';
import { refusingRule } from '../../router/records.js';
import { sameDid } from '../../didcomm/message.js';
import { httpTransport } from '../../didcomm/transport/http.js';
import { wsTransport } from '../../didcomm/transport/ws.js';
import { toIdsyncError } from '../../errors.js';
import { basicProtocols } from '../../protocols/basic.js';
import { issueCredentialProtocol } from '../../protocols/issue-credential.js';
import { OUT_OF_BAND_SENDER_FEATURE } from '../../protocols/out-of-band.js';
import { presentProofProtocol } from '../../protocols/present-proof.js';
import { parseProblemReport, REPORT_PROBLEM_PIURI } from '../../protocols/report-problem.js';
import { problemEndsThread } from '../../protocols/thread-state.js';
import { didRegistry } from '../../store/dids.js';
import { messageLog, type MessageRecord } from '../../store/messages.js';
import type { DidcommDelivery } from '../issuance/delivery/didcomm.js';
import type { ServiceDeps } from '../deps.js';
import type { InboundInfo, ServiceAgent } from '../didcomm-seam.js';
import type { SyncReason, UserRef } from '../users/users.js';
import { isUsersWallet } from '../users/users.js';
import type { IssuanceWorkflow } from '../issuance/workflows.js';
import { wsUrl } from '../identity.js';
import type { AgentCore, AgentOptions } from './core.js';
import { emitSafe } from '../webhooks/event-outbox.js';
import { keyedLock } from '../../keyed-lock.js';
import { dataPipeResponder } from './data-pipe.js';
import { failureOf, issuance } from './issuer.js';
import { serviceEnvelope } from './keys.js';
import { createMediator } from '../../mediator/mediator.js';
import { serviceOutbound } from './outbound.js';
import { liveRoutes } from '../../mediator/live.js';
import { relationships } from './relationships.js';
import { DEFAULT_ENDPOINT_POLICY, endpointFetch, endpointGuard } from '../net/endpoint-policy.js';
import { messageQueue, type MessageQueue } from '../../mediator/queue.js';
import { redelivery as createRedelivery } from './redelivery.js';
import { DEFAULT_SEEN_RETENTION_MS, seenMemory } from './seen.js';
import { statusService } from './status.js';
import { syncEngine } from './sync.js';
import { threadStore } from './threads.js';
import { workflowIssuance } from './workflow-issuance.js';
import { envCrashPoint } from '../../crash-point.js';
import { resendKind } from '../../protocols/resend-kinds.js';
import type { StepRecord } from '../../router/steps/state.js';
import { createScheduler, type RetryCounts } from '../../router/retry/scheduler.js';
import { COLLECTIONS } from './collections.js';

export interface ServiceDidcommAgent extends ServiceAgent {
  readonly router: Router;
  readonly events: EventEmitter;
  readonly queue: MessageQueue;
  requestSync(user: UserRef, reason: SyncReason): Promise<{ operationId: string }>;
  /** The user's record lost its session while the agent holds it: linked again (sync.ts reconcileSession). */
  reconcileSession(user: UserRef): Promise<boolean>;
  /** Calls `info.retryable({code})` when the message may be sent again (the router left its id free). */
  receive(packed: string, info: InboundInfo): Promise<void>;
  deliverInvitation: DidcommDelivery;
  /** The signed status list credential served at /status-lists/:name. */
  statusListCredential(name: string): Promise<Record<string, unknown> | undefined>;
  /**
   * Sets (true) or clears (false: unsuspend) a credential's status bit; fires CREDENTIAL_STATUS_UPDATE.
   * Resolves false when the bit already had that value; a revoked credential is not cleared
   * (`revocation_final`: Bitstring Status List v1.0 §2.1, "This status is not reversible").
   */
  setCredentialStatus(credentialId: string, value: boolean): Promise<boolean>;
  closeDataPipe(user: UserRef, reason?: string): Promise<void>;
  /** statusChangeTerms with trigger WORKFLOW_CREATION: the user's earlier credentials get their status. */
  onWorkflowCreated(workflow: IssuanceWorkflow): Promise<void>;
  /** Resolves with the first `event` payload matching `predicate` (a guard timeout, default 10 s, rejects). */
  waitFor<T = Record<string, unknown>>(event: string, predicate?: (data: T) => boolean, timeoutMs?: number): Promise<T>;
  /** Resolves when no background work (sync starts) and no inbound message being handled is left. */
  idle(): Promise<void>;
  /** Resumes queued syncs and prunes old replay records; idempotent (createService calls it). */
  start(): void;
  /** Deletes replay records (message ids) older than the retention window now; resolves with how many. */
  pruneSeen(): Promise<number>;
  /**
   * Sends again, now, the queued messages whose endpoint answered 503/429 and whose retry time
   * (injected clock) has come; resolves with how many were delivered. A timer does this too.
   */
  redeliver(): Promise<number>;
  /** Sends again, now, every unanswered protocol message whose retry time (injected clock) has come (router/steps). */
  retryDue(): Promise<number>;
  /** What the retry scheduler holds now: scheduled, due, being retried, given up since the start; by job kind. */
  retries(): RetryCounts & { byKind: Record<string, RetryCounts> };
  /** Fails, now, running syncs without progress for syncTimeoutMs (a timer does this every sweepMs); resolves with how many. */
  sweep(): Promise<number>;
  close(): Promise<void>;
}

export function createServiceAgent(deps: ServiceDeps, options: AgentOptions = {}): ServiceDidcommAgent {
  const events = new EventEmitter();
  const registry = didRegistry(deps.store);
  // Read at every request: options first, then createService's (docs/service.md "Outbound endpoints").
  const endpointPolicy = () => ({ ...DEFAULT_ENDPOINT_POLICY, ...deps.outboundEndpoints, ...options.outboundEndpoints });
  // Every connection (did:web documents of peers, their endpoints, redirects) is checked after
  // name resolution under the same policy and goes to the checked address (src/net).
  const netFetch = endpointFetch(endpointPolicy, deps.resolveHost);
  const envelope = serviceEnvelope(deps, registry, netFetch);
  const queue = messageQueue(deps, { collection: COLLECTIONS.queue, ...options.queue });
  const live = liveRoutes();
  const threads = threadStore(deps.store, () => isoNow(deps.clock));
  // The router (below) holds the durable steps: a step's resend keeps the relationship of its first send.
  const related = relationships(deps, threads, () => router.steps());
  let agentRef: ServiceDidcommAgent | undefined;
  const given = options.transports ?? [
    httpTransport({ fetch: netFetch }),
    wsTransport({
      guard: endpointGuard(endpointPolicy, deps.resolveHost),
      onInbound: (packed, info) => agentRef!.receive(packed, { transport: 'ws', ...(info.reply ? { reply: info.reply } : {}) }),
    }),
  ];
  // Called only after the router below exists (replies of messages delivered late).
  const late = (packed: string) => router.receive(packed, { transport: 'return-route' });
  const transports = options.wrapTransport ? given.map((t) => options.wrapTransport!(t, late)) : given;
  const outbound = serviceOutbound({
    resolve: envelope.resolve,
    queue,
    live,
    transports,
    events,
    ownEndpoints: () => [`${deps.publicUrl}/didcomm`, `${wsUrl(deps.publicUrl)}/didcomm`, ...(options.ownEndpoints ?? [])],
    relationships: related,
    endpointPolicy,
    logger: deps.logger,
    // `redeliveries` (below) sends through this outbound path; it exists before any send. A
    // protocol step that waits for its answer is retried as a step (router/steps), not twice.
    retryLater: async (entry, o) => {
      const kind = entry.type ? resendKind({ type: entry.type } as never) : undefined;
      if (kind === 'retry' || kind === 'deliver') return;
      await redeliveries.schedule(entry, { attempts: 1, ...o });
    },
    onReplies: async (replies) => {
      for (const r of replies) await router.receive(r, { transport: 'return-route' });
    },
  });
  const log = messageLog(deps.store, deps.clock, options.messageLog);
  // One retry scheduler for the agent: protocol steps (router/steps) and redeliveries after 503/429.
  const scheduler = createScheduler({ clock: deps.clock, log: (level, msg, data) => deps.logger[level](data ?? {}, msg), ...options.retry });
  const seen = seenMemory(deps.store, deps.clock, { retentionMs: options.seenRetentionMs, sweepMs: options.seenSweepMs });
  // What the router logs as 'sent' may have been queued for pickup or dropped (outbound.ts).
  // The router writes an outgoing record before sending and completes it with the whole record.
  const mark = <T extends Partial<Omit<MessageRecord, 'at'>>>(rec: T): T => {
    const outcome = rec.direction === 'out' && rec.result === 'sent' && rec.id !== undefined ? outbound.outcome(rec.id) : undefined;
    return outcome === 'queued' || outcome === 'dropped' ? { ...rec, result: outcome } : rec;
  };
  const router = createRouter({
    envelope,
    pack: outbound.pack,
    send: outbound.deliver,
    clock: deps.clock,
    ids: deps.ids,
    // Get/put only: the service prunes through its time index (seen.ts) rather than the router's
    // full scans; both count a record for the same window.
    seen: seen.collection,
    seenRetentionMs: options.seenRetentionMs ?? DEFAULT_SEEN_RETENTION_MS,
    log: { record: (rec) => log.record(mark(rec)), update: (seq, patch) => log.update(seq, mark(patch)) },
    ...(options.logMessageMaxBytes !== undefined ? { logMessageMaxBytes: options.logMessageMaxBytes } : {}),
    // None yet: the DID may still change (listen() without a public URL). handle() and send()
    // add the current one before every use, so the first DID the router knows is the final one.
    myDids: [],
    logger: (level, msg, data) => deps.logger[level](data ?? {}, msg),
    // Durable steps (router/steps; docs/protocols.md "Durable steps").
    steps: {
      store: deps.store,
      collections: { states: COLLECTIONS.resend, outs: COLLECTIONS.resendOut },
      kind: resendKind,
      ...options.retry,
      scheduler,
      // Kept for pickup because the wallet's endpoint failed: retried soon, not as a liveness check.
      notAccepted: (message) => outbound.undelivered(message.id),
      // Dropped (the wallet's queue full, no relationship with it): an invitation is not yet taken.
      dropped: (message) => outbound.outcome(message.id) === 'dropped',
      onGiveUp: (record) => givenUp(record),
      ...(options.crashPoint || process.env.IDSYNC_TEST_CRASH_AT ? { crashPoint: (step: string) => crashHook?.(step) } : {}),
    },
  });

  const pending = new Set<Promise<void>>();
  const crashHook = options.crashPoint ?? envCrashPoint();
  const core: AgentCore = {
    deps,
    options,
    router,
    envelope,
    registry,
    events,
    lock: keyedLock(),
    background(what, fn) {
      const p = fn().catch((err) => {
        const e = toIdsyncError(err);
        deps.logger.warn({ code: e.code, what }, 'background DIDComm work failed');
        events.emit('agent-error', { what, code: e.code, message: e.message });
      });
      pending.add(p);
      void p.finally(() => pending.delete(p));
    },
    async send(draft, to, ops) {
      return (await core.prepare(draft, to, ops)).deliver();
    },
    async prepare(draft, to, ops) {
      router.addDid(deps.serviceDid);
      const id = typeof draft.id === 'string' ? draft.id : deps.ids();
      const prepared = await router.prepare({ ...draft, id, from: (draft.from as string | undefined) ?? deps.serviceDid }, { to, mode: 'authcrypt', ...(ops?.length ? { ops } : {}) });
      // The service chose this recipient: it may be queued for (relationships.ts).
      return { message: prepared.message, deliver: () => related.own(id, to, async () => (await router.deliver(prepared)).message) };
    },
    emit: (event) => emitSafe(deps, event),
    now: () => isoNow(deps.clock),
    crashPoint: (step) => crashHook?.(step),
  };

  const status = statusService(core);
  const pipes = dataPipeResponder(core);
  const issue = issuance(core, threads, status);
  const sync = syncEngine(core, threads, pipes, issue, queue);
  const workflows = workflowIssuance(core, issue, status, outbound);
  // The mediator (src/mediator) on the service's router, DID, queue and live sockets: its wallets
  // collect what the service queued for them, and may register DIDs that others forward to.
  const mediator = createMediator({
    store: deps.store,
    clock: deps.clock,
    ids: deps.ids,
    did: () => deps.serviceDid,
    queue,
    live,
    events,
    // The service queues its own messages for wallets without an endpoint, which collect them
    // without asking for mediation: a linked user's wallet, and any DID something waits for that
    // no party registered (a thread's peer). Another party registering such a DID would collect
    // and delete what waits for it (Coordinate Mediation 2.0, "Future Considerations": "a
    // malicious party registers a key for another party at the same mediator").
    reserved: async (did) => {
      if ((await queue.kept(did)) > 0 && !(await mediator.keylist.holding(did))) return true;
      return isUsersWallet(deps, did);
    },
    ...(options.mediation ? { policy: options.mediation } : {}),
    ...(crashHook ? { crashPoint: (step: string) => crashHook(step) } : {}),
  });
  const redeliveries = createRedelivery({
    store: deps.store,
    clock: deps.clock,
    queue,
    events,
    scheduler,
    logger: deps.logger,
    options: options.redelivery,
    attempt: (entry, returnRoute) => outbound.redeliver(entry, returnRoute),
  });
  issue.owners.sync = sync.owner;
  issue.owners.workflow = workflows.owner;

  /** Marks an open thread abandoned, under its lock; the thread as it was, or undefined if it had already ended. */
  async function abandonThread(thid: string) {
    return core.lock(`thread:${thid}`, async () => {
      const fresh = await threads.get(thid);
      if (!fresh || fresh.state === 'done' || fresh.state === 'abandoned') return undefined;
      await threads.put({ ...fresh, state: 'abandoned' });
      return fresh;
    });
  }

  /** No answer before the deadline (router/steps): the thread's sync or workflow fails `unanswered`. */
  async function givenUp(record: StepRecord): Promise<void> {
    const claimed = await abandonThread(record.thid);
    if (!claimed) return;
    events.emit('thread-given-up', { thid: claimed.thid, kind: claimed.kind, owner: claimed.owner });
    const detail = `no answer to ${String(record.out?.message.type ?? 'our message')} before the deadline`;
    if (claimed.kind === 'auth') await sync.authAbandoned(claimed, 'unanswered', detail);
    else await issue.abandon(claimed, 'unanswered', detail);
  }

  // A wallet's problem report ends the thread it names (pthid), if the thread is with that wallet.
  // Warnings (w.…) and e.p.msg.duplicate ("I already had that one") do not (thread-state.ts).
  async function onProblem(ctx: HandlerContext): Promise<void> {
    if (!problemEndsThread(ctx.message)) return;
    const problem = parseProblemReport(ctx.message);
    const thread = await threads.get(problem.pthid);
    if (!thread || !ctx.sender || !sameDid(ctx.sender, thread.peer)) return;
    const claimed = await abandonThread(thread.thid);
    if (!claimed) return;
    const failure = failureOf(problem.code);
    if (claimed.kind === 'auth') await sync.authAbandoned(claimed, failure, problem.code);
    else await issue.abandon(claimed, failure, problem.code);
  }

  // The service issues out-of-band invitations (issuance workflows, user invitations) but takes
  // none by DIDComm: disclosed as the sender role, so discover-features tells what it really does.
  const basics = basicProtocols({ discoverFeatures: { extra: [{ ...OUT_OF_BAND_SENDER_FEATURE, roles: [...OUT_OF_BAND_SENDER_FEATURE.roles] }] } });
  const reportProblem = basics.find((m) => m.piuri === REPORT_PROBLEM_PIURI)!;
  const problems: ProtocolModule = {
    ...reportProblem,
    handlers: {
      'problem-report': async (ctx) => {
        await reportProblem.handlers['problem-report'](ctx);
        await onProblem(ctx);
      },
    },
  };
  router.use(
    ...basics.filter((m) => m !== reportProblem),
    problems,
    pipes.protocol,
    presentProofProtocol({ presentation: sync.onPresentation }, ['verifier']),
    issueCredentialProtocol({ 'propose-credential': workflows.onPropose, ...issue.handlers }, ['issuer']),
    ...mediator.protocols,
  );

  async function handle(packed: string, info: InboundInfo): Promise<void> {
    router.addDid(deps.serviceDid);
    let replied = false;
    const reply = info.reply ? async (p: string) => ((replied = true), info.reply!(p)) : undefined;
    const result = await router.receive(packed, { transport: info.transport, ...(reply ? { reply } : {}), ...(info.bind ? { bind: info.bind } : {}), ...(info.parsed ? { parsed: info.parsed } : {}) });
    const m = result.message;
    const sender = result.metadata?.authenticated ? (result.metadata.encryptedFromKid ?? result.metadata.signFrom)?.split('#')[0] : undefined;
    const retryable = result.retryable === true;
    events.emit('received', {
      status: result.status, type: m?.type, id: m?.id, thid: m?.thid, code: result.code, problemCode: result.problemCode, transport: info.transport,
      ...(retryable ? { retryable } : {}),
    });
    if (result.status !== 'handled') {
      const rule = refusingRule(result.conformance);
      events.emit('refused', { status: result.status, type: m?.type, id: m?.id, code: result.code, problemCode: result.problemCode, ...(rule ? { rule } : {}), ...(retryable ? { retryable } : {}) });
    }
    // The id was left free: the endpoint asks the sender to send it again (POST /didcomm: 503).
    if (retryable) {
      info.retryable?.(result.code ? { code: result.code } : {});
      return;
    }
    // Refused for good with no problem report sent (e.g. nobody to answer): the endpoint says so (400).
    if (result.refusal) info.refused?.(result.refusal);
    // Replays: the router itself answers them with e.p.msg.duplicate (docs/protocols.md "Refusals").
    // DIDComm v2 §6.1 return_route "all": an HTTP response with room left carries the oldest
    // message queued for the sender. (Pushing on a socket needs pickup live mode: mediator.ts.)
    if (m && sender && m.return_route === 'all' && !replied && reply && info.transport === 'http') {
      await mediator.takeOne(sender, reply);
    }
  }

  async function pruneSeen(): Promise<number> {
    const removed = await seen.prune();
    if (removed) events.emit('seen-pruned', { removed });
    return removed;
  }

  /** Opportunistic: inbound traffic starts at most one sweep per seenSweepMs (injected clock). */
  function maybeSweep(): void {
    if (seen.due()) core.background('prune seen', async () => void (await pruneSeen()));
  }

  let started = false;
  let sweeper: NodeJS.Timeout | undefined;
  const agent: ServiceDidcommAgent = {
    router,
    events,
    queue,
    requestSync: (user, reason) => sync.requestSync(user, reason),
    reconcileSession: (user) => sync.reconcileSession(user),
    onWorkflowCreated: (wf) => workflows.onWorkflowCreated(wf),
    deliverInvitation: workflows.deliverInvitation,
    statusListCredential: (name) => status.listCredential(name),
    setCredentialStatus: (id, value) => status.setCredentialStatus(id, value),
    closeDataPipe: (user, reason) => pipes.close(user, reason),

    receive(packed, info) {
      maybeSweep();
      // Tracked like background work, so idle() also waits for inbound messages being handled.
      const p = handle(packed, info);
      const tracked = p.catch(() => undefined);
      pending.add(tracked);
      void tracked.finally(() => pending.delete(tracked));
      return p;
    },

    waitFor<T>(event: string, predicate?: (data: T) => boolean, timeoutMs = DEFAULT_WAIT_TIMEOUT_MS): Promise<T> {
      return waitForEvent(events, event, predicate, { timeoutMs });
    },

    async idle() {
      while (pending.size) await Promise.allSettled([...pending]);
    },

    start() {
      if (started) return;
      started = true;
      core.background('resume syncs', () => sync.resume());
      core.background('resume workflows', () => workflows.resume());
      core.background('resume owed syncs', async () => void (await deps.users.resumeOwed?.()));
      // Syncs that cannot finish fail within syncTimeoutMs (injected clock), not at the next request.
      sweeper = setInterval(() => core.background('sweep syncs', async () => void (await sync.sweep())), options.sweepMs ?? 30_000);
      sweeper.unref();
      // Every open thread's last message goes out again at once (router/steps), and every message an
      // endpoint asked to get later (503/429): the scheduler loads both and makes them due now.
      core.background('resume retries', async () => {
        await router.steps()!.start();
        await scheduler.start();
      });
      core.background('prune message queue', async () => {
        const removed = await queue.prune();
        if (removed) events.emit('queue-pruned', { removed });
      });
      // Records written before the time index existed are found by a full scan, once per start.
      seen.due();
      core.background('prune seen', async () => {
        const legacy = await seen.pruneUnindexed();
        const removed = legacy + (await seen.prune());
        if (removed) events.emit('seen-pruned', { removed });
      });
    },

    pruneSeen,
    redeliver: () => scheduler.runDue(),
    retryDue: () => scheduler.runDue(),
    retries: () => scheduler.counts(),
    sweep: () => sync.sweep(),

    async close() {
      scheduler.close();
      router.steps()?.close();
      if (sweeper) clearInterval(sweeper);
      await agent.idle();
      await Promise.all(transports.map((t) => t.close?.()));
      await netFetch.close();
    },
  };
  agentRef = agent;
  return agent;
}
