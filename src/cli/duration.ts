// Durations on the command line: milliseconds (`60000`) or a number with a unit (`30d`, `12h`).
import { usageError } from './errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration: milliseconds (`60000`) or a number with a unit (`30d`, `12h`, `15m`, `90s`, `500ms`). */
export function parseDuration(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(value.trim());
  const ms = m ? Math.round(Number(m[1]) * UNIT_MS[m[2] ?? 'ms']) : NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0) throw usageError('invalid_argument', `${flag} must be a duration such as 30d, 12h or 60000 (ms): ${value}`);
  return ms;
}
