// What both HTTP clients need from fetch (the did:web resolver and the status-list fetch in did/,
// the DIDComm HTTP transport in didcomm/): a response body read within a byte limit, and a failed
// fetch told apart as "no answer in time" or "could not reach" with the address and the reason.
import { IdsyncError, isIdsyncError } from './errors.js';

/**
 * Reads at most `maxBytes` of a response body. A declared Content-Length over the limit is refused
 * before reading; otherwise the body is read chunk by chunk and, once past the limit, the stream
 * is cancelled (the connection dropped) instead of read to its end. The caller names the error.
 */
export async function readBounded(res: Response, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** Socket-level failures named by their code instead of undici's bare "fetch failed". */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** The first string `code` on the error or its causes (undici puts the socket's in `cause`). */
function causeCode(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (typeof e.code === 'string') return e.code;
  }
  return undefined;
}

/** The message of the last error in the cause chain: undici's "fetch failed" says why only in its cause ("bad port", …). */
function innermostMessage(err: unknown): string | undefined {
  let message: string | undefined;
  for (let e = err as { message?: unknown; cause?: unknown } | undefined, i = 0; e && typeof e === 'object' && i < 5; e = e.cause as typeof e, i++) {
    if (typeof e.message === 'string' && e.message) message = e.message;
  }
  return message;
}

/**
 * A fetch of `url` that threw, as a coded error: `transport_timeout` when no answer came in time,
 * else `transport_unreachable` with the socket's reason (ECONNREFUSED, ENOTFOUND, …). Details:
 * `{endpoint, reason}`. An IdsyncError passes through as it is.
 */
export function networkError(err: unknown, url: string): IdsyncError {
  if (isIdsyncError(err)) return err;
  const name = (err as Error)?.name;
  const code = causeCode(err);
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') {
    return new IdsyncError('transport_timeout', `no answer from ${url} in time`, { details: { endpoint: url, reason: code ?? 'timeout' }, cause: err });
  }
  const why = code && NETWORK_CODES.has(code) ? code : (innermostMessage(err) ?? 'network error');
  return new IdsyncError('transport_unreachable', `cannot reach ${url} (${why})`, { details: { endpoint: url, reason: code }, cause: err });
}

/** Fetch §Response: statuses whose response has a null body, whatever the server wrote. */
export const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 204, 205, 304]);

/** A request handed to a server in this process as data (no socket, no fetch Request). */
export interface PlainRequest {
  method: string;
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: string;
}

/** What that server answers: what its HTTP response would carry (lower-case header names). */
export interface PlainResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

/** A server in this process, called with plain data. */
export type PlainExchange = (req: PlainRequest) => Promise<PlainResponse>;

/**
 * The property of a fetch function that reaches servers in this process (the fleet's link):
 * `fetch[IN_PROCESS](url)` is the exchange that answers `url`, or undefined for the network. A
 * sender that knows it may skip building fetch Request, Response, Headers and stream objects
 * for each message; the answer is the same, read from the same status, headers and body.
 */
export const IN_PROCESS: unique symbol = Symbol('idsync.inProcessExchange');

export type InProcessFetch = typeof fetch & { [IN_PROCESS]?: (url: string) => PlainExchange | undefined };

/** The in-process exchange that answers `url` through `f`, if `f` has one for it. */
export function inProcessExchange(f: typeof fetch, url: string): PlainExchange | undefined {
  return (f as InProcessFetch)[IN_PROCESS]?.(url);
}

/** Whether a URL is under `origin` (scheme://host:port, no trailing slash): the origin itself or a path below it, not another port. */
export function underOrigin(origin: string): (url: string) => boolean {
  return (url) => url.startsWith(origin) && (url.length === origin.length || url[origin.length] === '/');
}

/**
 * A fetch that sends each request `isLocal` picks to `local` and the rest to `remote`, and the
 * plain-data way in (IN_PROCESS) by the same choice.
 */
export function splitFetch(isLocal: (url: string) => boolean, local: typeof fetch, remote: typeof fetch): typeof fetch {
  const f = ((input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    return isLocal(url) ? local(input, init) : remote(input, init);
  }) as InProcessFetch;
  f[IN_PROCESS] = (url) => inProcessExchange(isLocal(url) ? local : remote, url);
  return f;
}
