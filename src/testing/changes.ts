// A change feed: something that says "the service's state may have changed", so waiters re-read
// state when it does instead of sleeping. In-process testbeds bump it on every service event
// (webhook events and the DIDComm agent's events); remote services have none and waiters poll.

export interface ChangeFeed {
  /** A counter that grows on every change. */
  readonly version: number;
  /** Resolves at the first change after `version` (at once when one already happened). */
  after(version: number, signal?: AbortSignal): Promise<void>;
}

export interface ChangeSignal extends ChangeFeed {
  bump(): void;
}

export function changeSignal(): ChangeSignal {
  let version = 0;
  let waiters: Array<{ at: number; resolve(): void }> = [];
  return {
    get version() {
      return version;
    },
    bump() {
      version += 1;
      const ready = waiters;
      waiters = [];
      for (const w of ready) w.resolve();
    },
    after(at, signal) {
      if (version > at || signal?.aborted) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const w = {
          at,
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          waiters = waiters.filter((x) => x !== w);
          resolve();
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.push(w);
      });
    },
  };
}
