// Waiting for states without sleeping: each helper resolves on an event, or re-reads state when
// a change feed says it may have changed. The only timer is a guard: when it fires, the error
// names what was awaited and the last state seen, so a failing test says why at once.
import { IdsyncError, toIdsyncError } from '../errors.js';
import type { ChangeFeed } from './changes.js';

export interface WaitOptions {
  /** Guard against waiting forever (default 10 s); not a way to wait for state. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Only for services in another process (no change feed): how often to re-read (default 50 ms).
   * In-process waits never poll.
   */
  pollMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

const fatalErrors = new WeakSet<object>();

/** Marks an error thrown by a waitForState `read` as final: the wait fails with it at once. */
export function stopWaiting<E extends object>(err: E): E {
  fatalErrors.add(err);
  return err;
}

/**
 * A promise settled by `setup` (which may register cleanups), rejected with code `wait_timeout`
 * after the guard timeout, or `aborted` when the signal fires.
 */
export function untilTimeout<T>(
  what: string,
  options: WaitOptions,
  setup: (resolve: (value: T) => void, reject: (err: unknown) => void, onCleanup: (fn: () => void) => void) => void,
  lastSeen: () => string,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise<T>((resolve, reject) => {
    const cleanups: Array<() => void> = [];
    let settled = false;
    const finish = () => {
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      for (const c of cleanups.splice(0)) c();
    };
    const ok = (value: T) => {
      if (settled) return;
      finish();
      resolve(value);
    };
    const fail = (err: unknown) => {
      if (settled) return;
      finish();
      reject(err);
    };
    const onAbort = () => fail(new IdsyncError('aborted', `stopped waiting for ${what}`));
    const timer = setTimeout(() => {
      let seen: string;
      try {
        seen = lastSeen();
      } catch {
        seen = 'unknown';
      }
      fail(new IdsyncError('wait_timeout', `timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${seen}`, { details: { awaited: what, lastSeen: seen, timeoutMs } }));
    }, timeoutMs);
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      setup(ok, fail, (fn) => (settled ? fn() : cleanups.push(fn)));
    } catch (err) {
      fail(err);
    }
  });
}

/**
 * Reads state with `read` until `accept` says yes. With a change feed it re-reads after each
 * change (never on a timer); without one (a service in another process) it polls every `pollMs`.
 * A read that throws is remembered as the last state and retried (the resource may not exist yet).
 */
export function waitForState<T>(
  what: string,
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  changes: ChangeFeed | undefined,
  options: WaitOptions = {},
  describe: (value: T) => string = (v) => JSON.stringify(v),
): Promise<T> {
  let last = 'nothing read yet';
  return untilTimeout<T>(
    what,
    options,
    (resolve, reject, onCleanup) => {
      const stop = new AbortController();
      onCleanup(() => stop.abort());
      void (async () => {
        while (!stop.signal.aborted) {
          const version = changes?.version ?? 0;
          try {
            const value = await read();
            last = describe(value);
            if (accept(value)) return resolve(value);
          } catch (err) {
            if (typeof err === 'object' && err !== null && fatalErrors.has(err)) return reject(err);
            const e = toIdsyncError(err);
            last = `error ${e.code}: ${e.message}`;
          }
          if (changes) await changes.after(version, stop.signal);
          else await pause(options.pollMs ?? 50, stop.signal);
        }
      })().catch(reject);
    },
    () => last,
  );
}

/** A wait between two reads of a remote service (the polling fallback only). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
