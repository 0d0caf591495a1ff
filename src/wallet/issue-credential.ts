// The wallet as holder in Issue Credential 3.0, WACI `streamlined-vc` (docs/protocols.md
// "Issue-credential 3.0"): propose (issuance invitations) → offer → request (a signed credential
// application) → issue → verify every credential → store and ack, or refuse with
// e.p.msg.credential-invalid and store nothing as valid. Offers wait under the manual policy.
// Only offers the wallet asked for are answered (see requireSolicitedOffer), and an issuer can
// neither overwrite nor retire a credential another issuer gave us.
import { isoNow } from '../clock.js';
import type { FlatDatapoints } from '../credentials/datapoints.js';
import type { W3cCredential } from '../credentials/types.js';
import type { HandlerContext, ProtocolModule } from '../router/router.js';
import type { PlainMessage } from '../didcomm/types.js';
import {
  buildCredentialApplication, buildIssueAck, buildProposeCredential, buildRequestCredential, issueCredentialProtocol,
  ISSUE_CREDENTIAL_HOLDER, ISSUE_CREDENTIAL_PIURI, type ParsedIssueCredential, type ParsedOffer,
} from '../protocols/issue-credential.js';
import type { Invitation } from '../protocols/out-of-band.js';
import { protocolError } from '../protocols/protocol-kit.js';
import { problemReportDraft } from '../protocols/report-problem.js';
import { createMessage, sameDid, threadId } from '../didcomm/message.js';
import { IdsyncError, problemCodeOf } from '../errors.js';
import { type WalletContext } from './context.js';
import { checkIssuedCredential, firstFailure, type CredentialExpectations } from './credential-check.js';
import type { RejectedCredential, StoredCredential } from './credential-store.js';
import { signAsHolder } from './identity.js';
import { announce } from './pending.js';
import type { PendingItem } from './policies.js';
import { requireAuthenticatedSender } from './present-proof.js';
import { answerStep, sendStep, type StepAnswer, type StepTake } from './thread-steps.js';
import type { BatchOp } from '../store/store.js';
import type { WalletThread } from './threads.js';

interface OfferData {
  challenge: string;
  domain: string;
  manifestId: string;
  datapoints?: FlatDatapoints;
  replacementId?: string;
  goalCode?: string;
  invitationId?: string;
}

/** Starts an issuance from an invitation (goal `streamlined-vc`): propose, pthid = the invitation. */
export async function proposeCredential(ctx: WalletContext, invitation: Invitation, id: string = ctx.ids()): Promise<string> {
  // Long form: the issuer may never have seen this wallet (no Data Pipe), like the data-pipe request.
  const propose = buildProposeCredential({ id, from: ctx.identity.did, to: invitation.from, pthid: invitation.id }, { clock: ctx.clock, ids: ctx.ids });
  await sendStep(ctx, ISSUE_CREDENTIAL_HOLDER, propose, { start: true, data: { invitationId: invitation.id } });
  return propose.id;
}

/**
 * An offer is answered only when the wallet asked for it: on a thread the wallet started (its
 * `propose-credential`, thid = the propose's id; receiveStep then checks the offer comes from the
 * propose's peer and that a propose is what is waiting), or, for a new thread, when `pthid` names
 * an established Data Pipe with the sender (docs/protocols.md "Sync" step 2: the service's sync
 * offers carry pthid = the Data Pipe thread, which is our connection's id). Anything else would let
 * any DID that can reach us get a signed credential application and push credentials into the
 * wallet, so it is refused before any state is written. Returns whether a new thread is opened.
 */
