// Whom the service keeps messages for (docs/service.md "Outbound endpoints"). Anyone can make
// the service answer (a trust ping, a refusal); only a peer it has a relationship with gets an
// answer queued for pickup when it cannot be delivered at once. Otherwise anyone could fill the
// durable queue with answers to fresh DIDs nobody will ever collect.
//
// A relationship is one of:
// - the service chose the recipient itself (`own`: the agent's own sends, core.send: syncs and
//   Data Pipe messages to a linked wallet, offers to a workflow's proposer, a workflow's
//   invitation to the DID the provider named), known by the message's id while it is sent, and
//   later by its durable step (router/steps): a step is stored only for a message the service
//   sent, to the DID it sent it to, so its resend (after a restart too, when `own` is long gone)
//   keeps the relationship its first send had;
// - the recipient is a linked user's wallet DID (any tenant);
// - the message belongs to a protocol thread (present-proof, issue-credential) the service has
//   with that DID (its thread, or for a problem report its parent thread).
import { sameDid } from '../../didcomm/message.js';
import type { PlainMessage } from '../../didcomm/types.js';
import type { ServiceDeps } from '../deps.js';
import type { ThreadStore } from './threads.js';
import { isUsersWallet } from '../users/users.js';
import type { StepEngine } from '../../router/steps/engine.js';

export type RelationshipReason = 'service-initiated' | 'linked-user' | 'thread';

export interface Relationships {
  /** Why messages for `did` may be kept, or undefined when there is no relationship. */
  reason(did: string, message: Pick<PlainMessage, 'id' | 'thid' | 'pthid'>): Promise<RelationshipReason | undefined>;
  /**
   * Runs `fn`, the service's own send of message `messageId` to `recipient`: while it runs, that
   * message, delivered to that DID, has a recipient the service chose. (Only that message:
   * answers to return-routed replies handled inside `fn` go by the other rules.)
   */
  own<T>(messageId: string, recipient: string, fn: () => Promise<T>): Promise<T>;
}

export function relationships(deps: Pick<ServiceDeps, 'config' | 'users'>, threads: Pick<ThreadStore, 'get'>, steps?: () => Pick<StepEngine, 'get'> | undefined): Relationships {
  // Message id → the recipient the service chose, while the send runs. By id rather than by async
  // context (AsyncLocalStorage): one AsyncLocalStorage.run() turns on promise hooks for the whole
  // process, which then cost every promise of every request a few percent of a sync flow.
  const owned = new Map<string, string>();
  return {
    async own(messageId, recipient, fn) {
      owned.set(messageId, recipient);
      try {
        return await fn();
      } finally {
        if (owned.get(messageId) === recipient) owned.delete(messageId);
      }
    },
    async reason(did, message) {
      const chosen = owned.get(message.id);
      if (chosen !== undefined && sameDid(chosen, did)) return 'service-initiated';
      const candidates = new Set([message.thid ?? message.id, message.pthid].filter((t): t is string => typeof t === 'string' && t !== ''));
      // Its step's thread: the message's own, or for a problem report its parent (names.ts stepThread).
      for (const thid of candidates) {
        const step = await steps?.()?.get(thid).catch(() => undefined);
        if (step?.out && step.out.message.id === message.id && sameDid(step.out.to, did)) return 'service-initiated';
      }
      for (const thid of candidates) {
        const thread = await threads.get(thid);
        if (thread && sameDid(thread.peer, did)) return 'thread';
      }
      return (await isUsersWallet(deps, did)) ? 'linked-user' : undefined;
    },
  };
}
