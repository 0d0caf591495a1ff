// The 429 answer of the rate limiter (RFC 6585 §4) with Retry-After in seconds.
import { problem, type HttpProblem } from './problem.js';

export function rateLimitProblem(retryAfterSeconds: number): HttpProblem {
  return problem('rate_limited', `too many requests; retry after ${retryAfterSeconds} s`, { retryAfter: retryAfterSeconds }, {
    'Retry-After': String(retryAfterSeconds),
  });
}