async function requireSolicitedOffer(ctx: WalletContext, message: PlainMessage, sender: string): Promise<boolean> {
  const thid = threadId(message);
  const existing = await ctx.threads.get(thid);
  if (existing) {
    if (existing.protocol !== ISSUE_CREDENTIAL_PIURI || existing.role !== ISSUE_CREDENTIAL_HOLDER.role) {
      throw protocolError('unknown_thread', `thread ${thid} is not an issue-credential thread of this holder`, { thid });
    }
    return false;
  }
  const pipe = message.pthid ? await ctx.connections.get(message.pthid) : undefined;
  // `requested` too: the wallet asked this very DID for the pipe, and its `established` was lost
  // (a crash or the network); the sync offer on it shows the service took the request.
  const asked = pipe?.state === 'established' || pipe?.state === 'requested';
  if (pipe && asked && sameDid(pipe.theirDid, sender) && sameDid(pipe.myDid, ctx.identity.did)) return true;
  throw new IdsyncError('unsolicited_offer', 'an offer is accepted only on a thread this wallet started or on its established Data Pipe with the sender', {
    details: { thid, ...(message.pthid ? { pthid: message.pthid } : {}) },
  });
}

async function onOffer(ctx: WalletContext, h: HandlerContext, offer: ParsedOffer): Promise<void> {
  const sender = requireAuthenticatedSender(h);
  // VC Data Integrity §2.1 domain, as for proof requests (present-proof.ts): the application we
  // sign is only good for the party named in it, so that party must be the DID offering.
  if (!sameDid(offer.domain, sender)) {
    throw new IdsyncError('forbidden', `the offer's domain ${offer.domain} is not the DID offering (${sender})`);
  }
  const start = await requireSolicitedOffer(ctx, h.message, sender);
  const data: OfferData = {
    challenge: offer.challenge,
    domain: offer.domain,
    manifestId: String(offer.manifest.id),
    ...(offer.datapoints ? { datapoints: offer.datapoints } : {}),
    ...(offer.replacementId ? { replacementId: offer.replacementId } : {}),
    ...(offer.goalCode ? { goalCode: offer.goalCode } : {}),
  };
  const decision = ctx.policy.offers;
  let parked: PendingItem | undefined;
  // The offer received and its answer (or the item parked for the user): one step, one write.
  // 'offer-received' is announced once the offer is stored, before the request goes out
  // (events.ts): the credential may come back on the request's own return route.
  const stored = (t: WalletThread): void => {
    ctx.events.emit('offer-received', { thid: t.thid, from: sender });
  };
  await answerStep(ctx, ISSUE_CREDENTIAL_HOLDER, h.message, sender, { start, data: data as unknown as Record<string, unknown>, stored }, async (t) => {
    if (decision === 'manual') {
      parked = {
        id: t.thid, kind: 'credential-offer', thid: t.thid, from: sender, receivedAt: isoNow(ctx.clock), message: h.message,
        ...(offer.datapoints ? { preview: offer.datapoints as Record<string, string> } : {}),
        ...(offer.replacementId ? { replacementId: offer.replacementId } : {}),
        ...(offer.goalCode ? { goalCode: offer.goalCode } : {}),
      };
      return { ops: [ctx.pending.addOp(parked)] };
    }
    return { message: await requestFor(ctx, t) };
  });
  if (parked) announce(ctx, parked);
}

/** The request for the thread's offer: a credential application signed for the offer's challenge and domain. */
async function requestFor(ctx: WalletContext, thread: WalletThread): Promise<PlainMessage> {
  const data = thread.data as unknown as OfferData;
  const application = await signAsHolder(ctx, buildCredentialApplication({ holder: ctx.identity.did, manifestId: data.manifestId, applicationId: ctx.ids() }), data);
  return buildRequestCredential({ to: thread.peer, thid: thread.thid, pthid: thread.pthid, application }, { clock: ctx.clock, ids: ctx.ids });
}

/** Answers the thread's offer with a credential application (with `take`, the rest of the step: the pending item taken). */
export async function acceptOffer(ctx: WalletContext, thread: WalletThread, take: StepTake = {}): Promise<void> {
  await sendStep(ctx, ISSUE_CREDENTIAL_HOLDER, await requestFor(ctx, thread), take);
}

