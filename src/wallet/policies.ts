// What the wallet does without asking and what waits for the user: credential offers and proof
// requests are answered at once under 'auto', or held as pending items under 'manual' until
// approve(id) or decline(id, reason). Invitations that arrive as DIDComm messages wait by default
// (accepting one is the user's consent); `invitations: 'auto'` accepts them as they come.
// Pending items are stored, so they survive a restart.
import type { PlainMessage } from '../didcomm/types.js';
import { IdsyncError } from '../errors.js';
import type { BatchOp, Store } from '../store/store.js';

export const PENDING_COLLECTION = 'wallet-pending';

export type Decision = 'auto' | 'manual';

/**
 * 'auto' | 'manual' set the policy for credential offers; DID-authentication requests are
 * answered automatically unless `proofRequests: 'manual'` is given (a sync must not stall on a
 * login prompt by default); invitations received as messages wait unless `invitations: 'auto'`.
 */
export type WalletPolicy = Decision | { offers?: Decision; proofRequests?: Decision; invitations?: Decision };

export interface ResolvedPolicy {
  offers: Decision;
  proofRequests: Decision;
  invitations: Decision;
}

export function resolvePolicy(policy: WalletPolicy | undefined): ResolvedPolicy {
  if (policy === undefined) return { offers: 'auto', proofRequests: 'auto', invitations: 'manual' };
  if (policy === 'auto' || policy === 'manual') return { offers: policy, proofRequests: 'auto', invitations: 'manual' };
  const ok = (d: unknown): d is Decision | undefined => d === undefined || d === 'auto' || d === 'manual';
  if (typeof policy !== 'object' || policy === null || !ok(policy.offers) || !ok(policy.proofRequests) || !ok(policy.invitations)) {
    throw new IdsyncError('invalid_argument', "policy must be 'auto', 'manual' or {offers?, proofRequests?, invitations?} of those");
  }
  return { offers: policy.offers ?? 'auto', proofRequests: policy.proofRequests ?? 'auto', invitations: policy.invitations ?? 'manual' };
}

/** 'invitation': an out-of-band invitation that arrived as a DIDComm message; accepting it is the user's consent. */
export type PendingKind = 'credential-offer' | 'proof-request' | 'invitation';

/** Something that waits for the user. `id` is the thread id (what approve/decline take). */
export interface PendingItem {
  id: string;
  kind: PendingKind;
  thid: string;
  /** The peer (service) DID. */
  from: string;
  /** ISO 8601. */
  receivedAt: string;
  goalCode?: string;
  /** Offers: the credential preview as flat datapoints (name → value). */
  preview?: Record<string, string>;
  /** Offers: the id of the credential this one would replace. */
  replacementId?: string;
  /** Proof requests: the domain asking (the verifier). */
  domain?: string;
  /** The offer or request as received. */
  message: PlainMessage;
}

export interface PendingStore {
  add(item: PendingItem): Promise<void>;
  /** The store writes of add(item) and remove(id), to go into a caller's batch. */
  addOp(item: PendingItem): BatchOp;
  removeOp(id: string): BatchOp;
  get(id: string): Promise<PendingItem | undefined>;
  remove(id: string): Promise<void>;
  list(kind?: PendingKind): Promise<PendingItem[]>;
}

export function pendingStore(store: Store): PendingStore {
  const col = store.collection<PendingItem>(PENDING_COLLECTION);
  return {
    add: (item) => col.put(item.id, item),
    addOp: (item) => ({ type: 'put', collection: PENDING_COLLECTION, key: item.id, value: item }),
    removeOp: (id) => ({ type: 'del', collection: PENDING_COLLECTION, key: id }),
    get: (id) => col.get(id),
    remove: (id) => col.del(id),
    async list(kind) {
      return (await col.list())
        .map((e) => e.value)
        .filter((i) => kind === undefined || i.kind === kind)
        .sort((a, b) => (a.receivedAt < b.receivedAt ? -1 : a.receivedAt > b.receivedAt ? 1 : 0));
    },
  };
}
