// Per-client rate limit: a token bucket (capacity `burst`, refilled at `perSecond`) driven by
// the injected clock, so tests move time instead of sleeping. 429 answers carry Retry-After
// (RFC 9110 §10.2.3, in seconds).
import type { WorkGate } from './work-gate.js';
import type { Clock } from '../../clock.js';

export interface RateLimitOptions {
  /** Requests a client may make at once. */
  burst: number;
  /** Sustained requests per second. */
  perSecond: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { burst: 120, perSecond: 20 };

/**
 * Per remote address (docs/service.md "Limits"). DIDComm: POST /didcomm and WebSocket frames
 * together; generous, since every wallet of this local twin usually shares 127.0.0.1. Token
 * requests: each costs an scrypt check, so fewer.
 */
export const DEFAULT_DIDCOMM_ADDRESS_LIMIT: RateLimitOptions = { burst: 600, perSecond: 100 };
export const DEFAULT_TOKEN_ADDRESS_LIMIT: RateLimitOptions = { burst: 60, perSecond: 5 };

/**
 * The bucket key of a remote address: IPv4 (also IPv4-mapped IPv6) as it is, IPv6 by its /64
 * (one host commonly holds a whole /64, so single addresses would be free to rotate).
 */
export function addressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const a = address.toLowerCase().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  if (!a.includes(':')) return a;
  const [head, tail] = a.includes('::') ? a.split('::') : [a, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...new Array(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

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
        // Still full (many keys busy at once): forget the oldest, so memory stays bounded whatever the keys.
        for (const k of buckets.keys()) {
          if (buckets.size < MAX_BUCKETS) break;
          buckets.delete(k);
        }
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

/** Limits per remote address and on expensive work (app.ts builds them; docs/service.md "Limits"). */
export interface AddressLimits {
  /** POST /didcomm and WebSocket upgrades and frames, keyed by addressKey(). */
  didcomm: RateLimiter;
  /** POST /api/v1/auth/token, keyed by addressKey(). */
  token: RateLimiter;
  /** Client secret checks (scrypt) at once. */
  secretChecks: WorkGate;
}
