// Data sync operations (docs/protocols.md "Sync"): durable {id, user, status, phase, datapoints,
// threads}; DID authentication with present-proof 3.0 (single-use challenge, domain = service
// DID, holder = the linked DID), then issuance of the datapoints (issuance.ts) with pthid = the
// Data Pipe thread and replacement_id = the previous sync credential. Webhooks DATA_SYNC_* and
// CREDENTIAL_ISSUANCE_*.
//
// Coalescing: a requestSync while the user's sync has not yet offered its credential joins it
// (the offer carries the datapoints as they are when it is made); once the offer is out, one
// follow-up operation is queued and every further request joins that one. The follow-up starts
// when the running sync ends, however it ends. A sync without progress for syncTimeoutMs (default
// 24 h) is failed by the next request, which then starts afresh.
//
// A sync that ends without completing (failed, aborted, timed out) takes back what it left
// queued for pickup (its request-presentation or offer) and ends its open threads, so a wallet
// that comes back later is not asked to continue a sync that no longer exists.
import type { FlatDatapoints } from '../../credentials/datapoints.js';
import type { HandlerContext } from '../../router/router.js';
import { buildPresentationAck, buildRequestPresentation, PRESENT_PROOF_PIURI, PRESENT_PROOF_VERIFIER, verifyDidAuth, type ParsedPresentation } from '../../protocols/present-proof.js';
import { listSyncOperations, SYNC_OPERATIONS, syncOperationKey, type SyncOperation, type SyncStatus } from '../didcomm-seam.js';
import type { SyncReason, UserRef } from '../users/users.js';
import type { ServiceEvent } from '../context.js';
import { prepareEvents } from '../webhooks/event-outbox.js';
import { credentialIssuanceEvent, dataSyncEvent } from '../webhooks/events.js';
import { COLLECTIONS } from './collections.js';
import type { AgentCore } from './core.js';
import { userKey } from '../users/users.js';
import type { DataPipeResponder } from './data-pipe.js';
import type { IssueFailure, Issuance, IssueOwner } from './issuer.js';
import type { MessageQueue } from '../../mediator/queue.js';
import type { BatchOp } from '../../store/store.js';
import { sent, storedThread, type DcThread, type ThreadStore } from './threads.js';

export type SyncPhase = 'queued' | 'authenticating' | 'issuing' | 'done';

export interface SyncRecord extends SyncOperation {
  phase: SyncPhase;
  cptyDID?: string;
  authThid?: string;
  issueThid?: string;
  /** The datapoints offered (flat); datapointsSynced once acknowledged. */
  datapoints?: FlatDatapoints;
  credentialId?: string;
}

/** Per user: the sync that runs, the one queued behind it, the last sync credential. */
export interface SyncUserState {
  activeSyncId?: string;
  followUpSyncId?: string;
  lastCredentialId?: string;
}

export interface SyncEngine {
  requestSync(user: UserRef, reason: SyncReason): Promise<{ operationId: string }>;
  onPresentation(ctx: HandlerContext, parsed: ParsedPresentation): Promise<void>;
  /** A problem report ended a DID-auth thread. */
  authAbandoned(thread: DcThread, failure: IssueFailure, detail: string): Promise<void>;
  /** Continues every running operation after a restart, whatever its phase. */
  resume(): Promise<void>;
  /** Fails running operations without progress for syncTimeoutMs; resolves with how many. */
  sweep(): Promise<number>;
  /**
   * The user's record shows no session: links the user again from what the agent holds of it —
   * its Data Pipe record, else the wallet DID its latest sync authenticated on the pipe's thread.
   */
  reconcileSession(ref: UserRef): Promise<boolean>;
  owner: IssueOwner;
}

const TERMINAL: SyncStatus[] = ['completed', 'aborted', 'failed'];
/** A running sync with no progress for this long fails (AgentOptions.syncTimeoutMs; docs/service.md "Limits"). */
export const DEFAULT_SYNC_TIMEOUT_MS = 10 * 60 * 1000;
/** A new request supersedes a running sync that has not moved for this long (AgentOptions.syncStallMs). */
export const DEFAULT_SYNC_STALL_MS = 60 * 1000;

