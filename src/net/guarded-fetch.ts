// A fetch whose every connection passes a ConnectGuard (connect-guard.ts): the guard checks the
// host of each connection undici opens (redirect hops and pooled origins included), resolving
// names through its own lookup, so the socket goes to an address that was checked. TLS keeps the
// URL's host name for SNI and certificate checks; the Host header is the URL's. Built on undici
// (the library behind Node's own fetch) because only a dispatcher can set the connection's lookup.
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { isIdsyncError } from '../errors.js';
import { ENDPOINT_REFUSED, refusedError, type ConnectGuard } from './connect-guard.js';

export interface GuardedFetchOptions {
  /** Extra CA certificates (PEM) for https, e.g. a private CA in tests; the system store otherwise. */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Connect timeout in ms (default undici's, 10 s). */
  connectTimeoutMs?: number;
}

export type GuardedFetch = typeof fetch & {
  /** Closes pooled connections; idempotent. */
  close(): Promise<void>;
};

/** The first `endpoint_refused` IdsyncError in an error's cause chain (undici wraps connect errors in TypeError('fetch failed')). */
function refusalIn(err: unknown): unknown {
  for (let e = err as { cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (isIdsyncError(e) && e.code === ENDPOINT_REFUSED) return e;
  }
  return undefined;
}

export function guardedFetch(guard: ConnectGuard, options: GuardedFetchOptions = {}): GuardedFetch {
  const connector = buildConnector({
    lookup: guard.lookup,
    ...(options.ca ? { ca: options.ca } : {}),
    ...(options.connectTimeoutMs !== undefined ? { timeout: options.connectTimeoutMs } : {}),
  });
  const agent = new Agent({
    connect: (opts, callback) => {
      // Every connection, redirect hops included. node:net skips `lookup` for IP literals: those
      // (and names that say what they are) are judged here; other names by the lookup itself.
      const refused = guard.hostRefusal(opts.hostname);
      if (refused) return callback(refusedError(opts.hostname, refused), null);
      connector(opts, callback);
    },
  });
  const guarded = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const refused = guard.staticRefusal(url);
    if (refused) throw refusedError(url.replace(/[?#].*$/, ''), refused);
    try {
      return (await undiciFetch(url, { ...(init as object), dispatcher: agent } as Parameters<typeof undiciFetch>[1])) as unknown as Response;
    } catch (err) {
      throw refusalIn(err) ?? err;
    }
  }) as GuardedFetch;
  let closing: Promise<void> | undefined;
  guarded.close = () => (closing ??= agent.close());
  return guarded;
}
