// Holding something for the user: an offer, a proof request or an invitation becomes a stored
// pending item and its event fires; under an 'auto' decision an offer or proof request is answered
// at once instead (policies.ts says which). approve/decline take it up later (approvals.ts).
import type { WalletContext } from './context.js';
import type { Decision, PendingItem } from './policies.js';

/** Stores `item` and tells listeners it waits (offer-pending, proof-request-pending, invitation-received). */
export async function park(ctx: WalletContext, item: PendingItem): Promise<void> {
  await ctx.pending.add(item);
  if (item.kind === 'credential-offer') ctx.events.emit('offer-pending', { item });
  else if (item.kind === 'proof-request') ctx.events.emit('proof-request-pending', { item });
  else ctx.events.emit('invitation-received', { item });
}

/** Under 'manual' parks `item()` for the user; under 'auto' runs `answer` now. */
export async function parkOrAnswer(ctx: WalletContext, decision: Decision, item: () => PendingItem, answer: () => Promise<void>): Promise<void> {
  if (decision === 'manual') await park(ctx, item());
  else await answer();
}
