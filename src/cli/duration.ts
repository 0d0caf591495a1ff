// Durations on the command line: milliseconds (`60000`) or a number with a unit (`30d`, `12h`).
import { MAX_WAIT_MS } from '../wait.js';
import { usageError } from './errors.js';

/** The longest duration taken at all: a hundred years, far inside what a Date can hold (an expiry is now + duration). */
export const MAX_DURATION_MS = 100 * 365 * 86_400_000;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration: milliseconds (`60000`) or a number with a unit (`30d`, `12h`, `15m`, `90s`, `500ms`). */
export function parseDuration(flag: string, value: string | undefined, max: number = MAX_DURATION_MS): number | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(value.trim());
  const ms = m ? Math.round(Number(m[1]) * UNIT_MS[m[2] ?? 'ms']) : NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0) throw usageError('invalid_argument', `${flag} must be a duration such as 30d, 12h or 60000 (ms): ${value}`);
  if (ms > max) throw usageError('invalid_argument', `${flag} must be at most ${max} ms: ${value}`);
  return ms;
}

/** A wait in whole milliseconds, 1 to MAX_WAIT_MS. */
export function waitMs(flag: string, value: string, unitMs = 1, unit = 'milliseconds'): number {
  const n = Number(value);
  const ms = Math.round(n * unitMs);
  if (value.trim() === '' || !Number.isFinite(n) || ms < 1 || (unitMs === 1 && !Number.isInteger(n))) {
    throw usageError('invalid_argument', `${flag} must be a positive ${unitMs === 1 ? 'whole ' : ''}number of ${unit}: ${value}`);
  }
  if (ms > MAX_WAIT_MS) throw usageError('invalid_argument', `${flag} must be at most ${MAX_WAIT_MS / unitMs} ${unit} (24.8 days, the longest a timer waits): ${value}`);
  return ms;
}
