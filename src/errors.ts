// One error type for the whole package: a stable `code` callers can switch on, a message
// for people, and optional details. Codes are mapped once to HTTP status (service/http/problem.ts)
// and once to DIDComm problem reports (protocols/report-problem.ts).
// Never put private key material in a message or in details.

export class IdsyncError extends Error {
  readonly code: string;
  readonly details?: Record<string, unknown>;

  constructor(code: string, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
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
export function toIdsyncError(err: unknown, fallbackCode = 'internal_error'): IdsyncError {
  if (err instanceof IdsyncError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new IdsyncError(fallbackCode, message, { cause: err });
}
