// Where each of the wallet's protocol threads stands (protocols/thread-state.ts records, plus
// what the wallet must remember about the thread: the offer's preview, the invitation, ...),
// persisted so that a restarted wallet continues a flow. Messages of one thread are handled one
// at a time, so two deliveries of the same thread cannot both pass the same state check.
import { keyedLock } from '../keyed-lock.js';
import type { BatchOp, Store } from '../store/store.js';
import type { ThreadRecord } from '../protocols/thread-state.js';

export const THREADS_COLLECTION = 'wallet-threads';

export interface WalletThread<S extends string = string> extends ThreadRecord<S> {
  /** Per-protocol facts the wallet needs later in the thread. */
  data: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface ThreadStore {
  get<S extends string = string>(thid: string): Promise<WalletThread<S> | undefined>;
  put(thread: WalletThread): Promise<void>;
  /** The store write of put(thread), to go into a caller's batch. */
  putOp(thread: WalletThread): BatchOp;
  list(query?: { protocol?: string; state?: string }): Promise<WalletThread[]>;
  /** Runs `fn` while holding the lock of `thid` (in-process; one wallet per store). */
  exclusive<T>(thid: string, fn: () => Promise<T>): Promise<T>;
}

export function threadStore(store: Store): ThreadStore {
  const col = store.collection<WalletThread>(THREADS_COLLECTION);
  const lock = keyedLock();
  return {
    get: async <S extends string>(thid: string) => (await col.get(thid)) as WalletThread<S> | undefined,
    put: (thread) => col.put(thread.thid, thread),
    putOp: (thread) => ({ type: 'put', collection: THREADS_COLLECTION, key: thread.thid, value: thread }),
    async list(query = {}) {
      return (await col.list())
        .map((e) => e.value)
        .filter((t) => (query.protocol === undefined || t.protocol === query.protocol) && (query.state === undefined || t.state === query.state));
    },
    exclusive: (thid, fn) => lock(thid, fn),
  };
}
