// A small semaphore for expensive work that anyone can trigger (client secret checks: scrypt
// costs ~16 MiB and tens of milliseconds on the libuv thread pool, which the store also uses).
// At most `concurrency` run at once, at most `queue` wait; more are refused at once, so a flood
// of token requests neither starves the thread pool nor builds an unbounded backlog.
import { IdsyncError } from '../../errors.js';

export interface WorkGateOptions {
  concurrency: number;
  queue: number;
}

/** Secret checks at once and waiting (docs/service.md "Limits"). */
export const DEFAULT_SECRET_CHECKS: WorkGateOptions = { concurrency: 2, queue: 32 };

export interface WorkGate {
  /** Runs `fn` when a slot is free; throws IdsyncError 'busy' when the queue is full. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  readonly active: number;
  readonly waiting: number;
}

export function createWorkGate(options: WorkGateOptions): WorkGate {
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const queueMax = Math.max(0, Math.floor(options.queue));
  const waiting: (() => void)[] = [];
  let active = 0;

  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };

  return {
    async run(fn) {
      if (active >= concurrency) {
        if (waiting.length >= queueMax) throw new IdsyncError('busy', 'too many requests of this kind are being handled; retry shortly');
        // The slot is handed over by release() (active stays counted).
        await new Promise<void>((resolve) => waiting.push(resolve));
      } else {
        active++;
      }
      try {
        return await fn();
      } finally {
        release();
      }
    },
    get active() {
      return active;
    },
    get waiting() {
      return waiting.length;
    },
  };
}
