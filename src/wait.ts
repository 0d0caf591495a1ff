// Waiting for an event instead of sleeping: the first payload an emitter sends that passes a
// predicate, as a promise. Router.waitFor uses it, and so do the wallet's waits (wallet/events.ts).
import type { EventEmitter } from 'node:events';
import { IdsyncError } from './errors.js';

export interface WaitOptions {
  /** Guard against waiting forever (default 10 s); not a way to wait for state. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Keep the process alive while waiting: for a caller that awaits the answer and always stops
   * the wait. Without it the guard's timer is unref'd, so a process whose only work left is this
   * wait (a CLI whose request got a 202 and no answer) exits with status 13, neither answered nor
   * timed out.
   */
  hold?: boolean;
}

export const DEFAULT_WAIT_TIMEOUT_MS = 10_000;

/**
 * The longest wait a timer can hold: Node's setTimeout takes at most 2^31 - 1 ms (24.8 days)
 * and fires after 1 ms for anything longer, so a larger timeout would end a wait at once.
 */
export const MAX_WAIT_MS = 2 ** 31 - 1;

/**
 * The reason waits are stopped with by stopWaits: made once, so that ending the waits that lost
 * a race (a flow's answer came, so its problem and refusal waits are over: several per message
 * exchange) builds no DOMException and no error with a stack each time. Frozen: it is shared.
 */
const WAITS_STOPPED = Object.freeze(new IdsyncError('aborted', 'stopped waiting: the wait is no longer needed'));

/** Ends the waits listening to `controller`'s signal: they reject with code 'aborted'. */
export function stopWaits(controller: AbortController): void {
  controller.abort(WAITS_STOPPED);
}

/**
 * Resolves with the first `event` payload that passes `predicate` (any payload without one). A
 * predicate that throws counts as "not this one": the error must not escape into the emitter's
 * caller. Rejects with 'timeout' after `timeoutMs`, with 'aborted' when `signal` aborts.
 */
export function waitForEvent<T>(
  emitter: Pick<EventEmitter, 'on' | 'off'>,
  event: string,
  predicate?: (data: T) => boolean,
  options: WaitOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  return new Promise<T>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      emitter.off(event, listener);
      options.signal?.removeEventListener('abort', aborted);
    };
    const listener = (data: T) => {
      if (predicate && !matches(predicate, data)) return;
      done();
      resolve(data);
    };
    const aborted = () => {
      done();
      reject(options.signal?.reason === WAITS_STOPPED ? WAITS_STOPPED : new IdsyncError('aborted', `stopped waiting for ${event}`));
    };
    // A guard against waiting forever, not a way to wait for state.
    const timer = setTimeout(() => {
      done();
      reject(new IdsyncError('timeout', `no ${event} event within ${timeoutMs} ms`));
    }, timeoutMs);
    if (!options.hold) timer.unref?.();
    if (options.signal?.aborted) return aborted();
    options.signal?.addEventListener('abort', aborted);
    emitter.on(event, listener);
  });
}

function matches<T>(predicate: (data: T) => boolean, data: T): boolean {
  try {
    return predicate(data);
  } catch {
    return false;
  }
}
