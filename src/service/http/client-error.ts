// What the service answers a request Node's HTTP parser refuses before fastify sees it (fastify's
// clientErrorHandler): an unknown method, a malformed request line or header, a header block
// over the limit, duplicate Content-Length, a bad chunk. Fastify's own answer is JSON of its
// shape; the REST API answers every error as RFC 9457 problem details, with a code, so these too.
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { problem, toProblem } from './problem.js';

/** The raw HTTP/1.1 response for a parser error; undefined when nothing should be written. */
export function clientErrorResponse(err: Error & { code?: string }): string | undefined {
  // A connection reset or a timeout of an idle keep-alive socket: nobody is waiting for an answer.
  if (err.code === 'ECONNRESET' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return undefined;
  const refused =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? problem('headers_too_large', 'the request line and headers are larger than the service accepts (16 KiB)')
      : problem('invalid_request', 'the request is not valid HTTP/1.1 (RFC 9112): its request line, a header or its framing is malformed');
  const { status, body } = toProblem(refused, '');
  // No request-target to name: the instance is left out (RFC 9457 §3.1.5 makes it optional).
  const { instance: _none, ...rest } = body;
  const text = JSON.stringify(rest);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
}

export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  const response = socket.destroyed ? undefined : clientErrorResponse(err);
  if (response !== undefined && socket.writable) socket.end(response);
  else socket.destroy();
}
