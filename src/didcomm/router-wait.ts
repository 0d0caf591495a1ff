// Router.waitFor: the first event payload that satisfies a predicate, as a promise.
import type { EventEmitter } from 'node:events';
import { IdsyncError } from '../errors.js';

export function waitForEvent<T>(
  events: EventEmitter,
  event: string,
  predicate?: (data: T) => boolean,
  o: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      events.off(event, listener);
      o.signal?.removeEventListener('abort', aborted);
    };
    const listener = (data: T) => {
      if (predicate && !predicate(data)) return;
      done();
      resolve(data);
    };
    const aborted = () => {
      done();
      reject(new IdsyncError('aborted', `stopped waiting for ${event}`));
    };
    // A guard against waiting forever, not a way to wait for state.
    const timer = setTimeout(() => {
      done();
      reject(new IdsyncError('timeout', `no ${event} event within ${o.timeoutMs ?? 10_000} ms`));
    }, o.timeoutMs ?? 10_000);
    timer.unref?.();
    if (o.signal?.aborted) return aborted();
    o.signal?.addEventListener('abort', aborted);
    events.on(event, listener);
  });
}
