// The service's Data Pipe 1.0 responder (docs/protocols.md "Data Pipe 1.0"): a wallet answers
// a user's invitation (pthid = invitation id) with an authcrypted `request` from its long-form
// did:ion or did:peer:4; the service records short → long in its DID registry (a did:peer:4 short
// form resolves only so: DID Peer §Method 4 "Short form"), links the wallet to the user
// (userDID, shortUserDID, isSessionEstablished; users.linkWallet fires DATA_PIPE_ESTABLISHED
// and starts an owed sync) and answers `established`. A repeat from the same DID is answered
// again; another DID for a linked user is refused.
import { shortForm } from '../../did/short-form.js';
import { buildEstablished, buildDataPipeClose, dataPipeProtocol, type ParsedDataPipeRequest } from '../../protocols/data-pipe.js';
import { protocolError } from '../../protocols/protocol-kit.js';
import type { HandlerContext, ProtocolModule } from '../../router/router.js';
import { sameDid } from '../../didcomm/message.js';
import { findInvitation } from '../users/invitations.js';
import type { UserRef } from '../users/users.js';
import { COLLECTIONS } from './collections.js';
import type { AgentCore } from './core.js';
import { userKey } from '../users/users.js';
import type { BatchOp } from '../../store/store.js';

/** One user's Data Pipe as the service knows it. */
export interface PipeRecord extends UserRef {
  /** The thread of the wallet's first request (pthid of sync issuance threads). */
  thid: string;
  invitationId: string;
  /** The wallet DID, long form, and its short form (what later messages are addressed to). */
  did: string;
  shortDid: string;
  establishedAt: string;
  closedAt?: string;
  closeReason?: string;
}

export interface DataPipeResponder {
  protocol: ProtocolModule;
  get(ref: UserRef): Promise<PipeRecord | undefined>;
  /** Resolves once a Data Pipe being established for `ref` has answered `established` (so a sync it starts comes after). */
  settled(ref: UserRef): Promise<void>;
  /** The service closes a user's pipe (sends `close`). */
  close(ref: UserRef, reason?: string): Promise<void>;
  /**
   * The service's view of a user's Data Pipe is never behind the wallet's: when the wallet proves
   * the session (its DID authenticated a message on a thread of it, or the pipe record names it)
   * while the user's record has lost the link, the link is stored again (with its pipe and the
   * DID's long form). Resolves true when the user is linked to `did` now; false when the user is
   * linked to another DID or the pipe was closed.
   */
  reconcile(ref: UserRef, evidence: { did: string; thid?: string; invitationId?: string }): Promise<boolean>;
}

/**
 * A pipe's key in the thread index: its thread and the short form of the wallet's DID. A pipe
 * recorded before a did:peer:4's forms were one DID names its long form as `shortDid` and is indexed
 * under it; the first close the index cannot answer indexes every pipe again under this key
 * (pipeOn), so no separate move is needed.
 */
const threadKey = (thid: string, did: string) => `${thid}\u0000${shortForm(did)}`;

/** The registry write that lets the short form of `long` resolve later (DID Peer §Method 4 "Short form"); none when `long` is no long form. */
const learnt = (core: AgentCore, long: string, short: string): BatchOp[] => (long !== short ? [core.registry.putOp(short, long)] : []);

