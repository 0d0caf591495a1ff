// The one back-off policy of every retry (protocol steps and transport redelivery alike): how long
// to wait before sending again, by what became of the last send (docs/protocols.md "Durable
// steps"). Each delay is drawn in [d/2, d] (equal jitter), so that parties that failed together do
// not all come back in the same millisecond.
//
// - `failed`: the peer may be there but did not take it (a timeout, a 503/429, an error): from
//   `baseDelayMs`, doubling up to `maxDelayMs`, never before the peer's Retry-After;
// - `unreachable`: nothing listens there (connection refused or reset): the peer's process is
//   down, not overloaded, and comes back within seconds after a restart. Doubling from
//   `baseDelayMs` but never more than `unreachableDelayMs` (1 s) apart, so that a restarted peer
//   gets the message within a second;
// - `accepted`: the peer took it (2xx) and holds it durably; another send is only a liveness check
//   against a peer or network that lost it anyway: from `acceptedDelayMs`, doubling to `maxDelayMs`.
//
// `attempts` counts the retries since the process started: after a start every pending retry is
// due at once, and the back-off begins again after that first retry.

export type SendOutcome =
  | { kind: 'failed'; retryAfterMs?: number }
  | { kind: 'unreachable' }
  | { kind: 'accepted' };

export interface BackoffOptions {
  /** First retry of a send that failed, doubling (default 2 s). */
  baseDelayMs?: number;
  /** The longest wait between two retries (default 60 s). */
  maxDelayMs?: number;
  /** The longest wait between two retries to a peer nobody listens for (default 1 s). */
  unreachableDelayMs?: number;
  /** First liveness retry of a message the peer accepted (default 15 × baseDelayMs within [base, max]). */
  acceptedDelayMs?: number;
  /** In [0, 1); injected for deterministic jitter. */
  random?: () => number;
}

export const DEFAULT_BACKOFF = { baseDelayMs: 2_000, maxDelayMs: 60_000, unreachableDelayMs: 1_000 } as const;

export type Backoff = (attempts: number, outcome: SendOutcome) => number;

export function backoff(o: BackoffOptions = {}): Backoff {
  const base = o.baseDelayMs ?? DEFAULT_BACKOFF.baseDelayMs;
  const max = o.maxDelayMs ?? DEFAULT_BACKOFF.maxDelayMs;
  const unreachable = Math.min(max, o.unreachableDelayMs ?? DEFAULT_BACKOFF.unreachableDelayMs);
  const accepted = Math.min(max, Math.max(base, o.acceptedDelayMs ?? 15 * base));
  const random = o.random ?? Math.random;
  const jitter = (d: number) => Math.round(d / 2 + random() * (d / 2));
  const doubled = (from: number, cap: number, attempts: number) => Math.min(cap, from * 2 ** Math.min(attempts, 30));
  return (attempts, outcome) => {
    if (outcome.kind === 'accepted') return jitter(doubled(accepted, max, attempts));
    if (outcome.kind === 'unreachable') return jitter(doubled(base, unreachable, attempts));
    return Math.max(jitter(doubled(base, max, attempts)), outcome.retryAfterMs ?? 0);
  };
}

/** Transport failures that say nothing listens at the peer's address (its process is down). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The outcome of a send that threw `e` (an IdsyncError's code and details). */
export function failureOutcome(e: { code: string; details?: unknown }, retryAfterMs?: number): SendOutcome {
  const reason = (e.details as { reason?: unknown } | undefined)?.reason;
  if (e.code === 'transport_unreachable' && (reason === undefined || (typeof reason === 'string' && UNREACHABLE.has(reason)))) return { kind: 'unreachable' };
  return { kind: 'failed', ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}