/** Declines the thread's offer: report-problem e.p.req.offer-declined (docs/protocols.md). */
export async function declineOffer(ctx: WalletContext, thread: WalletThread, reason?: string, take: StepTake = {}): Promise<void> {
  const offer = (await ctx.pending.get(thread.thid))?.message;
  const draft = problemReportDraft(offer ?? { id: thread.messages[0], thid: thread.thid, type: '', body: {}, from: thread.peer }, {
    code: problemCodeOf('offer_declined'),
    comment: 'The holder declined the offer: {1}',
    args: [reason ?? 'declined'],
  });
  await sendStep(ctx, ISSUE_CREDENTIAL_HOLDER, createMessage({ ...draft, to: [thread.peer!] }, { clock: ctx.clock, ids: ctx.ids }), take);
}

function describe(raw: unknown, checked?: W3cCredential): Pick<StoredCredential, 'type' | 'issuer' | 'subject' | 'claims'> {
  const c = checked ?? (raw as W3cCredential);
  const { id: subject, ...claims } = (c?.credentialSubject ?? {}) as Record<string, unknown>;
  return {
    type: Array.isArray(c?.type) ? c.type : [],
    issuer: typeof c?.issuer === 'string' ? c.issuer : (c?.issuer as { id?: string } | undefined)?.id ?? '',
    ...(typeof subject === 'string' ? { subject } : {}),
    claims,
  };
}

interface Refusal {
  check: string;
  code?: string;
}

/** The refusal of the issue message: the credential kept as rejected, e.p.msg.credential-invalid for the issuer. */
function refusal(ctx: WalletContext, h: HandlerContext, thread: WalletThread, raw: unknown, failed: Refusal, result: { checks: StoredCredential['checks']; credential?: W3cCredential }, receivedAt: string): { answer: StepAnswer; rejected: RejectedCredential } {
  const rejected: RejectedCredential = {
    key: h.message.id, verified: false as const, status: 'rejected' as const, failedCheck: failed.check, checks: result.checks, receivedAt, thid: thread.thid,
    raw, ...(failed.code ? { failedCode: failed.code } : {}), ...(result.credential?.id ? { id: result.credential.id } : {}),
    ...(result.credential ? { issuer: describe(raw, result.credential).issuer } : {}),
  };
  // docs/protocols.md: answered with e.p.msg.credential-invalid, the comment naming the failed check.
  const draft = problemReportDraft(h.message, {
    code: problemCodeOf('credential_invalid'),
    comment: 'The credential failed the {1} check: {2}',
    args: [failed.check, failed.code ?? 'failed'],
  });
  return { rejected, answer: { message: createMessage({ ...draft, to: [thread.peer!] }, { clock: ctx.clock, ids: ctx.ids }), ops: [ctx.credentials.putRejectedOp(rejected)] } };
}

/** A credential of the issue message to store, with the one it replaces. */
interface Accepted {
  credential: StoredCredential;
  retire?: StoredCredential;
}

/** What the issue message comes to: the credentials to store with the ack, or the refusal. */
type IssueOutcome = { accepted: Accepted[] } | { refused: { failedCheck: string; code?: string; rejected: RejectedCredential } };

/**
 * The writes of the accepted credentials: each stored, and each credential it replaces marked
 * 'replaced' (read under the caller's hold: a status refresh cannot write between the read and
 * the step's batch, and one that read before it compares with 'replaced' and leaves it).
 */
async function storeOps(ctx: WalletContext, accepted: Accepted[]): Promise<BatchOp[]> {
  const ops: BatchOp[] = [];
  for (const { credential, retire } of accepted) {
    ops.push(await ctx.credentials.putOp(credential));
    if (retire) ops.push(await ctx.credentials.setStatusOp(retire.id, 'replaced', { replacedBy: credential.id }));
  }
  return ops;
}

