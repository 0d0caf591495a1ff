// A store whose batches fail from the `failAt`-th on (0: the first), as a process stopped there
// would leave it; `failAt` Infinity counts the batches of a run that never fails.
import type { Store } from '../../src/store/contract.js';

export function crashingStore(inner: Store, failAt: number): { store: Store; batches(): number } {
  let n = 0;
  return {
    store: {
      location: inner.location,
      collection: (name) => inner.collection(name),
      close: () => inner.close(),
      async batch(ops) {
        if (n++ >= failAt) throw Object.assign(new Error('stopped'), { code: 'store_error' });
        await inner.batch(ops);
      },
    },
    batches: () => n,
  };
}
