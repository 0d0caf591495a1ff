// Time and ids are injected so tests are deterministic and never sleep on wall time.
import { randomUUID } from 'node:crypto';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** The clock's time as an ISO 8601 UTC timestamp with milliseconds (the API's time format). */
export function isoNow(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}

/** A clock that only moves when told to: for tests of expiry and back-off. */
export class ManualClock implements Clock {
  constructor(private t = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(ms: number): void {
    this.t = ms;
  }
}

export type IdGenerator = () => string;

export const uuid: IdGenerator = () => randomUUID();

/** Deterministic ids for tests: prefix-1, prefix-2, … */
export function sequentialIds(prefix = 'id'): IdGenerator {
  let n = 0;
  return () => `${prefix}-${++n}`;
}
