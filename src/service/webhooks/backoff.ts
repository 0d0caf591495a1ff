// Retry schedule for webhook deliveries: exponential back-off with "equal jitter"
// (half the delay fixed, half random), so retries from many events do not line up.

export interface BackoffOptions {
  /** Delay after the first failed attempt, before jitter. */
  baseMs: number;
  /** Ceiling of the delay, before jitter. */
  maxMs: number;
  /** Attempts in all (the first one included) before a delivery is dead-lettered. */
  maxAttempts: number;
}

/** Standard Webhooks suggests retrying over about a day; 5 s doubling to 1 h, 10 attempts, is ~2.5 h. */
export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 5_000, maxMs: 3_600_000, maxAttempts: 10 };

/** Delay before attempt `failed + 1`, after `failed` (≥ 1) failed attempts; `random` in [0, 1). */
export function backoffDelay(failed: number, options: BackoffOptions, random: () => number): number {
  const exp = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, failed - 1));
  const half = exp / 2;
  return Math.round(half + random() * half);
}