export function syncEngine(core: AgentCore, threads: ThreadStore, pipes: DataPipeResponder, issue: Issuance, queue: MessageQueue): SyncEngine {
  const { deps } = core;
  const ops = deps.store.collection<SyncRecord>(SYNC_OPERATIONS);
  const states = deps.store.collection<SyncUserState>(COLLECTIONS.userState);
  const md = () => ({ clock: deps.clock, ids: deps.ids });
  const getOp = (ref: UserRef, id: string) => ops.get(syncOperationKey({ ...ref, id }));
  const putOp = (op: SyncRecord) => ops.put(syncOperationKey(op), { ...op, updatedAt: core.now() });
  const syncLock = <T>(ref: UserRef, fn: () => Promise<T>) => core.lock(`sync:${userKey(ref)}`, fn);
  /** Operations whose offer is being made from the datapoints they took (startIssue), not yet stored as 'issuing'. */
  const offering = new Set<string>();

  function syncEventOf(op: SyncRecord, event: Parameters<typeof dataSyncEvent>[0]): ServiceEvent {
    const env = dataSyncEvent(event, { cptyDID: op.cptyDID ?? '', dataSyncOperationId: op.id, userId: op.userId });
    return { tenantId: op.tenantId, type: env.type, event: env.event, params: env.params };
  }

  function issuanceEventOf(op: SyncRecord, event: Parameters<typeof credentialIssuanceEvent>[0], thid: string, extra: Record<string, unknown> = {}): ServiceEvent {
    const env = credentialIssuanceEvent(event, { didcommThreadId: thid, userAccountId: op.userId, dataSyncOperationId: op.id, ...extra });
    return { tenantId: op.tenantId, type: env.type, event: env.event, params: env.params };
  }


  function newOp(ref: UserRef, reason: SyncReason): SyncRecord {
    const now = core.now();
    return { id: deps.ids(), tenantId: ref.tenantId, userId: ref.userId, reason, status: 'queued', phase: 'queued', createdAt: now, updatedAt: now };
  }

  /**
   * Ends the active operation and promotes the follow-up (started in the background). `events`
   * (webhook events about the ended operation) are stored in the same batch (event-outbox.ts)
   * and committed before this resolves.
   */
  async function finish(ref: UserRef, opId: string, patch: Partial<SyncRecord>, events?: (done: SyncRecord) => ServiceEvent[], ops: BatchOp[] = []): Promise<{ op?: SyncRecord; next?: string }> {
    const result = await syncLock(ref, async () => {
      const op = await getOp(ref, opId);
      if (!op || TERMINAL.includes(op.status)) {
        if (ops.length) await deps.store.batch(ops);
        return {};
      }
      const done: SyncRecord = { ...op, ...patch, phase: 'done', updatedAt: core.now() };
      const state = (await states.get(userKey(ref))) ?? {};
      const next: SyncUserState = { ...state, activeSyncId: state.followUpSyncId };
      delete next.followUpSyncId;
      if (done.status === 'completed' && done.credentialId) next.lastCredentialId = done.credentialId;
      const prepared = events ? await prepareEvents(deps, events(done)) : undefined;
      await deps.store.batch([
        ...ops,
        { type: 'put', collection: SYNC_OPERATIONS, key: syncOperationKey(done), value: done },
        { type: 'put', collection: COLLECTIONS.userState, key: userKey(ref), value: next },
        ...(prepared?.ops ?? []),
      ]);
      return { op: done, next: next.activeSyncId, prepared };
    });
    await result.prepared?.commit();
    return { op: result.op, next: result.next };
  }

  /**
   * An operation ended without completing: its threads still open are abandoned (a late answer is
   * then out of order) and its messages still queued for pickup are removed.
   */
  async function withdraw(op: SyncRecord): Promise<void> {
    const thids = [op.authThid, op.issueThid].filter((t): t is string => typeof t === 'string');
    if (thids.length === 0) return;
    const peers = new Set<string>();
    for (const thid of thids) {
      await core.lock(`thread:${thid}`, async () => {
        const t = await threads.get(thid);
        if (!t) return;
        peers.add(t.peerLong);
        if (t.state !== 'done' && t.state !== 'abandoned') await threads.put({ ...t, state: 'abandoned' });
      });
    }
    if (op.cptyDID) peers.add(op.cptyDID);
    let removed = 0;
    for (const peer of peers) {
      const stale = (await queue.list(peer)).filter((e) => e.thid !== undefined && thids.includes(e.thid));
      if (stale.length) removed += await queue.remove(peer, stale.map((e) => e.id));
    }
    if (removed) core.events.emit('sync-withdrawn', { operationId: op.id, tenantId: op.tenantId, userId: op.userId, removed });
  }

  function kickLater(ref: UserRef, opId: string | undefined): void {
    if (opId) core.background(`sync ${opId}`, () => kick(ref, opId));
  }

  async function fail(ref: UserRef, opId: string, failure: IssueFailure | 'session_not_established' | 'authentication_failed' | 'timeout', detail: string, issueThid?: string): Promise<void> {
    const status: SyncStatus = failure === 'declined' ? 'aborted' : 'failed';
    // The failure and its webhook events in one batch (the outbox: a crash cannot keep one without the other).
    const { op, next } = await finish(ref, opId, { status, error: `${failure}: ${detail}` }, (done) => [
      ...(issueThid ? [issuanceEventOf(done, 'CREDENTIAL_ISSUANCE_FAILED', issueThid, { reason: failure })] : []),
      syncEventOf(done, status === 'aborted' ? 'DATA_SYNC_ABORTED' : 'DATA_SYNC_FAILED'),
    ]);
    if (!op) return;
    // In the background: fail() may run inside a thread's lock (a refused credential application),
    // and withdraw() takes the thread locks itself.
    core.background(`withdraw sync ${op.id}`, () => withdraw(op));
    core.events.emit(status === 'aborted' ? 'sync-aborted' : 'sync-failed', { operationId: op.id, tenantId: op.tenantId, userId: op.userId, reason: failure, detail });
    kickLater(ref, next);
  }

  /** Sends the DID-auth request of a queued operation. */
  async function kick(ref: UserRef, opId: string): Promise<void> {
    await pipes.settled(ref);
    // A user whose record lost the session the agent holds is linked again before the sync needs it.
    if ((await deps.users.get(ref))?.isSessionEstablished === false) await reconcileSession(ref);
    const prepared = await syncLock(ref, async () => {
      const op = await getOp(ref, opId);
      if (!op || op.status !== 'queued') return undefined;
      const user = await deps.users.get(ref);
      const pipe = await pipes.get(ref);
      if (!user?.isSessionEstablished || !pipe || pipe.closedAt) return { op, missing: true as const };
      const thid = deps.ids();
      const challenge = deps.ids();
      const definitionId = deps.ids();
      const message = buildRequestPresentation(
        { id: thid, from: deps.serviceDid, to: pipe.shortDid, pthid: pipe.thid, challenge, domain: deps.serviceDid, definitionId },
        md(),
      );
      const now = core.now();
      const thread = sent(PRESENT_PROOF_VERIFIER, {
        thid, protocol: PRESENT_PROOF_PIURI, role: 'verifier', state: 'start', peer: pipe.did, pthid: pipe.thid, messages: [],
        kind: 'auth' as const, owner: { kind: 'sync' as const, syncId: op.id }, tenantId: ref.tenantId, userId: ref.userId,
        peerLong: pipe.did, challenge, domain: deps.serviceDid, definitionId, createdAt: now, updatedAt: now,
      }, message);
      const started: SyncRecord = { ...op, status: 'started', phase: 'authenticating', authThid: thid, cptyDID: user.userDID ?? pipe.did, updatedAt: now };
      // The thread, the operation, DATA_SYNC_STARTED (the outbox) and the request: one step, one batch.
      const events = await prepareEvents(deps, [syncEventOf(started, 'DATA_SYNC_STARTED')]);
      const prepared = await core.prepare(message, pipe.shortDid, [
        { type: 'put', collection: COLLECTIONS.threads, key: thid, value: storedThread(thread) },
        { type: 'put', collection: SYNC_OPERATIONS, key: syncOperationKey(started), value: started },
        ...events.ops,
      ]);
      return { op: started, prepared, events };
    });
    if (!prepared) return;
    if ('missing' in prepared) return fail(ref, opId, 'session_not_established', 'the user has no established Data Pipe');
    await prepared.events.commit();
    core.events.emit('sync-started', { operationId: prepared.op.id, tenantId: ref.tenantId, userId: ref.userId, authThid: prepared.op.authThid });
    await prepared.prepared.deliver();
  }

  async function startIssue(ref: UserRef, opId: string): Promise<void> {
    const prepared = await syncLock(ref, async () => {
      const op = await getOp(ref, opId);
      if (!op || op.status !== 'started' || op.phase !== 'authenticating') return undefined;
      const user = await deps.users.require(ref);
      const pipe = await pipes.get(ref);
      if (!pipe || pipe.closedAt) return { missing: true as const };
      // From here its datapoints are taken: a request meanwhile gets a follow-up (requestSync).
      offering.add(op.id);
      // Stored with the offer (offerFor): the datapoints as they are now are what is offered.
      return { op: { ...op, phase: 'issuing' as const, datapoints: { ...user.datapoints } } };
    });
    if (!prepared) return;
    if ('missing' in prepared) return fail(ref, opId, 'session_not_established', 'the Data Pipe was closed');
    try {
      await offerFor(ref, prepared.op);
    } finally {
      offering.delete(opId);
    }
  }

  /** Makes (or, after a restart that lost it before it was recorded, makes again) the operation's offer. */
  async function offerFor(ref: UserRef, op: SyncRecord): Promise<void> {
    const pipe = await pipes.get(ref);
    if (!pipe || pipe.closedAt) return fail(ref, op.id, 'session_not_established', 'the Data Pipe was closed');
    const state = (await states.get(userKey(ref))) ?? {};
    await issue.offer({
      owner: { kind: 'sync', syncId: op.id },
      tenantId: op.tenantId,
      userId: op.userId,
      peerLong: pipe.did,
      to: pipe.shortDid,
      datapoints: op.datapoints ?? {},
      pthid: pipe.thid,
      ...(state.lastCredentialId ? { replacementId: state.lastCredentialId } : {}),
      step: async (thread, write) => {
        // The operation issuing on this thread, CREDENTIAL_ISSUANCE_PENDING (the outbox), the
        // thread and the offer: one step, one batch.
        const events = await syncLock(ref, async () => {
          const current = await getOp(ref, op.id);
          if (!current || current.status !== 'started') return undefined;
          // Another offer of this operation is already out (a second start raced this one).
          if (current.phase === 'issuing' && current.issueThid && current.issueThid !== thread.thid && (await threads.get(current.issueThid))?.state !== 'abandoned') return undefined;
          const next: SyncRecord = { ...current, phase: 'issuing', datapoints: op.datapoints ?? current.datapoints ?? {}, issueThid: thread.thid, updatedAt: core.now() };
          const events = await prepareEvents(deps, [issuanceEventOf(op, 'CREDENTIAL_ISSUANCE_PENDING', thread.thid)]);
          await write([{ type: 'put', collection: SYNC_OPERATIONS, key: syncOperationKey(next), value: next }, ...events.ops]);
          return events;
        });
        await events?.commit();
      },
    });
  }

  const timeoutMs = () => core.options.syncTimeoutMs ?? DEFAULT_SYNC_TIMEOUT_MS;
  const stallMs = () => Math.min(core.options.syncStallMs ?? DEFAULT_SYNC_STALL_MS, timeoutMs());

  /** When the operation last moved: its own record, or a message on its current thread. */
  async function progressAt(op: SyncRecord): Promise<number> {
    let at = Date.parse(op.updatedAt);
    const thid = op.phase === 'issuing' ? op.issueThid : op.authThid;
    const thread = thid ? await threads.get(thid) : undefined;
    if (thread) at = Math.max(at, Date.parse(thread.updatedAt));
    return at;
  }

  /** A thread we opened whose first message never reached the durable-steps engine (resend.ts). */
  async function unsent(thread: DcThread): Promise<boolean> {
    const r = await core.router.steps()?.get(thread.thid);
    return thread.state !== 'done' && thread.state !== 'abandoned' && !r?.out && !r?.lastIn;
  }

  /** Where a running operation stands after a restart, and what continues it. */
  async function resumeOp(ref: UserRef, op: SyncRecord): Promise<void> {
    if (op.status === 'queued') return kick(ref, op.id);
    if (op.status !== 'started') return;
    if (op.phase === 'authenticating') {
      const thread = op.authThid ? await threads.get(op.authThid) : undefined;
      // Authenticated (the ack went out) but the offer was never made: make it now.
      if (thread?.state === 'done') return startIssue(ref, op.id);
      if (!thread || thread.state === 'abandoned') return fail(ref, op.id, 'authentication_failed', 'the DID authentication thread ended without an answer');
      if (await unsent(thread)) {
        // Stored but never sent (the process stopped in between): ask again on a new thread.
        await threads.put({ ...thread, state: 'abandoned' });
        await syncLock(ref, async () => putOp({ ...op, status: 'queued', phase: 'queued' }));
        return kick(ref, op.id);
      }
      return; // open: its last message is sent again (resend.ts)
    }
    if (op.phase === 'issuing') {
      const thread = op.issueThid ? await threads.get(op.issueThid) : undefined;
      // The wallet acknowledged the credential (thread done) but the process stopped before the
      // completion was stored: complete it now (its webhooks go out with it).
      if (thread?.state === 'done' && thread.owner.kind === 'sync') return owner.completed(thread);
      if (thread?.state === 'abandoned') return fail(ref, op.id, 'other', 'the issuance thread ended', thread.thid);
      if (!thread) return offerFor(ref, op);
      if (await unsent(thread)) {
        await threads.put({ ...thread, state: 'abandoned' });
        return offerFor(ref, op);
      }
    }
  }

  /**
   * The holder acknowledged the credential of a sync that had failed meanwhile (timed out,
   * superseded, unanswered): it completed after all. The operation, its events (they follow the
   * DATA_SYNC_FAILED sent before) and the thread done: one batch. The user's synced datapoints and
   * last credential become this sync's unless a later sync of theirs completed already.
   */
  async function completedLate(ref: UserRef, failed: SyncRecord, thread: DcThread, ops: BatchOp[]): Promise<void> {
    const later = (await listSyncOperations(deps.store, ref)).some((o) => o.status === 'completed' && o.id !== failed.id && o.createdAt > failed.createdAt);
    if (!later) await deps.users.markSynced(ref, failed.datapoints ?? thread.datapoints ?? {});
    const done = await syncLock(ref, async () => {
      const op = await getOp(ref, failed.id);
      if (!op || op.status !== 'failed') {
        await deps.store.batch(ops);
        return undefined;
      }
      const { error: _error, ...rest } = op;
      const completed: SyncRecord = { ...rest, status: 'completed', phase: 'done', ...(thread.credentialId ? { credentialId: thread.credentialId } : {}), updatedAt: core.now() };
      const state = (await states.get(userKey(ref))) ?? {};
      const events = await prepareEvents(deps, [
        issuanceEventOf(completed, 'CREDENTIAL_ISSUANCE_COMPLETED', thread.thid, { credentialId: thread.credentialId }),
        syncEventOf(completed, 'DATA_SYNC_COMPLETED'),
      ]);
      await deps.store.batch([
        ...ops,
        { type: 'put', collection: SYNC_OPERATIONS, key: syncOperationKey(completed), value: completed },
        ...(!later && thread.credentialId ? [{ type: 'put' as const, collection: COLLECTIONS.userState, key: userKey(ref), value: { ...state, lastCredentialId: thread.credentialId } }] : []),
        ...events.ops,
      ]);
      return { completed, events };
    });
    if (!done) return;
    await done.events.commit();
    core.events.emit('sync-completed', { operationId: done.completed.id, tenantId: ref.tenantId, userId: ref.userId, credentialId: thread.credentialId, issueThid: thread.thid, late: true });
  }

  const refOf = (t: DcThread): UserRef => ({ tenantId: t.tenantId, userId: t.userId ?? '' });
  const syncIdOf = (t: DcThread): string => (t.owner.kind === 'sync' ? t.owner.syncId : '');

  const owner: IssueOwner = {
    async completed(thread, ops = []) {
      const ref = refOf(thread);
      const current = await getOp(ref, syncIdOf(thread));
      // The ack proves the holder has the credential: a sync failed meanwhile completes after all.
      if (current && current.status === 'failed') return completedLate(ref, current, thread, ops);
      if (!current || TERMINAL.includes(current.status)) {
        if (ops.length) await deps.store.batch(ops);
        return;
      }
      // The holder acknowledged the credential of this session: the user's record follows it.
      if (thread.pthid) await pipes.reconcile(ref, { did: thread.peerLong, thid: thread.pthid });
      // docs/protocols.md "Sync": on the holder's ack, datapointsSynced = the datapoints offered,
      // isLinked = true. Stored first (idempotent): the completion below (operation, user state
      // and both webhook events in one batch) is what resume() redoes when a crash came between.
      await deps.users.markSynced(ref, current.datapoints ?? thread.datapoints ?? {});
      const { op, next } = await finish(ref, current.id, { status: 'completed', ...(thread.credentialId ? { credentialId: thread.credentialId } : {}) }, (done) => [
        issuanceEventOf(done, 'CREDENTIAL_ISSUANCE_COMPLETED', thread.thid, { credentialId: thread.credentialId }),
        syncEventOf(done, 'DATA_SYNC_COMPLETED'),
      ], ops);
      if (!op) return;
      core.events.emit('sync-completed', { operationId: op.id, tenantId: op.tenantId, userId: op.userId, credentialId: thread.credentialId, issueThid: thread.thid });
      kickLater(ref, next);
    },
    async failed(thread, failure, detail) {
      await fail(refOf(thread), syncIdOf(thread), failure, detail, thread.thid);
    },
  };

  async function reconcileSession(ref: UserRef): Promise<boolean> {
    const pipe = await pipes.get(ref);
    if (pipe) return !pipe.closedAt && pipes.reconcile(ref, { did: pipe.did, thid: pipe.thid, invitationId: pipe.invitationId });
    // No pipe record: the newest sync whose DID authentication was answered on the pipe's thread.
    for (const op of (await listSyncOperations(deps.store, ref)).reverse() as SyncRecord[]) {
      const auth = op.authThid ? await threads.get(op.authThid) : undefined;
      if (auth && auth.pthid && auth.challengeUsed && auth.state === 'done') return pipes.reconcile(ref, { did: auth.peerLong, thid: auth.pthid });
    }
    return false;
  }

  return {
    owner,
    reconcileSession,
    async requestSync(user, reason) {
      const now = deps.clock.now();
      // Read outside the lock: when the running sync last moved (its threads count).
      const pre = (await states.get(userKey(user)))?.activeSyncId;
      const preOp = pre ? await getOp(user, pre) : undefined;
      const idle = preOp && !TERMINAL.includes(preOp.status) ? now - (await progressAt(preOp)) : 0;
      const { operationId, start, expired } = await syncLock(user, async () => {
        let state = (await states.get(userKey(user))) ?? {};
        const active = state.activeSyncId ? await getOp(user, state.activeSyncId) : undefined;
        let running = !!active && !TERMINAL.includes(active.status);
        // A running sync that has not moved for syncStallMs is superseded by this request (and one
        // silent for syncTimeoutMs has timed out): it ends as failed and this one starts at once, so
        // one stuck operation never swallows later requests.
        let expired: SyncRecord | undefined;
        if (active && running && active.id === preOp?.id && idle >= stallMs()) {
          const why = idle >= timeoutMs() ? 'timeout: the wallet did not answer' : 'superseded: a new sync was requested while this one was stuck';
          expired = { ...active, status: 'failed', phase: 'done', error: why, updatedAt: core.now() };
          state = { ...state, activeSyncId: state.followUpSyncId };
          delete state.followUpSyncId;
          const prepared = await prepareEvents(deps, [syncEventOf(expired, 'DATA_SYNC_FAILED')]);
          await deps.store.batch([
            { type: 'put', collection: SYNC_OPERATIONS, key: syncOperationKey(expired), value: expired },
            { type: 'put', collection: COLLECTIONS.userState, key: userKey(user), value: state },
            ...prepared.ops,
          ]);
          await prepared.commit();
          if (state.activeSyncId) return { operationId: state.activeSyncId, start: true, expired };
          running = false;
        }
        if (state.followUpSyncId) return { operationId: state.followUpSyncId, start: false, expired };
        // A request joins a running sync only while that sync has not taken its datapoints: its
        // offer, made from them, is then still to come. One whose offer is being made (its phase
        // still 'authenticating' in the store until the offer is) gets a follow-up.
        if (active && running && (active.phase === 'queued' || (active.phase === 'authenticating' && !offering.has(active.id)))) return { operationId: active.id, start: false, expired };
        const op = newOp(user, reason);
        const next: SyncUserState = running ? { ...state, followUpSyncId: op.id } : { ...state, activeSyncId: op.id };
        // Durable before the caller answers 202.
        await deps.store.batch([
          { type: 'put', collection: SYNC_OPERATIONS, key: syncOperationKey(op), value: op },
          { type: 'put', collection: COLLECTIONS.userState, key: userKey(user), value: next },
        ]);
        return { operationId: op.id, start: !running, expired };
      });
      if (expired) {
        await withdraw(expired);
        const why = expired.error?.startsWith('timeout') ? 'timeout' : 'superseded';
        core.events.emit('sync-failed', { operationId: expired.id, tenantId: expired.tenantId, userId: expired.userId, reason: why, detail: expired.error });
      }
      if (start) kickLater(user, operationId);
      core.events.emit('sync-requested', { ...user, operationId, reason, started: start });
      return { operationId };
    },

    async onPresentation(ctx, parsed) {
      type Outcome = { thread: DcThread; error: Error } | { thread: DcThread; ack: { deliver(): Promise<unknown> } };
      const outcome = await core.lock(`thread:${parsed.thid}`, async (): Promise<Outcome> => {
        const thread = (await threads.advance(PRESENT_PROOF_VERIFIER, ctx.message, ctx.sender)) as DcThread;
        try {
          await verifyDidAuth({ challenge: thread.challenge, domain: thread.domain, definitionId: thread.definitionId ?? '' }, parsed, {
            resolve: core.envelope.resolve,
            expectedHolder: thread.peerLong,
          });
        } catch (err) {
          // The challenge is spent either way; the sync fails (docs/protocols.md "Sync" step 1).
          await threads.put({ ...thread, state: 'abandoned', challengeUsed: true });
          return { error: err as Error, thread };
        }
        const ack = buildPresentationAck({ from: deps.serviceDid, to: ctx.sender, thid: thread.thid, status: 'OK' }, md());
        const next = sent(PRESENT_PROOF_VERIFIER, { ...thread, challengeUsed: true }, ack);
        // The thread and its ack: one step, one batch.
        return { ack: await ctx.prepareReply(ack, { ops: [threads.putOp(next)] }), thread: next };
      });
      const ref = refOf(outcome.thread);
      if ('error' in outcome) {
        await fail(ref, syncIdOf(outcome.thread), 'authentication_failed', outcome.error.message);
        throw outcome.error;
      }
      await outcome.ack.deliver();
      // The wallet proved the session (its DID answered the challenge on a thread of the pipe).
      if (outcome.thread.pthid) await pipes.reconcile(ref, { did: outcome.thread.peerLong, thid: outcome.thread.pthid });
      await deps.users.recordLogin(ref);
      await startIssue(ref, syncIdOf(outcome.thread));
    },

    async authAbandoned(thread, failure, detail) {
      await threads.put({ ...thread, state: 'abandoned' });
      await fail(refOf(thread), syncIdOf(thread), failure === 'other' ? 'authentication_failed' : failure, detail);
    },

    async resume() {
      // Every state resumes: queued ones start, authenticated ones get their offer, acknowledged
      // ones complete, open threads are continued by their resent messages (resend.ts).
      for (const { key, value } of await states.list()) {
        if (!value.activeSyncId) continue;
        const [tenantId, userId] = key.split('/');
        const ref = { tenantId, userId };
        const op = await getOp(ref, value.activeSyncId);
        if (op && !TERMINAL.includes(op.status)) core.background(`resume sync ${op.id}`, () => resumeOp(ref, op));
      }
    },

    async sweep() {
      const now = deps.clock.now();
      let failed = 0;
      for (const { key, value } of await states.list()) {
        if (!value.activeSyncId) continue;
        const [tenantId, userId] = key.split('/');
        const ref = { tenantId, userId };
        const op = await getOp(ref, value.activeSyncId);
        if (!op || TERMINAL.includes(op.status)) continue;
        if (now - (await progressAt(op)) < timeoutMs()) continue;
        await fail(ref, op.id, 'timeout', `no progress for ${Math.round(timeoutMs() / 1000)} s`, op.issueThid);
        failed++;
      }
      return failed;
    },
  };
}
