// The router's replay memory (message ids already received, docs/protocols.md "Refusals") kept
// for a retention window instead of forever. Each seen record is written together with a time
// index entry (`<at ms, 15 digits>|<key>`), so a prune reads only the entries past the window.
// Pruning is opportunistic: at most once per sweep interval, measured with the injected clock,
// started by inbound traffic (agent.ts), plus once when the agent starts.
//
// A replay older than the window is no longer refused as a duplicate by id; it still meets the
// thread state machines (a finished or unknown thread refuses it), and a Data Pipe request is
// idempotent, so the window bounds storage without opening a state change.
import type { Clock } from '../../clock.js';
import type { SeenRecord } from '../../router/router.js';
import type { Collection, Store } from '../../store/store.js';
import { COLLECTIONS } from './collections.js';
import { timeKey } from '../../store/time-key.js';

export const DEFAULT_SEEN_RETENTION_MS = 7 * 24 * 3600 * 1000;
export const DEFAULT_SEEN_SWEEP_MS = 3600 * 1000;

const PAGE = 500;

export interface SeenMemory {
  /** What the router is given (`seen` option). */
  collection: Pick<Collection<SeenRecord>, 'get' | 'put'>;
  /** Deletes records older than the retention window; resolves with how many went. */
  prune(): Promise<number>;
  /** Deletes old records without a time index entry (written before the index existed) and indexes the rest. */
  pruneUnindexed(): Promise<number>;
  /** True when a sweep is due (and marks it as started): at most one per sweep interval. */
  due(): boolean;
}

export function seenMemory(store: Store, clock: Clock, options: { retentionMs?: number; sweepMs?: number } = {}): SeenMemory {
  const seen = store.collection<SeenRecord>(COLLECTIONS.seen);
  const byTime = store.collection<string>(COLLECTIONS.seenByTime);
  const retention = options.retentionMs ?? DEFAULT_SEEN_RETENTION_MS;
  const sweep = options.sweepMs ?? DEFAULT_SEEN_SWEEP_MS;
  let lastSweep: number | undefined;
  const indexKey = (key: string, at: number) => `${timeKey(at)}|${key}`;

  return {
    collection: {
      get: (key) => seen.get(key),
      put: (key, value) =>
        store.batch([
          { type: 'put', collection: COLLECTIONS.seen, key, value },
          { type: 'put', collection: COLLECTIONS.seenByTime, key: indexKey(key, value.at), value: key },
        ]),
    },

    async prune() {
      const cutoff = timeKey(clock.now() - retention);
      let removed = 0;
      for (;;) {
        const old = await byTime.list({ lt: cutoff, limit: PAGE });
        if (old.length === 0) return removed;
        await store.batch(
          old.flatMap(({ key, value }) => [
            { type: 'del' as const, collection: COLLECTIONS.seenByTime, key },
            { type: 'del' as const, collection: COLLECTIONS.seen, key: value },
          ]),
        );
        removed += old.length;
        if (old.length < PAGE) return removed;
      }
    },

    async pruneUnindexed() {
      const cutoff = clock.now() - retention;
      let removed = 0;
      for (const { key, value } of await seen.list()) {
        const at = typeof value?.at === 'number' ? value.at : 0;
        if (at < cutoff) {
          await store.batch([
            { type: 'del', collection: COLLECTIONS.seen, key },
            { type: 'del', collection: COLLECTIONS.seenByTime, key: indexKey(key, at) },
          ]);
          removed++;
        } else if ((await byTime.get(indexKey(key, at))) === undefined) {
          await byTime.put(indexKey(key, at), key);
        }
      }
      return removed;
    },

    due() {
      const now = clock.now();
      if (lastSweep !== undefined && now - lastSweep < sweep) return false;
      lastSweep = now;
      return true;
    },
  };
}
