// RFC 9457 problem details: a coded error that carries its HTTP status (taken from the error
// catalogue, src/errors/catalogue.ts), and the mapping of anything thrown to a problem body.
import { errorEntry, httpStatusOf, IdsyncError, isIdsyncError, type ErrorCode, type HttpErrorCode } from '../../errors.js';

/** An IdsyncError that knows its HTTP status and extra problem members. */
export class HttpProblem extends IdsyncError {
  readonly status: number;
  /** Extension members (RFC 9457 §3.2) merged into the body, e.g. `errors`. */
  readonly extra?: Record<string, unknown>;
  /** Response headers to add, e.g. Retry-After or WWW-Authenticate. */
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, status: number, detail: string, extra?: Record<string, unknown>, headers?: Record<string, string>) {
    super(code, detail, extra ? { details: extra } : {});
    this.name = 'HttpProblem';
    this.status = status;
    if (extra) this.extra = extra;
    if (headers) this.headers = headers;
  }
}

/** `throw problem('user_not_found', 'no user u1')`: the status is the catalogue's (404). */
export function problem(code: HttpErrorCode, detail: string, extra?: Record<string, unknown>, headers?: Record<string, string>): HttpProblem {
  return new HttpProblem(code, httpStatusOf(code), detail, extra, headers);
}

/**
 * A problem whose status is not the catalogue's. Only for a status that comes from elsewhere:
 * fastify's own 4xx errors (e.g. 404/405 a plugin raises) answered as `invalid_request`, and the
 * DIDComm HTTP transport's answer relayed by POST /didcomm (it may carry a 4xx an error names in
 * details.status, didcomm/transport/media-type.ts statusForHandlerError).
 */
export function problemWithStatus(code: ErrorCode, status: number, detail: string, extra?: Record<string, unknown>, headers?: Record<string, string>): HttpProblem {
  return new HttpProblem(code, status, detail, extra, headers);
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ErrorCode;
  [extension: string]: unknown;
}

/**
 * The problem type's title (RFC 9457 §3.1.3: it "SHOULD NOT change from occurrence to
 * occurrence"): the catalogue's, else the code in words. A code without a catalogue status is
 * relayed from the DIDComm side (POST /didcomm) and is a problem type all the same.
 */
export function problemTitle(code: ErrorCode): string {
  const given = errorEntry(code).title;
  if (given) return given;
  const words = code.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Problem type URIs are relative references (RFC 9457 §3.1.1) the service resolves: GET /problems/<code>. */
export function problemType(code: ErrorCode): string {
  return `/problems/${code}`;
}

// Extension names that must not be overwritten by details.
const RESERVED = new Set(['type', 'title', 'status', 'detail', 'instance', 'code']);

/** Maps anything thrown to a status and an RFC 9457 body. Unknown errors become 500 without internals. */
export function toProblem(err: unknown, instance: string): { status: number; body: ProblemBody; headers: Record<string, string> } {
  let code: ErrorCode = 'internal_error';
  let status = 500;
  let detail = 'an unexpected error occurred';
  let extra: Record<string, unknown> | undefined;
  let headers: Record<string, string> = {};
  if (err instanceof HttpProblem) {
    ({ code, status } = err);
    detail = err.message;
    extra = err.extra;
    headers = err.headers ?? {};
  } else if (isIdsyncError(err) && errorEntry(err.code).status !== undefined) {
    code = err.code;
    status = httpStatusOf(err.code);
    detail = err.message;
    extra = err.details;
  }
  const title = problemTitle(code);
  const body: ProblemBody = { type: problemType(code), title, status, detail, instance, code };
  if (extra) for (const [k, v] of Object.entries(extra)) if (!RESERVED.has(k)) body[k] = v;
  return { status, body, headers };
}
