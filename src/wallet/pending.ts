// Holding something for the user: an offer, a proof request or an invitation becomes a stored
// pending item and its event fires; under an 'auto' decision an offer or proof request is answered
// at once instead (policies.ts says which; the handlers store either in the step that received it,
// thread-steps.ts answerStep). approve/decline take it up later (approvals.ts).
import type { WalletContext } from './context.js';
import type { PendingItem } from './policies.js';

/** Stores `item` and tells listeners it waits (offer-pending, proof-request-pending, invitation-received). */
export async function park(ctx: WalletContext, item: PendingItem): Promise<void> {
  await ctx.pending.add(item);
  announce(ctx, item);
}

/** Tells listeners `item` waits for the user (once it is stored, e.g. with the step that received it). */
export function announce(ctx: WalletContext, item: PendingItem): void {
  if (item.kind === 'credential-offer') ctx.events.emit('offer-pending', { item });
  else if (item.kind === 'proof-request') ctx.events.emit('proof-request-pending', { item });
  else ctx.events.emit('invitation-received', { item });
}
