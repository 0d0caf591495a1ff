// The wallet's side of Data Pipe 1.0 (docs/protocols.md "Data Pipe 1.0"): accepting an invitation
// sends an authcrypted `request` from the long-form DID; `established` links the wallet, after
// which it writes its short form (context.ts fromFor). Wallet states:
// invitation-received → request-sent → established → closed.
import { isoNow } from '../clock.js';
import type { HandlerContext, ProtocolModule } from '../router/router.js';
import { sameDid } from '../didcomm/message.js';
import {
  buildDataPipeRequest, dataPipeProtocol, DATA_PIPE_WALLET, type ParsedEstablished,
} from '../protocols/data-pipe.js';
import type { Invitation } from '../protocols/out-of-band.js';
import { protocolError } from '../protocols/protocol-kit.js';
import { problemEndsThread } from '../protocols/thread-state.js';
import type { ConnectionRecord } from '../store/connections.js';
import { IdsyncError } from '../errors.js';
import { type WalletContext } from './context.js';
import { waitForEvent } from './events.js';
import { receiveStep, sendStep } from './thread-steps.js';
import type { BatchOp } from '../store/store.js';
import { stopWaits } from '../wait.js';

/** What the wallet keeps on a Data Pipe connection (ConnectionRecord.meta). */
export interface DataPipeMeta {
  /** The request's id: the Data Pipe thread. */
  thid: string;
  /** The short DID the service confirmed in `established`. */
  shortDid?: string;
  /** The long form the service linked. */
  linkedDid?: string;
  establishedAt?: string;
  /** The problem code when the service refused. */
  problemCode?: string;
  closeReason?: string;
}

export interface DataPipeRequested {
  thid: string;
  /** The connection as recorded when the request went out ('requested'). */
  connection: ConnectionRecord;
  /** Resolves with the connection in state 'established'; rejects with 'problem_reported' when refused. */
  established: Promise<ConnectionRecord>;
}

/**
 * Sends the Data Pipe `request` for `invitation` (the user's consent) and records the connection
 * as 'requested'. Resolves once sent; `established` may already have come back on the return route.
 */
export async function requestDataPipe(ctx: WalletContext, invitation: Invitation, options: { label?: string; timeoutMs?: number } = {}): Promise<DataPipeRequested> {
  const now = isoNow(ctx.clock);
  // docs/protocols.md: the request MUST come from the long form, authcrypted.
  const request = buildDataPipeRequest(
    { from: ctx.identity.did, to: invitation.from, invitationId: invitation.id, consentAt: now, label: options.label },
    { clock: ctx.clock, ids: ctx.ids },
  );
  const connection: ConnectionRecord = {
    id: request.id,
    theirDid: invitation.from,
    myDid: ctx.identity.did,
    state: 'requested',
    createdAt: now,
    updatedAt: now,
    invitationId: invitation.id,
    meta: { thid: request.id } satisfies DataPipeMeta as unknown as Record<string, unknown>,
  };
  // Listen before sending: the answer may be return-routed and handled inside the send.
  const established = settleOnThread(ctx, request.id, options.timeoutMs);
  try {
    // The connection, the thread and the request: one step, one write.
    await sendStep(ctx, DATA_PIPE_WALLET, request, { start: true, data: { invitationId: invitation.id, connectionId: connection.id }, ops: await ctx.connections.putOps(connection) });
  } catch (err) {
    // Stored and then refused for good (the thread was put back), or never stored at all.
    const failed = { ...connection, state: 'failed' as const, updatedAt: isoNow(ctx.clock), meta: { ...connection.meta, error: (err as { code?: string }).code ?? 'send_failed' } };
    await ctx.connections.put(failed);
    throw err;
  }
  return { thid: request.id, connection, established };
}

/** The established connection of thread `thid`, or the problem that refused it. */
function settleOnThread(ctx: WalletContext, thid: string, timeoutMs = 30_000): Promise<ConnectionRecord> {
  const stop = new AbortController();
  const ok = waitForEvent(ctx.events, 'connection-established', (e) => e.connection.id === thid, { timeoutMs, signal: stop.signal });
  // Only a problem that ends the thread refuses it: e.p.msg.duplicate (a retry crossed the first
  // copy) and warnings do not (docs/protocols.md "Durable steps").
  const refused = waitForEvent(ctx.events, 'problem-received', (e) => e.problem.pthid === thid && problemEndsThread({ body: { code: e.problem.code } }), { timeoutMs, signal: stop.signal });
  ok.catch(() => undefined);
  refused.catch(() => undefined);
  const settled = Promise.race([
    ok.then((e) => e.connection),
    refused.then((e) => {
      throw new IdsyncError('problem_reported', `the Data Pipe was refused: ${e.problem.code}`, { details: { problem: e.problem } });
    }),
  ]).finally(() => stopWaits(stop));
  settled.catch(() => undefined);
  return settled;
}

async function onEstablished(ctx: WalletContext, h: HandlerContext, parsed: ParsedEstablished): Promise<void> {
  // The service must confirm the DID that asked, in both forms.
  if (!sameDid(parsed.did, ctx.identity.did) || parsed.shortDid !== ctx.identity.shortDid) {
    throw protocolError('unexpected_message', 'established names another DID than this wallet', { did: parsed.did });
  }
  let connection: ConnectionRecord | undefined;
  // The thread and its connection established: one step, one write.
  const { previous } = await receiveStep(ctx, DATA_PIPE_WALLET, h.message, h.sender, {
    also: async (thread) => {
      const id = String(thread.data.connectionId ?? thread.thid);
      const old = await ctx.connections.get(id);
      const meta: DataPipeMeta = { ...(old?.meta as DataPipeMeta | undefined), thid: thread.thid, shortDid: parsed.shortDid, linkedDid: parsed.did, establishedAt: parsed.establishedAt };
      const u = await ctx.connections.updateOps(id, { state: 'established', meta: meta as unknown as Record<string, unknown> });
      connection = u.connection;
      return u.ops;
    },
  });
  // A repeated `established` (the service's idempotent answer to a retried request) changes nothing.
  if (previous !== 'established' && connection) ctx.events.emit('connection-established', { connection });
}

async function onClose(ctx: WalletContext, h: HandlerContext, reason?: string): Promise<void> {
  await receiveStep(ctx, DATA_PIPE_WALLET, h.message, h.sender, {
    also: async (thread) => {
      const id = String(thread.data.connectionId ?? thread.thid);
      const old = await ctx.connections.get(id);
      return old ? (await ctx.connections.updateOps(id, { state: 'closed', meta: { ...old.meta, ...(reason ? { closeReason: reason } : {}) } })).ops : [];
    },
  });
}

/** A problem report about a Data Pipe thread: the connection is refused (its store writes). */
export async function dataPipeRefusedOps(ctx: WalletContext, connectionId: string, problemCode: string): Promise<BatchOp[]> {
  const old = await ctx.connections.get(connectionId);
  if (!old || old.state === 'established') return [];
  return (await ctx.connections.updateOps(connectionId, { state: 'refused', meta: { ...old.meta, problemCode } })).ops;
}

/** The wallet's Data Pipe module (requester role). */
export function walletDataPipe(ctx: () => WalletContext): ProtocolModule {
  return dataPipeProtocol(
    {
      established: (h, parsed) => onEstablished(ctx(), h, parsed),
      close: (h, parsed) => onClose(ctx(), h, parsed.reason),
    },
    ['requester'],
  );
}
