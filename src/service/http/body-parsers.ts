// Request body parsing: JSON (application/json and any application/*+json, e.g.
// merge-patch+json) nested at most MAX_JSON_DEPTH levels, an empty body counts as none (so `POST .../invite` without a body works),
// and DIDComm media types are kept as raw strings for the envelope layer.
import type { FastifyInstance } from 'fastify';
import { MEDIA_TYPES } from '../../didcomm/types.js';
import { JSON_TOO_DEEP, MAX_JSON_DEPTH, nestsDeeperThan } from '../../json-depth.js';
import { problem } from './problem.js';

export function installJsonParsers(app: FastifyInstance): void {
  type Done = (err: Error | null, body?: unknown) => void;
  // Fastify's own parser: secure-json-parse, refusing __proto__ and constructor.prototype.
  const json = app.getDefaultJsonParser('error', 'error') as unknown as (request: unknown, body: string, done: Done) => void;
  app.removeContentTypeParser('application/json');
  const parse = (request: unknown, body: string, done: Done): void => {
    if (body === '') return done(null, undefined);
    // RFC 8259 §9: nesting is bounded before parsing (json-depth.ts), so nothing that walks the
    // value later can overflow the stack.
    if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
      return done(problem(JSON_TOO_DEEP, `a JSON body may nest at most ${MAX_JSON_DEPTH} levels deep`, { maxDepth: MAX_JSON_DEPTH }));
    }
    json(request, body, done);
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => parse(request, body as string, done as Done));
  app.addContentTypeParser(/^application\/[\w.-]+\+json$/, { parseAs: 'string' }, (request, body, done) => parse(request, body as string, done as Done));
  app.addContentTypeParser(Object.values(MEDIA_TYPES), { parseAs: 'string' }, (_request, body, done) => done(null, body));
  // A missing body on a route that has a body schema counts as `{}`.
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && request.routeOptions.schema?.body && ['POST', 'PUT', 'PATCH'].includes(request.method)) {
      request.body = {};
    }
  });
}
