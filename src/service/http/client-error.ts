// What the service answers a request Node's HTTP parser refuses before fastify sees it (fastify's
// clientErrorHandler): the endpoints' answer (problem-details.ts), with the REST API's own
// dereferenceable problem types, where fastify's own answer is JSON of its shape.
import type { Socket } from 'node:net';
import { answerClientError as answer, type ClientErrorDocument } from '../../problem-details.js';
import { problem, toProblem } from './problem.js';

// No request-target to name: the instance is left out (RFC 9457 §3.1.5 makes it optional).
const serviceDocument: ClientErrorDocument = (_status, code, detail) => {
  const { instance: _none, ...rest } = toProblem(problem(code, detail), '').body;
  return rest;
};

export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  answer(err, socket, serviceDocument);
}