async function onIssue(ctx: WalletContext, h: HandlerContext, issue: ParsedIssueCredential): Promise<void> {
  // As for an offer: a credential is taken only from a sender the envelope proves.
  requireAuthenticatedSender(h);
  let outcome: IssueOutcome | undefined;
  let release: (() => void) | undefined;
  // The credential received, verified, stored and acknowledged (or refused): one step, one write.
  // The records it writes are held from their reads to that write (stored() comes right after
  // it, before the ack's delivery, whose return route may bring a step that needs them).
  const step = answerStep(ctx, ISSUE_CREDENTIAL_HOLDER, h.message, h.sender, { stored: () => release?.() }, async (t) => {
    const data = t.data as unknown as OfferData;
    const receivedAt = isoNow(ctx.clock);
    const accepted: Accepted[] = [];
    const expected: CredentialExpectations = { issuer: t.peer!, claims: data.datapoints, statusListCredential: issue.statusListCredential };
    const refuse = (raw: unknown, failed: Refusal, result: { checks: StoredCredential['checks']; credential?: W3cCredential }): StepAnswer => {
      const r = refusal(ctx, h, t, raw, failed, result, receivedAt);
      outcome = { refused: { failedCheck: failed.check, ...(failed.code ? { code: failed.code } : {}), rejected: r.rejected } };
      return r.answer;
    };
    for (const item of issue.credentials) {
      const result = await checkIssuedCredential(ctx, item.credential, expected);
      const failed = firstFailure(result);
      if (failed) return refuse(item.credential, failed, result);
      const vc = result.credential!;
      const described = describe(item.credential, vc);
      const id = vc.id ?? `${t.thid}#${accepted.length}`;
      // Credential ids are chosen by issuers: one issuer reusing another's id must not overwrite it.
      const held = await ctx.credentials.get(id);
      if (held && !sameDid(held.issuer, described.issuer)) return refuse(item.credential, { check: 'id', code: 'id_held_from_another_issuer' }, result);
      // A replacement (offer/issue replacement_id, or the VC's own `replaces`) retires the old
      // credential only when the same issuer gave it; another issuer's claim to replace it is ignored.
      const replacementId = issue.replacementId ?? data.replacementId ?? vc.replaces;
      const old = replacementId && replacementId !== id ? await ctx.credentials.get(replacementId) : undefined;
      const retire = old && sameDid(old.issuer, described.issuer) ? old : undefined;
      if (old && !retire) ctx.logger('warn', 'ignored a replacement of a credential from another issuer', { thid: t.thid, replacementId });
      accepted.push({
        credential: {
          id, ...described, format: result.format ?? (typeof item.credential === 'string' ? 'jwt' : 'ldp'), verified: true, status: 'valid',
          receivedAt, thid: t.thid, raw: item.credential, checks: result.checks, ...(retire ? { replaces: retire.id } : {}),
        },
        ...(retire ? { retire } : {}),
      });
    }
    release = await ctx.credentials.hold(accepted.flatMap(({ credential, retire }) => (retire ? [credential.id, retire.id] : [credential.id])));
    const ops = await storeOps(ctx, accepted);
    outcome = { accepted };
    return { message: buildIssueAck({ to: t.peer, thid: t.thid, pthid: t.pthid }, { clock: ctx.clock, ids: ctx.ids }), ops };
  });
  const { thread } = await step.finally(() => release?.());
  if (outcome && 'refused' in outcome) {
    ctx.events.emit('credential-refused', { thid: thread.thid, failedCheck: outcome.refused.failedCheck, code: outcome.refused.code, rejected: outcome.refused.rejected });
    return;
  }
  for (const { credential } of outcome?.accepted ?? []) ctx.events.emit('credential-received', { credential, ...(credential.replaces ? { replaced: credential.replaces } : {}) });
}

/** The wallet's Issue Credential module (holder role). */
export function walletIssueCredential(ctx: () => WalletContext): ProtocolModule {
  return issueCredentialProtocol(
    {
      'offer-credential': (h, offer) => onOffer(ctx(), h, offer),
      'issue-credential': (h, issue) => onIssue(ctx(), h, issue),
    },
    ['holder'],
  );
}
