// Per-key promise chains: work on one key (a user, a workflow, a thread) never interleaves inside
// this process, while different keys run concurrently. A failure does not block the next caller.
export type KeyedLock = <T>(key: string, fn: () => Promise<T>) => Promise<T>;

export function keyedLock(): KeyedLock {
  const chains = new Map<string, Promise<unknown>>();
  return <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const prev = chains.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    chains.set(key, tail);
    void tail.then(() => {
      if (chains.get(key) === tail) chains.delete(key);
    });
    return next;
  };
}
