// One error type for the whole package: a stable `code` from the catalogue (catalogue.ts) callers
// can switch on, a message for people, and optional details. The code's HTTP status and
// report-problem code are looked up here, once; the HTTP mapping (service/http/problem.ts), the
// problem reports (protocols/report-problem.ts) and the CLI error line read them from here.
// Never put private key material in a message or in details.
import { ERRORS, type ErrorCode, type ErrorEntry } from './catalogue.js';

export class IdsyncError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'IdsyncError';
    this.code = code;
    if (options.details) this.details = options.details;
  }
}

export function isIdsyncError(err: unknown): err is IdsyncError {
  return err instanceof IdsyncError;
}

/** Wraps anything thrown into an IdsyncError, keeping an existing code. */
export function toIdsyncError(err: unknown, fallbackCode: ErrorCode = 'internal_error'): IdsyncError {
  if (err instanceof IdsyncError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new IdsyncError(fallbackCode, message, { cause: err });
}

/** Whether `value` is a code of the catalogue (own keys only: 'constructor' is not a code). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERRORS, value);
}

/**
 * A code that arrived from elsewhere (a problem body from a service, a wallet serve's answer):
 * itself when the catalogue has it, else `fallback`. Keep the foreign value in details: a code
 * that is not ours never becomes an IdsyncError code.
 */
export function asErrorCode(value: unknown, fallback: ErrorCode): ErrorCode {
  return isErrorCode(value) ? value : fallback;
}

export function errorEntry(code: ErrorCode): ErrorEntry {
  return ERRORS[code];
}

/** The HTTP status of a problem response with this code; 500 for a code that never reaches HTTP. */
export function httpStatusOf(code: ErrorCode): number {
  return errorEntry(code).status ?? 500;
}

/** The report-problem 2.0 code a peer gets for this code; `e.p.me` (internal) when it has none. */
export function problemCodeOf(code: ErrorCode): string {
  return errorEntry(code).problem ?? ERRORS.internal_error.problem;
}
