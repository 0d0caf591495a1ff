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
  const dead = () => new IdsyncError('store_closed', 'the store is gone (the process using it crashed)');
  const guard = <A extends unknown[], R>(f: (...a: A) => Promise<R>) => async (...a: A): Promise<R> => {
    if (killed) throw dead();
    const result = await f(...a);
    // A read that was in flight when the process died never returned.
    if (killed) throw dead();
    return result;
  };
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
        get: guard((k: string) => c.get(k)),
        put: guard((k: string, v: T) => c.put(k, v)),
        del: guard((k: string) => c.del(k)),
        list: guard((o?: Parameters<Collection<T>['list']>[0]) => c.list(o)),
        count: guard((o?: Parameters<Collection<T>['count']>[0]) => c.count(o)),
      };
    },
    batch: guard((ops: Parameters<Store['batch']>[0]) => store.batch(ops)),
    // The underlying store belongs to the testbed; a party closing its handle does not close it.
    close: async () => {
      killed = true;
    },
  };
}