export function dataPipeResponder(core: AgentCore): DataPipeResponder {
  const { deps } = core;
  const pipes = deps.store.collection<PipeRecord>(COLLECTIONS.pipes);
  const byThread = deps.store.collection<string>(COLLECTIONS.pipesByThread);
  const gates = new Map<string, Promise<void>>();
  /** Whether this process has indexed the pipes a store written before the index held (once, at the first close it could not find). */
  let indexedOlder = false;

  /** The index entry of `pipe`, written in the same batch as the pipe. */
  const threadOp = (pipe: PipeRecord, key: string): BatchOp => ({ type: 'put', collection: COLLECTIONS.pipesByThread, key: threadKey(pipe.thid, pipe.shortDid), value: key });
  /** Writes `pipe` under `key` in place of `before`, with its index entry (and without the one `before` had). */
  const pipeOps = (pipe: PipeRecord, key: string, before: PipeRecord | undefined): BatchOp[] => [
    { type: 'put', collection: COLLECTIONS.pipes, key, value: pipe },
    threadOp(pipe, key),
    ...(before && threadKey(before.thid, before.shortDid) !== threadKey(pipe.thid, pipe.shortDid)
      ? [{ type: 'del' as const, collection: COLLECTIONS.pipesByThread, key: threadKey(before.thid, before.shortDid) }]
      : []),
  ];

  /** The pipe on thread `thid` linked to `did` (a wallet's close names only these two): one read of the index, one of the pipe. */
  async function pipeOn(thid: string, did: string): Promise<{ key: string; value: PipeRecord } | undefined> {
    const find = async () => {
      const key = await byThread.get(threadKey(thid, did));
      const value = key === undefined ? undefined : await pipes.get(key);
      return key !== undefined && value && value.thid === thid && sameDid(did, value.did) ? { key, value } : undefined;
    };
    const found = await find();
    if (found || indexedOlder) return found;
    // A store from before the index: its pipes are indexed once, then every lookup is by key.
    const all = await pipes.list();
    await deps.store.batch(all.map((e) => threadOp(e.value, e.key)));
    indexedOlder = true;
    return find();
  }

  /**
   * Links the wallet that asked and stores the answer: the DID registry entry, the pipe, the user's
   * link and its DATA_PIPE_ESTABLISHED event and the `established` message, one step, one batch.
   */
  async function link(ctx: HandlerContext, parsed: ParsedDataPipeRequest, ref: UserRef): Promise<{ pipe: PipeRecord; linked: boolean; answer: { deliver(): Promise<unknown> } }> {
    const long = parsed.from;
    const short = shortForm(long);
    return core.lock(`pipe:${userKey(ref)}`, async () => {
      const user = await deps.users.get(ref);
      if (!user) throw protocolError('data_pipe_invitation_unknown', 'the invitation names a user that no longer exists');
      // A user is linked to one wallet (docs/protocols.md: from a different DID it is refused).
      if (user.isSessionEstablished && user.shortUserDID && shortForm(user.shortUserDID) !== short) {
        throw protocolError('data_pipe_already_linked', 'the user is already linked to another DID');
      }
      const ops: BatchOp[] = learnt(core, long, short);
      const existing = await pipes.get(userKey(ref));
      const kept = existing && shortForm(existing.shortDid) === short && !existing.closedAt ? existing : undefined;
      // A pipe recorded before a did:peer:4's forms were one DID names its long form as shortDid:
      // written again with the short form, which the wallet checks `established` against.
      const pipe: PipeRecord = kept
        ? kept.shortDid === short
          ? kept
          : { ...kept, shortDid: short }
        : { ...ref, thid: parsed.thid, invitationId: parsed.invitationId, did: long, shortDid: short, establishedAt: core.now() };
      if (pipe !== existing) ops.push(...pipeOps(pipe, userKey(ref), existing));
      const linked = !user.isSessionEstablished || user.shortUserDID === undefined || shortForm(user.shortUserDID) !== short;
      const established = buildEstablished(
        { from: deps.serviceDid, to: parsed.from, thid: parsed.thid, did: pipe.did, shortDid: pipe.shortDid, establishedAt: pipe.establishedAt },
        { clock: deps.clock, ids: deps.ids },
      );
      let answer: { deliver(): Promise<unknown> } | undefined;
      const write = async (more: BatchOp[]) => {
        answer = await ctx.prepareReply(established, { ops: [...ops, ...more] });
      };
      // Durable before we answer; a sync owed since a datapoints update starts from here (agent.requestSync).
      // `thid` (and the invitation id) go into DATA_PIPE_ESTABLISHED's params (docs/protocols.md).
      if (linked) await deps.users.linkWallet(ref, { longDid: long, shortDid: short, thid: pipe.thid, invitationId: pipe.invitationId }, write);
      else await write([]);
      return { pipe, linked, answer: answer! };
    });
  }

  async function onRequest(ctx: HandlerContext, parsed: ParsedDataPipeRequest): Promise<void> {
    const invitation = await findInvitation(deps, parsed.invitationId);
    if (!invitation) throw protocolError('data_pipe_invitation_unknown', `no invitation ${parsed.invitationId} of ours`);
    // DIDComm v2 §Message Headers expires_time (seconds), or the agent's configured lifetime.
    const now = deps.clock.now();
    const expiresAt = invitation.invitation.expires_time !== undefined ? invitation.invitation.expires_time * 1000 : undefined;
    const ttl = core.options.invitationTtlMs ?? deps.invitationTtlMs;
    if ((expiresAt !== undefined && expiresAt <= now) || (ttl !== undefined && Date.parse(invitation.createdAt) + ttl <= now)) {
      throw protocolError('data_pipe_invitation_expired', 'the invitation is past its lifetime');
    }
    const ref: UserRef = { tenantId: invitation.tenantId, userId: invitation.userId };
    const key = userKey(ref);
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    gates.set(key, gate);
    try {
      const { pipe, linked, answer } = await link(ctx, parsed, ref);
      await answer.deliver();
      core.events.emit('data-pipe-established', { ...ref, thid: parsed.thid, did: pipe.did, shortDid: pipe.shortDid, repeated: !linked });
    } finally {
      if (gates.get(key) === gate) gates.delete(key);
      release();
    }
  }

  const protocol = dataPipeProtocol(
    {
      request: onRequest,
      close: async (ctx, parsed) => {
        // Only the linked wallet may close its own pipe.
        const entry = ctx.sender === undefined ? undefined : await pipeOn(parsed.thid, ctx.sender);
        if (!entry) throw protocolError('unknown_thread', `no data pipe ${parsed.thid.slice(0, 200)} with this DID`);
        // The pipe and the user's session end in one write: the user's isSessionEstablished is
        // true only while the pipe is established (docs/protocols.md "States"), so that a new
        // invitation can link a wallet again and a sync is refused until then.
        const closed: PipeRecord = { ...entry.value, closedAt: core.now(), ...(parsed.reason ? { closeReason: parsed.reason } : {}) };
        const ref = { tenantId: entry.value.tenantId, userId: entry.value.userId };
        await deps.users.endSession(ref, entry.value.shortDid, (ops) => deps.store.batch([{ type: 'put', collection: COLLECTIONS.pipes, key: entry.key, value: closed }, ...ops]));
        core.events.emit('data-pipe-closed', { ...ref, thid: parsed.thid, by: 'wallet' });
      },
    },
    ['responder'],
  );

  async function reconcile(ref: UserRef, evidence: { did: string; thid?: string; invitationId?: string }): Promise<boolean> {
    const user = await deps.users.get(ref);
    if (!user) return false;
    if (user.isSessionEstablished) return sameDid(user.shortUserDID, evidence.did);
    const linked = await core.lock(`pipe:${userKey(ref)}`, async () => {
      const fresh = await deps.users.get(ref);
      if (!fresh || (fresh.isSessionEstablished && !sameDid(fresh.shortUserDID, evidence.did))) return false;
      if (fresh.isSessionEstablished) return true;
      const existing = await pipes.get(userKey(ref));
      if (existing?.closedAt && sameDid(existing.did, evidence.did)) return false;
      const long = existing && sameDid(existing.did, evidence.did) ? existing.did : ((await core.registry.get(evidence.did)) ?? evidence.did);
      const thid = existing?.thid ?? evidence.thid;
      if (!thid) return false;
      const short = shortForm(long);
      const pipe: PipeRecord = existing && sameDid(existing.did, long)
        ? existing
        : { ...ref, thid, invitationId: evidence.invitationId ?? existing?.invitationId ?? thid, did: long, shortDid: short, establishedAt: core.now() };
      const ops: BatchOp[] = [
        ...learnt(core, long, short),
        ...(pipe !== existing ? pipeOps(pipe, userKey(ref), existing) : []),
      ];
      await deps.users.linkWallet(ref, { longDid: long, shortDid: short, thid: pipe.thid, invitationId: pipe.invitationId }, (more) => deps.store.batch([...ops, ...more]));
      return true;
    });
    if (linked) core.events.emit('data-pipe-reconciled', { ...ref, did: evidence.did });
    return linked;
  }

  return {
    protocol,
    reconcile,
    get: (ref) => pipes.get(userKey(ref)),
    settled: (ref) => gates.get(userKey(ref)) ?? Promise.resolve(),
    async close(ref, reason) {
      const pipe = await pipes.get(userKey(ref));
      if (!pipe || pipe.closedAt) return;
      const closed: PipeRecord = { ...pipe, closedAt: core.now(), ...(reason ? { closeReason: reason } : {}) };
      await deps.users.endSession(ref, pipe.shortDid, (ops) => deps.store.batch([{ type: 'put', collection: COLLECTIONS.pipes, key: userKey(ref), value: closed }, ...ops]));
      await core.send(buildDataPipeClose({ from: deps.serviceDid, to: pipe.shortDid, thid: pipe.thid, ...(reason ? { reason } : {}) }, { clock: deps.clock, ids: deps.ids }), pipe.shortDid);
    },
  };
}
