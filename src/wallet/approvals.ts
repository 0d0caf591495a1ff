// approve(id) and decline(id, reason) for what the manual policy holds back (policies.ts).
import { createMessage } from '../didcomm/message.js';
import { IdsyncError, problemCodeOf } from '../errors.js';
import type { Invitation } from '../protocols/out-of-band.js';
import { PRESENT_PROOF_PROVER } from '../protocols/present-proof.js';
import { problemReportDraft } from '../protocols/report-problem.js';
import type { WalletContext } from './context.js';
import { acceptOffer, declineOffer } from './issue-credential.js';
import type { PendingItem } from './policies.js';
import { answerProofRequest } from './present-proof.js';
import { sendStep, type StepTake } from './thread-steps.js';
import type { WalletThread } from './threads.js';

async function itemAndThread(ctx: WalletContext, id: string): Promise<{ item: PendingItem; thread?: WalletThread }> {
  const item = await ctx.pending.get(id);
  if (!item) throw new IdsyncError('not_found', `nothing pending with id ${id}`);
  if (item.kind === 'invitation') return { item };
  const thread = await ctx.threads.get(item.thid);
  const expected = item.kind === 'credential-offer' ? 'offer-received' : 'request-received';
  if (!thread || thread.state !== expected) {
    // The thread ended meanwhile (the peer gave up, or a problem report): nothing to answer.
    await ctx.pending.remove(id);
    throw new IdsyncError('invalid_state', `thread ${item.thid} is ${thread?.state ?? 'unknown'}, not ${expected}`);
  }
  return { item, thread };
}

/** The pending item taken with the step that answers it, if it is still pending and its thread still where it was, under the thread's lock. */
function taking(ctx: WalletContext, id: string, thread: WalletThread): StepTake {
  return { ops: [ctx.pending.removeOp(id)], expect: { state: thread.state, pendingId: id } };
}

/**
 * Answers a pending item: requests the offered credential, sends the DID-auth proof, or accepts
 * the invitation (resolving with what accepting it gave).
 */
export async function approvePending<A>(ctx: WalletContext, id: string, accept: (invitation: Invitation) => Promise<A>): Promise<A | undefined> {
  const { item, thread } = await itemAndThread(ctx, id);
  // On failure the item stays pending (the thread step was rolled back) so it can be retried; the
  // answer and the item taken are one step, one write.
  if (item.kind === 'invitation') {
    const accepted = await accept(item.message as Invitation);
    await ctx.pending.remove(id);
    return accepted;
  }
  const take = taking(ctx, id, thread!);
  if (item.kind === 'credential-offer') await acceptOffer(ctx, thread!, take);
  else await answerProofRequest(ctx, thread!, take);
  return undefined;
}

/** Declines a pending item: report-problem e.p.req.offer-declined for offers, e.p.req.declined for proof requests. */
export async function declinePending(ctx: WalletContext, id: string, reason?: string): Promise<void> {
  const { item, thread } = await itemAndThread(ctx, id);
  const take = thread ? taking(ctx, id, thread) : undefined;
  if (item.kind === 'credential-offer') await declineOffer(ctx, thread!, reason, take);
  else if (item.kind === 'proof-request') {
    const draft = problemReportDraft(item.message, { code: problemCodeOf('declined'), comment: 'The holder declined to present: {1}', args: [reason ?? 'declined'] });
    await sendStep(ctx, PRESENT_PROOF_PROVER, createMessage({ ...draft, to: [thread!.peer!] }, { clock: ctx.clock, ids: ctx.ids }), take);
  } else await ctx.pending.remove(id);
}
