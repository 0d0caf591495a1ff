// Waiting for states without sleeping: each helper resolves on an event, or re-reads state when
// a change feed says it may have changed. The only timer is a guard: when it fires, the error
// names what was awaited and the last state seen, so a failing test says why at once.
import { IdsyncError, toIdsyncError } from '../errors.js';
import type { ChangeFeed } from './changes.js';
import { writeTimeoutTraces } from './trace-registry.js';

export interface WaitOptions {
  /**
   * Guard against waiting forever; not a way to wait for state. Default: shortly before the test
   * runner would fail the test (defaultTimeoutMs), so that the wait's own message is what fails.
   */
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Only for services in another process (no change feed): how often to re-read (default 50 ms).
   * In-process waits never poll.
   */
  pollMs?: number;
}

/**
 * The guard outside a test runner whose timeout can be read: below the 5 s most runners (vitest,
 * jest) give a test by default, so a failing wait still speaks first there.
 */
export const DEFAULT_TIMEOUT_MS = 4_000;
/** The guard when the runner gives the test no time limit (vitest `testTimeout: 0`). */
export const UNLIMITED_TEST_TIMEOUT_MS = 10_000;

/** What vitest keeps on globalThis about the worker: its config and the task running now (test or suite). */
interface VitestWorkerState {
  config?: { testTimeout?: number; hookTimeout?: number };
  current?: { type?: string; timeout?: number; result?: { startTime?: number } };
}

/**
 * The default guard: what is left of the current vitest test's time (its own timeout, counted from
 * when it started; in a hook, the hook timeout from now), minus a margin (10%, 250 ms to 1 s) in
 * which the wait's error reaches the runner. Every wait of a test shares the one deadline, so the
 * test fails with the awaited state and the last state seen, never vitest's bare "Test timed
 * out". Without vitest: DEFAULT_TIMEOUT_MS.
 */
export function defaultTimeoutMs(now: number = Date.now()): number {
  const state = (globalThis as { __vitest_worker__?: VitestWorkerState }).__vitest_worker__;
  if (!state) return DEFAULT_TIMEOUT_MS;
  const current = state.current;
  const inTest = current?.type === 'test' && typeof current.timeout === 'number';
  const budget = inTest ? current.timeout! : (state.config?.hookTimeout ?? state.config?.testTimeout);
  if (typeof budget !== 'number' || !Number.isFinite(budget)) return DEFAULT_TIMEOUT_MS;
  if (budget <= 0) return UNLIMITED_TEST_TIMEOUT_MS;
  const started = inTest && typeof current.result?.startTime === 'number' ? current.result.startTime : now;
  const margin = Math.min(1_000, Math.max(250, budget * 0.1));
  return Math.max(50, Math.floor(started + budget - margin - now));
}

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
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs();
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
      const timedOut = (traces: string[]) =>
        new IdsyncError('wait_timeout', `timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${seen}${traces.length ? `; what did happen: ${traces.join(', ')}` : ''}`, {
          details: { awaited: what, lastSeen: seen, timeoutMs, ...(traces.length ? { traces } : {}) },
        });
      // Running testbeds draw what happened into HTML trace files, named in the error (trace.ts).
      void writeTimeoutTraces().then((traces) => fail(timedOut(traces)), () => fail(timedOut([])));
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
          let retryAfterMs = 0;
          try {
            const value = await read();
            last = describe(value);
            if (accept(value)) return resolve(value);
          } catch (err) {
            if (typeof err === 'object' && err !== null && fatalErrors.has(err)) return reject(err);
            const e = toIdsyncError(err);
            last = `error ${e.code}: ${e.message}`;
            retryAfterMs = retryAfterOf(e);
          }
          if (changes) await changes.after(version, stop.signal);
          // A service that said "too many requests" is not asked again before it said to: polling
          // on would spend the client's whole rate budget, and the test's own calls would get 429.
          else await pause(Math.max(options.pollMs ?? 50, retryAfterMs), stop.signal);
        }
      })().catch(reject);
    },
    () => last,
  );
}

/** The Retry-After of a refused read (rest-client.ts puts it in details), in ms; 0 without one. */
function retryAfterOf(e: IdsyncError): number {
  const seconds = (e.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : 0;
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
