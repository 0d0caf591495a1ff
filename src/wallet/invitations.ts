// Accepting an out-of-band invitation (DIDComm v2 §Out Of Band Messages) is the user's consent:
// by goal code, it opens a Data Pipe (docs/protocols.md "Data Pipe 1.0") or starts a WACI
// `streamlined-vc` issuance with propose-credential (pthid = the invitation id).
import { describeEpochSeconds } from '../clock.js';
import { checkInvitation, inspectInvitationUrl } from '../conformance/oob-url.js';
import { resolutionError } from '../did/resolver.js';
import { epochSeconds } from '../didcomm/message.js';
import { IdsyncError, problemCodeOf } from '../errors.js';
import { DATA_PIPE_GOAL_CODE } from '../protocols/data-pipe.js';
import { MEDIATE_GOAL_CODE } from '../protocols/coordinate-mediation.js';
import { ISSUE_CREDENTIAL_PIURI, STREAMLINED_VC } from '../protocols/issue-credential.js';
import type { ParsedProblem } from '../protocols/report-problem.js';
import { acceptsDidcommV2, parseInvitationUrl, validateInvitation, type FetchLike, type Invitation } from '../protocols/out-of-band.js';
import type { ConnectionRecord } from '../store/connections.js';
import type { MessageLog } from '../store/messages.js';
import type { WalletContext } from './context.js';
import type { StoredCredential } from './credential-store.js';
import { requestDataPipe } from './data-pipe.js';
import { waitForEvent } from './events.js';
import { proposeCredential } from './issue-credential.js';
import { problemEndsThread } from '../protocols/thread-state.js';
import { didcommEndpoints } from './outbound.js';
import { stopWaits } from '../wait.js';
import { keyedLock } from '../keyed-lock.js';

/**
 * One acceptance of an invitation at a time, per wallet: the look for an earlier thread and the
 * start of a new one are one step, so two acceptances at once (a user's approve racing
 * --auto-accept, two `wallet accept` calls) make one thread, and the second continues it.
 */
const acceptLock = keyedLock();

/**
 * Goal codes that open a Data Pipe. docs/protocols.md names `idsync.data-pipe`; `connect` is the
 * vendor's goal ("Connect", vendor-facts) that the service's invitations used first.
 */
export const DATA_PIPE_GOAL_CODES = [DATA_PIPE_GOAL_CODE, 'connect'];
export const ISSUANCE_GOAL_CODES = [STREAMLINED_VC];

export type Acceptance =
  | { kind: 'data-pipe'; invitation: Invitation; thid: string; connection: ConnectionRecord; resumed?: boolean }
  | { kind: 'issuance'; invitation: Invitation; thid: string; done: Promise<StoredCredential>; resumed?: boolean };
// `resumed`: the invitation was accepted before by this wallet and that acceptance continues.

/** The thread's last message goes out again now (router/steps); a failed send is retried later. */
async function resendNow(ctx: WalletContext, thid: string): Promise<void> {
  await ctx.router.steps()?.resendNow(thid).catch((err: unknown) => ctx.logger('info', 'resend on re-acceptance failed; retried later', { thid, code: (err as IdsyncError).code }));
}

export interface AcceptOptions {
  /** Sent in the data-pipe request body. */
  label?: string;
  /** Guard for `established` / the credential (default 30 s / 120 s). */
  timeoutMs?: number;
  /** Fetches `_oobid` short URLs. */
  fetch?: FetchLike;
}

export interface AcceptDeps {
  log: MessageLog;
  /** Collects queued messages from the peer (wallets without an inbound endpoint). */
  pickup?: (peer: string) => Promise<unknown>;
  canReach: (peer: string) => boolean;
}

async function readInvitation(input: string | Invitation, log: MessageLog, fetchFn?: FetchLike): Promise<Invitation> {
  const fromUrl = typeof input === 'string';
  const invitation = fromUrl ? await parseInvitationUrl(input, fetchFn ? { fetchShort: fetchFn } : {}) : validateInvitation(input);
  // Recorded like any received message, with the out-of-band conformance results.
  const conformance = fromUrl && /[?&]_oob=/.test(input) ? inspectInvitationUrl(input).results : checkInvitation(invitation);
  await log.record({
    id: invitation.id, direction: 'in', type: invitation.type, from: invitation.from, mode: 'plaintext', size: Buffer.byteLength(JSON.stringify(invitation)),
    result: 'accepted', conformance, transport: 'oob', message: invitation,
  });
  return invitation;
}

