// A store handle that can be cut off at once, to crash a party in-process: after `kill()` every
// read and write through this handle fails with `store_closed` (as they would in a process that
// died), so work the old agent still had in flight cannot change what the restarted one finds.
// The store underneath stays open; a restart opens a new fence over it.
import { IdsyncError } from '../errors.js';
import type { Collection, Store } from '../store/store.js';

export interface FencedStore extends Store {
  /** From now on, every call through this handle fails. */
  kill(): void;
  readonly killed: boolean;
}

export function fencedStore(store: Store): FencedStore {
  let killed = false;
  // processGone: what the party's endpoint was answering ends as a killed process's would (a reset).
  const dead = () => new IdsyncError('store_closed', 'the store is gone (the process using it crashed)', { details: { processGone: true } });
  // A read that was in flight when the process died never returned.
  const after = <R>(result: R): R => {
    if (killed) throw dead();
    return result;
  };
  // A then() rather than an async wrapper: every store call of a testbed's parties goes through here.
  const guard = <A extends unknown[], R>(f: (...a: A) => Promise<R>) => (...a: A): Promise<R> =>
    killed ? Promise.reject(dead()) : f(...a).then(after);
  return {
    get location() {
      return store.location;
    },
    get killed() {
      return killed;
    },
    kill() {
      killed = true;
    },
    collection<T>(name: string): Collection<T> {
      const c = store.collection<T>(name);
      return {
        name: c.name,
        get: guard(c.get.bind(c)),
        put: guard(c.put.bind(c)),
        del: guard(c.del.bind(c)),
        list: guard(c.list.bind(c)),
        count: guard(c.count.bind(c)),
      };
    },
    batch: guard(store.batch.bind(store)),
    // The underlying store belongs to the testbed; a party closing its handle does not close it.
    close: async () => {
      killed = true;
    },
  };
}
