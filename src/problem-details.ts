// RFC 9457 problem details for the HTTP endpoints that have no problem types of their own (the
// mediator, a wallet's DIDComm endpoint and control API, the fault proxy); the service twin's
// REST API has its own, dereferenceable ones (service/http/problem.ts).
import http from 'node:http';

/**
 * An RFC 9457 problem details document with no problem type of its own (`about:blank`): §4.2.1
 * "the title SHOULD be the same as the recommended HTTP status phrase for that code", and what
 * went wrong this time goes in `detail` (§3.1.4), so the title does not change "from occurrence
 * to occurrence" (§3.1.3). The stable code is the `code` extension member (§3.2).
 */
export function problemDocument(status: number, code: string, detail: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'about:blank', title: http.STATUS_CODES[status] ?? 'Error', status, detail, code, ...extra };
}
