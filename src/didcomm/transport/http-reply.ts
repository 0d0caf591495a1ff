// The sending side's reading of an HTTP answer (DIDComm v2 "Transports › HTTP(S)"), from a fetch
// Response or from a server in this process (http-fetch.ts IN_PROCESS) alike: a return-routed
// reply in a 2xx body, none, or the error the status says (503 and 429: retry later, with
// Retry-After; anything else: transport_rejected with the receiver's problem code).
import type { Clock } from '../../clock.js';
import { IdsyncError } from '../../errors.js';
import { NULL_BODY_STATUSES, readBounded, type PlainResponse } from '../../http-fetch.js';
import { bareMediaType, detectMediaType, isDidcommMediaType, parseRetryAfter, retryLaterError } from './media-type.js';

/** A reply as the sender reads it: from a fetch Response, or from a server in this process (no streams). */
export interface Reply {
  status: number;
  header(name: string): string | null;
  /** The body as text, within `max` bytes; a longer one is refused as transport_rejected. */
  text(max: number): Promise<string>;
  /** Drops the body unread. */
  discard(): Promise<void>;
}

function tooLargeError(endpoint: string, status: number, max: number): IdsyncError {
  return new IdsyncError('transport_rejected', `reply from ${endpoint} is larger than ${max} bytes`, { details: { endpoint, status, maxBytes: max } });
}

/** A fetch Response, its body read within the limit (http-fetch.ts). */
export function responseReply(res: Response, endpoint: string): Reply {
  return {
    status: res.status,
    header: (name) => res.headers.get(name),
    text: async (max) => (await readBounded(res, max, () => tooLargeError(endpoint, res.status, max))).toString('utf8'),
    discard: async () => {
      await res.body?.cancel();
    },
  };
}

/** An in-process server's answer, read with the same limits (and null-body statuses) as a Response. */
export function plainReply(res: PlainResponse, endpoint: string): Reply {
  const body = NULL_BODY_STATUSES.has(res.status) ? '' : (res.body ?? '');
  return {
    status: res.status,
    header: (name) => res.headers[name] ?? null,
    text: async (max) => {
      // Content-Length is the UTF-8 size; a string of at most max/3 UTF-16 units cannot exceed it.
      if (body.length > max / 3 && Buffer.byteLength(body) > max) throw tooLargeError(endpoint, res.status, max);
      return body;
    },
    discard: async () => {},
  };
}

/** The exchange's answer, or a timeout: what an aborted fetch would throw (networkError reads it). */
export function withTimeout(answer: Promise<PlainResponse>, timeoutMs: number): Promise<PlainResponse> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new DOMException('the in-process exchange timed out', 'TimeoutError')), timeoutMs);
    answer.then(
      (r) => {
        clearTimeout(timer);
        resolve(r);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/** The `code` of an RFC 9457 problem document, if `text` is one (the receiver's, not necessarily ours). */
function remoteCodeOf(text: string): string | undefined {
  try {
    const p = JSON.parse(text) as { code?: unknown };
    return typeof p?.code === 'string' ? p.code : undefined;
  } catch {
    return undefined;
  }
}

function looksPacked(text: string): boolean {
  try {
    detectMediaType(text);
    return true;
  } catch {
    return false;
  }
}

/** A final (not redirecting) reply: the return-routed message, none, or the error its status says. */
export async function replyOutcome(res: Reply, endpoint: string, maxReplyBytes: number, clock: Clock): Promise<string[]> {
  if (res.status < 200 || res.status > 299) {
    const text = await res.text(64 * 1024).catch(() => '');
    const problemCode = remoteCodeOf(text);
    // RFC 9110 §15.6.4 (503), RFC 6585 §4 (429): not taken now; Retry-After says when to resend.
    if (res.status === 503 || res.status === 429) {
      throw retryLaterError(endpoint, res.status, parseRetryAfter(res.header('retry-after'), clock.now()), problemCode);
    }
    throw new IdsyncError('transport_rejected', `${endpoint} answered ${res.status}`, {
      details: { endpoint, status: res.status, ...(problemCode ? { problemCode } : {}) },
    });
  }
  const body = await res.text(maxReplyBytes);
  const type = bareMediaType(res.header('content-type'));
  if (body.trim() === '') return [];
  if (isDidcommMediaType(type) || ((type === '' || type === 'application/json') && looksPacked(body))) return [body];
  return [];
}
