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

/**
 * Epoch seconds from a peer (DIDComm's created_time and expires_time, a JWT's nbf and exp) as an
 * ISO 8601 UTC timestamp; undefined when no Date holds that time (beyond ±8.64e12 seconds, or not a
 * finite number), where toISOString() would throw a RangeError.
 */
export function isoOfEpochSeconds(seconds: number): string | undefined {
  const ms = epochSecondsMs(seconds);
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

/** Epoch seconds from a peer in milliseconds; undefined when no Date holds that time (as isoOfEpochSeconds). */
export function epochSecondsMs(seconds: number): number | undefined {
  const ms = seconds * 1000;
  return Number.isNaN(new Date(ms).getTime()) ? undefined : ms;
}

/** Epoch seconds as words for a message: the ISO time, or the number itself when no Date holds it. */
export function describeEpochSeconds(seconds: number): string {
  return isoOfEpochSeconds(seconds) ?? `${seconds} (seconds since 1970, beyond any date)`;
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
