// Per-client rate limit: a token bucket (capacity `burst`, refilled at `perSecond`) driven by
// the injected clock, so tests move time instead of sleeping. 429 answers carry Retry-After
// (RFC 9110 §10.2.3, in seconds).
import type { Clock } from '../clock.js';

export interface RateLimitOptions {
  /** Requests a client may make at once. */
  burst: number;
  /** Sustained requests per second. */
  perSecond: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { burst: 120, perSecond: 20 };

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface RateLimiter {
  take(key: string): RateDecision;
}

interface Bucket {
  tokens: number;
  at: number;
}

// Buckets idle long enough to be full again are forgotten, so memory stays bounded.
const MAX_BUCKETS = 10_000;

export function createRateLimiter(clock: Clock, options: RateLimitOptions | false): RateLimiter {
  if (options === false) return { take: () => ({ allowed: true }) };
  const { burst, perSecond } = options;
  const buckets = new Map<string, Bucket>();
  return {
    take(key) {
      const now = clock.now();
      const b = buckets.get(key) ?? { tokens: burst, at: now };
      b.tokens = Math.min(burst, b.tokens + (Math.max(0, now - b.at) / 1000) * perSecond);
      b.at = now;
      if (buckets.size >= MAX_BUCKETS && !buckets.has(key)) {
        for (const [k, v] of buckets) if (v.tokens + ((now - v.at) / 1000) * perSecond >= burst) buckets.delete(k);
      }
      buckets.set(key, b);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return { allowed: true };
      }
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(((1 - b.tokens) / perSecond))) };
    },
  };
}