async function checkUsable(ctx: WalletContext, invitation: Invitation, canReach: (peer: string) => boolean): Promise<void> {
  if (typeof invitation.expires_time === 'number' && invitation.expires_time < epochSeconds(ctx.clock.now())) {
    throw new IdsyncError('invalid_invitation', `the invitation expired at ${describeEpochSeconds(invitation.expires_time)}`, { details: { reason: 'expired' } });
  }
  if (!acceptsDidcommV2(invitation)) throw new IdsyncError('didcomm_unsupported', 'the invitation does not accept DIDComm v2 answers');
  // The answer goes to the service endpoint of the inviter's DID document (did:web: fetched).
  // A host that does not answer is named as such (the service is down), not as an unknown DID.
  const resolved = await ctx.resolution(invitation.from);
  const doc = resolved.didResolutionMetadata.error ? null : resolved.didDocument;
  if (!doc) throw resolutionError(invitation.from, resolved, `the inviter's DID ${invitation.from}`);
  if (!canReach(invitation.from) && didcommEndpoints(doc).length === 0) {
    throw new IdsyncError('no_endpoint', `the inviter's DID document names no DIDComm endpoint`, { details: { did: invitation.from } });
  }
}

/** Parses, checks and accepts an invitation (URL with `_oob` or `_oobid`, or the invitation itself). */
export async function acceptInvitation(ctx: WalletContext, deps: AcceptDeps, input: string | Invitation, options: AcceptOptions = {}): Promise<Acceptance> {
  const invitation = await readInvitation(input, deps.log, options.fetch);
  await checkUsable(ctx, invitation, deps.canReach);
  const started = await acceptLock(`${ctx.identity.did}\u0000${invitation.id}`, () => start(ctx, deps, invitation, options));
  return started.kind === 'data-pipe' && 'established' in started ? { kind: 'data-pipe', invitation, thid: started.thid, connection: await started.established, ...(started.resumed ? { resumed: true } : {}) } : (started as Acceptance);
}

/**
 * Looks for this wallet's earlier thread on the invitation, or starts one (its first message
 * stored and sent); a Data Pipe's `established` is awaited by the caller, outside the lock.
 */
async function start(ctx: WalletContext, deps: AcceptDeps, invitation: Invitation, options: AcceptOptions): Promise<Acceptance | { kind: 'data-pipe'; thid: string; established: Promise<ConnectionRecord>; resumed?: true }> {
  const goal = invitation.body.goal_code;

  if (goal !== undefined && DATA_PIPE_GOAL_CODES.includes(goal)) {
    // Accepted before (e.g. the wallet stopped while waiting): the same Data Pipe continues.
    const earlier = (await ctx.connections.list()).find((c) => c.invitationId === invitation.id && c.myDid === ctx.identity.did && (c.state === 'established' || c.state === 'requested'));
    if (earlier?.state === 'established') return { kind: 'data-pipe', invitation, thid: earlier.id, connection: earlier, resumed: true };
    if (earlier) {
      const established = waitForEvent(ctx.events, 'connection-established', (e) => e.connection.id === earlier.id, { timeoutMs: options.timeoutMs ?? 30_000 }).then((e) => e.connection);
      established.catch(() => undefined);
      await resendNow(ctx, earlier.id);
      if (deps.pickup) await deps.pickup(invitation.from).catch(() => undefined);
      return { kind: 'data-pipe', thid: earlier.id, established, resumed: true };
    }
    const requested = await requestDataPipe(ctx, invitation, { label: options.label, timeoutMs: options.timeoutMs });
    // Awaited by the caller once the lock is let go: meanwhile a failure is not unhandled.
    requested.established.catch(() => undefined);
    // Without an inbound endpoint, `established` is return-routed or queued; collect it if queued.
    if (deps.pickup && (await ctx.connections.get(requested.thid))?.state === 'requested') {
      await deps.pickup(invitation.from).catch((err) => ctx.logger('warn', 'pickup after the data-pipe request failed', { code: (err as IdsyncError).code }));
    }
    return { kind: 'data-pipe', thid: requested.thid, established: requested.established };
  }

  if (goal !== undefined && ISSUANCE_GOAL_CODES.includes(goal)) {
    // Accepted before by this wallet (e.g. it stopped before the credential came): the same thread
    // continues, or, when the credential is here already, that is the answer (never a second thread).
    const threads = (await ctx.threads.list({ protocol: ISSUE_CREDENTIAL_PIURI })).filter((t) => t.data.invitationId === invitation.id && t.state !== 'abandoned');
    const heldOn = async (thid: string) => (await ctx.credentials.list({ thid }))[0];
    let earlier: (typeof threads)[number] | undefined;
    for (const t of threads) if (t.state !== 'done' || (await heldOn(t.thid))) earlier = t;
    if (earlier) {
      const done = credentialOnThread(ctx, earlier.thid, options.timeoutMs ?? 120_000, invitation.id);
      const held = await heldOn(earlier.thid);
      if (held) return { kind: 'issuance', invitation, thid: earlier.thid, done: Promise.resolve(held), resumed: true };
      await resendNow(ctx, earlier.thid);
      return { kind: 'issuance', invitation, thid: earlier.thid, done, resumed: true };
    }
    const thid = ctx.ids();
    const done = credentialOnThread(ctx, thid, options.timeoutMs ?? 120_000, invitation.id);
    await proposeCredential(ctx, invitation, thid);
    return { kind: 'issuance', invitation, thid, done };
  }

  if (goal === MEDIATE_GOAL_CODE) {
    // Mediation is set up when the wallet is made: its DID names the mediator.
    throw new IdsyncError('unsupported_goal', `this is an invitation to mediate from ${String(invitation.from)}, not a connection: a wallet sits behind a mediator from its creation (idsync wallet create --mediator URL; createWallet({mediator}))`, { details: { goal_code: goal } });
  }
  throw new IdsyncError('unsupported_goal', `the wallet cannot act on goal_code ${String(goal)}`, { details: { goal_code: goal ?? null } });
}

