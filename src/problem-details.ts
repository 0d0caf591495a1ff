// RFC 9457 problem details for the HTTP endpoints that have no problem types of their own (the
// mediator, a wallet's DIDComm endpoint and control API, the fault proxy); the service twin's
// REST API has its own, dereferenceable ones (service/http/problem.ts).
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { HttpErrorCode } from './errors.js';

/**
 * An RFC 9457 problem details document with no problem type of its own (`about:blank`): §4.2.1
 * "the title SHOULD be the same as the recommended HTTP status phrase for that code", and what
 * went wrong this time goes in `detail` (§3.1.4), so the title does not change "from occurrence
 * to occurrence" (§3.1.3). The stable code is the `code` extension member (§3.2).
 */
export function problemDocument(status: number, code: string, detail: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'about:blank', title: http.STATUS_CODES[status] ?? 'Error', status, detail, code, ...extra };
}

/** The body of a parser refusal: the endpoints' own problemDocument, or the service's typed one. */
export type ClientErrorDocument = (status: number, code: HttpErrorCode, detail: string) => Record<string, unknown>;

const PARSER_REFUSALS: Readonly<Record<'overflow' | 'malformed', { status: number; code: HttpErrorCode; detail: string }>> = {
  overflow: { status: 431, code: 'headers_too_large', detail: 'the request line and headers are larger than this server accepts (16 KiB)' },
  malformed: { status: 400, code: 'invalid_request', detail: 'the request is not valid HTTP/1.1 (RFC 9112): its request line, a header or its framing is malformed' },
};

/**
 * What a Node HTTP server answers a request its parser refuses ('clientError': an unknown
 * method, a malformed request line or header, two Content-Lengths, a header block over 16 KiB),
 * as problem details with a code, where Node's own answer is a bare 400 with no body. Nothing is
 * written to a connection that was reset or timed out idle (nobody waits for an answer).
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex, document: ClientErrorDocument = problemDocument): void {
  if (err.code === 'ECONNRESET' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
    socket.destroy();
    return;
  }
  const refusal = PARSER_REFUSALS[err.code === 'HPE_HEADER_OVERFLOW' ? 'overflow' : 'malformed'];
  const { status } = refusal;
  const body = JSON.stringify(document(status, refusal.code, refusal.detail));
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
