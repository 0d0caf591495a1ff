// RFC 9457 problem details: one catalogue mapping a stable code to an HTTP status and a
// title, and a helper to throw a coded error that carries its status.
import { IdsyncError, isIdsyncError } from '../../errors.js';

export interface ProblemEntry {
  status: number;
  title: string;
}

/**
 * The catalogue. Every error the HTTP API returns has one of these codes (docs/service.md
 * lists them). Domain modules may throw IdsyncError with any of these codes and the error
 * handler maps it; codes not listed here need `problem(code, status, ...)`.
 */
export const PROBLEMS: Record<string, ProblemEntry> = {
  // 400
  invalid_request: { status: 400, title: 'Invalid request' },
  malformed_json: { status: 400, title: 'Malformed JSON body' },
  json_too_deep: { status: 400, title: 'JSON nested too deeply' },
  invalid_scope: { status: 400, title: 'Invalid scope' },
  invalid_datapoints: { status: 400, title: 'Invalid datapoints' },
  invalid_destination: { status: 400, title: 'Invalid invitation destination' },
  invalid_invitation: { status: 400, title: 'Invalid invitation' },
  foreign_invitation: { status: 400, title: 'Not an invitation of this service' },
  invalid_config: { status: 400, title: 'Invalid configuration' },
  invalid_profile: { status: 400, title: 'Invalid data profile' },
  // 401
  invalid_client: { status: 401, title: 'Invalid client credentials' },
  unauthorized: { status: 401, title: 'Authentication required' },
  invalid_token: { status: 401, title: 'Invalid access token' },
  token_expired: { status: 401, title: 'Access token expired' },
  // 403
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  forbidden: { status: 403, title: 'Forbidden' },
  // 404
  not_found: { status: 404, title: 'Not found' },
  route_not_found: { status: 404, title: 'Route not found' },
  user_not_found: { status: 404, title: 'User not found' },
  project_not_found: { status: 404, title: 'Project not found' },
  data_profile_not_found: { status: 404, title: 'Data profile not found' },
  workflow_not_found: { status: 404, title: 'Issuance workflow not found' },
  invitation_not_found: { status: 404, title: 'Invitation not found' },
  partner_not_found: { status: 404, title: 'Partner not found' },
  webhook_not_found: { status: 404, title: 'Webhook not found' },
  status_list_not_found: { status: 404, title: 'Status list not found' },
  // 405
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  // 406
  not_acceptable: { status: 406, title: 'Not acceptable' },
  // 409
  conflict: { status: 409, title: 'Conflict' },
  session_not_established: { status: 409, title: 'Secure session not established' },
  sync_disabled: { status: 409, title: 'The user has not consented to data synchronization' },
  invalid_transition: { status: 409, title: 'Issuance workflow is not in a state that allows this' },
  invalid_state: { status: 409, title: 'Not allowed in the current state' },
  already_exists: { status: 409, title: 'Already exists' },
  // 410
  invitation_expired: { status: 410, title: 'Invitation expired' },
  workflow_expired: { status: 410, title: 'Issuance workflow expired' },
  // 413, 415, 429
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  rate_limited: { status: 429, title: 'Too many requests' },
  // 5xx: never for bad input
  internal_error: { status: 500, title: 'Internal server error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
  /** POST /didcomm: the message failed for a reason that may pass; the sender should resend it (Retry-After). */
  temporarily_unavailable: { status: 503, title: 'Temporarily unavailable' },
};

/** The catalogue entry of a code (own keys only: 'constructor' is not a code). */
export function problemEntry(code: string): ProblemEntry | undefined {
  return Object.prototype.hasOwnProperty.call(PROBLEMS, code) ? PROBLEMS[code] : undefined;
}

/** An IdsyncError that knows its HTTP status and extra problem members. */
export class HttpProblem extends IdsyncError {
  readonly status: number;
  /** Extension members (RFC 9457 §3.2) merged into the body, e.g. `errors`. */
  readonly extra?: Record<string, unknown>;
  /** Response headers to add, e.g. Retry-After or WWW-Authenticate. */
  readonly headers?: Record<string, string>;

  constructor(code: string, status: number, detail: string, extra?: Record<string, unknown>, headers?: Record<string, string>) {
    super(code, detail, extra ? { details: extra } : {});
    this.name = 'HttpProblem';
    this.status = status;
    if (extra) this.extra = extra;
    if (headers) this.headers = headers;
  }
}

/** `throw problem('user_not_found', 404, 'no user u1')`. Status defaults from the catalogue. */
export function problem(
  code: string,
  status: number | undefined,
  detail: string,
  extra?: Record<string, unknown>,
  headers?: Record<string, string>,
): HttpProblem {
  return new HttpProblem(code, status ?? problemEntry(code)?.status ?? 500, detail, extra, headers);
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: string;
  [extension: string]: unknown;
}

/** Problem type URIs are relative references (RFC 9457 §3.1.1) the service resolves: GET /problems/<code>. */
export function problemType(code: string): string {
  return `/problems/${code}`;
}

// Extension names that must not be overwritten by details.
const RESERVED = new Set(['type', 'title', 'status', 'detail', 'instance', 'code']);

/** Maps anything thrown to a status and an RFC 9457 body. Unknown errors become 500 without internals. */
export function toProblem(err: unknown, instance: string): { status: number; body: ProblemBody; headers: Record<string, string> } {
  let code = 'internal_error';
  let status = 500;
  let detail = 'an unexpected error occurred';
  let extra: Record<string, unknown> | undefined;
  let headers: Record<string, string> = {};
  if (err instanceof HttpProblem) {
    ({ code, status } = err);
    detail = err.message;
    extra = err.extra;
    headers = err.headers ?? {};
  } else if (isIdsyncError(err) && problemEntry(err.code)) {
    code = err.code;
    status = problemEntry(err.code)!.status;
    detail = err.message;
    extra = err.details;
  }
  const title = problemEntry(code)?.title ?? (status >= 500 ? 'Internal server error' : 'Error');
  const body: ProblemBody = { type: problemType(code), title, status, detail, instance, code };
  if (extra) for (const [k, v] of Object.entries(extra)) if (!RESERVED.has(k)) body[k] = v;
  return { status, body, headers };
}