/**
 * `invitation_used`: the issuer says the invitation was answered before (e.p.req.invitation-used,
 * args [invitation id, 'this DID' | 'another DID', issuance status]). Names who used it, from the
 * issuer's word and this wallet's own threads, and what became of it here.
 */
async function invitationUsed(ctx: WalletContext, problem: ParsedProblem, invitationId: string | undefined, thid: string): Promise<IdsyncError> {
  const [, by, status] = problem.args ?? [];
  const earlier = invitationId === undefined ? undefined : (await ctx.threads.list({ protocol: ISSUE_CREDENTIAL_PIURI })).find((t) => t.thid !== thid && t.data.invitationId === invitationId);
  const held = earlier ? (await ctx.credentials.list({ thid: earlier.thid }))[0] : undefined;
  const byUs = by === 'this DID' || earlier !== undefined;
  const what = [
    status ? `its issuance is ${status}` : '',
    earlier ? `thread ${earlier.thid}` : '',
    held ? `credential ${held.id} is in this wallet` : '',
  ].filter(Boolean).join('; ');
  return new IdsyncError('invitation_used', `the invitation was already used by ${byUs ? 'this wallet' : 'another wallet'}${what ? ` (${what})` : ''}`, {
    details: { problem, usedBy: byUs ? 'this-wallet' : 'another-wallet', ...(status ? { status } : {}), ...(earlier ? { thid: earlier.thid } : {}), ...(held ? { credentialId: held.id } : {}) },
  });
}

/** The first credential stored on `thid`, or why the issuance failed. */
export function credentialOnThread(ctx: WalletContext, thid: string, timeoutMs: number, invitationId?: string): Promise<StoredCredential> {
  const stop = new AbortController();
  const o = { timeoutMs, signal: stop.signal };
  const got = waitForEvent(ctx.events, 'credential-received', (e) => e.credential.thid === thid, o).then((e) => e.credential);
  const refused = waitForEvent(ctx.events, 'credential-refused', (e) => e.thid === thid, o).then((e) => {
    throw new IdsyncError('credential_refused', `the credential failed the ${e.failedCheck} check`, { details: { check: e.failedCheck, code: e.code } });
  });
  const problem = waitForEvent(ctx.events, 'problem-received', (e) => e.problem.pthid === thid && problemEndsThread({ body: { code: e.problem.code } }), o).then(async (e) => {
    if (e.problem.code === problemCodeOf('invitation_used')) throw await invitationUsed(ctx, e.problem, invitationId, thid);
    throw new IdsyncError('problem_reported', `the issuer reported ${e.problem.code}`, { details: { problem: e.problem } });
  });
  for (const p of [got, refused, problem]) p.catch(() => undefined);
  const done = Promise.race([got, refused, problem]).finally(() => stopWaits(stop));
  done.catch(() => undefined);
  return done;
}
