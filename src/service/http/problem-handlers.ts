// Every failure leaves as RFC 9457 application/problem+json with a stable code: our own
// problems, fastify's framework errors (bad JSON, body too large, media type, validation) and
// unknown routes. Anything unexpected is a logged 500 that reveals no internals.
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HttpErrorCode } from '../../errors.js';
import { HttpProblem, problem, problemWithStatus, toProblem } from './problem.js';
import { bearerChallenge } from './bearer-challenge.js';

// The validator's error objects (TypeBox; ajv-like: instancePath, keyword, params, message).
interface SchemaError {
  instancePath?: string;
  schemaPath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

export interface FieldError {
  field: string;
  code: string;
  message: string;
}

/** Validation errors → [{field, code, message}] with JSON-pointer-like fields (`body/datapoints/firstName`). */
export function fieldErrors(validation: SchemaError[], context?: string): FieldError[] {
  const prefix = context ?? 'body';
  const out: FieldError[] = [];
  const seen = new Set<string>();
  const add = (path: string, code: string, message: string) => {
    const field = `${prefix}${path}`;
    if (seen.has(field)) return;
    seen.add(field);
    out.push({ field, code, message });
  };
  for (const e of validation) {
    const path = e.instancePath ?? '';
    const p = e.params ?? {};
    const names = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : []);
    if (e.keyword === 'required') {
      for (const name of [...names(p.requiredProperties), ...names(p.missingProperty)]) add(`${path}/${name}`, 'required', 'is required');
    } else if (e.keyword === 'additionalProperties') {
      for (const name of [...names(p.additionalProperties), ...names(p.additionalProperty)]) add(`${path}/${name}`, 'not_allowed', 'is not allowed');
    } else if (e.keyword === 'boolean' && e.schemaPath?.endsWith('additionalProperties')) {
      add(path, 'not_allowed', 'is not allowed');
    } else {
      add(path, e.keyword ?? 'invalid', e.message ?? 'is invalid');
    }
  }
  return out;
}

// fastify's error codes → ours; the status is the catalogue's.
const FRAMEWORK: Readonly<Record<string, { code: HttpErrorCode; detail: string }>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'malformed_json', detail: 'the body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'malformed_json', detail: 'the JSON body is empty' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload_too_large', detail: 'the body is larger than 1 MiB' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported_media_type', detail: 'send application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'invalid_request', detail: 'Content-Length does not match the body' },
  FST_ERR_BAD_URL: { code: 'invalid_request', detail: 'the URL is malformed' },
  FST_ERR_INVALID_URL: { code: 'invalid_request', detail: 'the URL is malformed' },
  FST_ERR_ASYNC_CONSTRAINT: { code: 'invalid_request', detail: 'the request does not match a route constraint' },
};

/** Maps anything thrown while handling a request to an HttpProblem (or leaves it for a 500). */
export function toHttpProblem(err: unknown): unknown {
  if (err instanceof HttpProblem) return err;
  const e = err as FastifyError & { validation?: SchemaError[]; validationContext?: string };
  if (e && Array.isArray(e.validation)) {
    const errors = fieldErrors(e.validation, e.validationContext);
    const first = errors[0];
    return problem('invalid_request', first ? `${first.field} ${first.message}` : 'the request is invalid', { errors });
  }
  const known = e?.code && Object.hasOwn(FRAMEWORK, e.code) ? FRAMEWORK[e.code] : undefined;
  if (known) return problem(known.code, known.detail);
  // Other client errors fastify raises (4xx statusCode) stay client errors, with their status.
  if (e && typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    if (e.statusCode === 413) return problem('payload_too_large', e.message);
    if (e.statusCode === 415) return problem('unsupported_media_type', e.message);
    // A status the catalogue has a code for gets that code (a plugin's 403 is forbidden, not invalid_request).
    if (e.statusCode === 403) return problem('forbidden', e.message);
    if (e.statusCode === 404) return problem('not_found', e.message);
    return problemWithStatus('invalid_request', e.statusCode, e.message);
  }
  return err;
}

function instanceOf(url: string): string {
  return url.split('?')[0].slice(0, 2048);
}

/** What `err` answers `request` with: status, RFC 9457 body and headers (a 5xx is logged here). */
export function problemFor(request: FastifyRequest, err: unknown): ReturnType<typeof toProblem> {
  return problemAt(request.url, err, request.log);
}

/** problemFor() of a request known by its URL and logger alone (a route answered without fastify). */
export function problemAt(url: string, err: unknown, log: Pick<FastifyBaseLogger, 'error'>): ReturnType<typeof toProblem> {
  const mapped = toHttpProblem(err);
  const answer = toProblem(mapped, instanceOf(url));
  if (answer.status >= 500) log.error({ err }, 'unexpected error');
  if (answer.status === 401 && !answer.headers['WWW-Authenticate']) answer.headers['WWW-Authenticate'] = bearerChallenge();
  return answer;
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const { status, body, headers } = problemFor(request, err);
  // Serialised here so no route response schema reshapes it.
  return reply.code(status).headers(headers).type('application/problem+json').send(JSON.stringify(body));
}

export function installProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => sendProblem(request, reply, err));
  app.setNotFoundHandler((request, reply) =>
    sendProblem(request, reply, problem('route_not_found', `no route ${request.method} ${instanceOf(request.url)}`)),
  );
}
