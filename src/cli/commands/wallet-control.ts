// The control API of `idsync wallet serve`: LevelDB admits one process, so while serve runs the
// other wallet commands ask it over HTTP on 127.0.0.1 instead of opening the store. The serve
// process writes DIR/serve.json {pid, url, token} (mode 0600); every request carries the token.
import { timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { IdsyncError, asErrorCode, httpStatusOf, isIdsyncError, toIdsyncError } from '../../errors.js';
import { parseJsonBounded } from '../../json-depth.js';
import { listen } from '../../listen.js';
import { NOT_A_PATH, requestUrl } from '../../net/request-target.js';
import { answerClientError, problemDocument } from '../../problem-details.js';

/** What DIR/serve.json holds while `wallet serve` runs (mode 0600: the token guards the wallet). */
export interface ServeInfo {
  pid: number;
  url: string;
  token: string;
  did: string;
  shortDid: string;
  endpoint?: string;
}

/** One route of the control API: the JSON body (empty object without one) and the query. */
export type ControlRoute = (body: Record<string, unknown>, query: URLSearchParams) => Promise<unknown>;

/**
 * Serves `routes` (keyed `METHOD /path`) on 127.0.0.1, any free port, to callers that send
 * `Authorization: Bearer <token>`. Failures answer RFC 9457 problem details ({type, title, status,
 * detail, code}, and `usage: true` for a usage error): 400 for usage errors and a body that is not a JSON
 * object, the catalogue's status for a code that has one (an invitation that does not parse: 400,
 * a pending item that does not exist: 404), 422 for any other refusal of what was asked, and 500
 * only for the wallet's own failures (internal_error).
 */
export function startControl(token: string, routes: Record<string, ControlRoute>): Promise<Server> {
  const expected = Buffer.from(`Bearer ${token}`);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const send = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    const problem = (status: number, code: string, detail: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/problem+json', ...headers }).end(JSON.stringify(problemDocument(status, code, detail, extra)));
    const given = Buffer.from(req.headers.authorization ?? '');
    // RFC 9110 §11.6.1: a 401 names the scheme it wants.
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return problem(401, 'unauthorized', 'wrong or missing control token', {}, { 'www-authenticate': 'Bearer' });
    const url = requestUrl(req.url);
    if (!url) return problem(400, 'invalid_request', NOT_A_PATH);
    const handler = routes[`${req.method} ${url.pathname}`];
    if (!handler) return problem(404, 'not_found', `${req.method} ${url.pathname}`);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_CONTROL_BODY) chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_CONTROL_BODY) return problem(413, 'payload_too_large', `a request body may have at most ${MAX_CONTROL_BODY} bytes`);
      let body: Record<string, unknown> = {};
      try {
        const parsed = chunks.length ? parseJsonBounded(Buffer.concat(chunks).toString('utf8')) : {};
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return problem(400, 'invalid_request', 'the request body must be a JSON object');
        body = parsed as Record<string, unknown>;
      } catch (err) {
        if (isIdsyncError(err)) return problem(400, err.code, err.message);
        return problem(400, 'invalid_json', 'the request body is not JSON');
      }
      handler(body, url.searchParams).then(
        (value) => send(200, value),
        (err) => {
          const e = toIdsyncError(err);
          problem(controlStatus(e), e.code, e.message, e.details?.usage ? { usage: true } : {});
        },
      );
    });
  });
  // What the parser refuses gets problem details too, not Node's bare 400.
  server.on('clientError', answerClientError);
  return listen(server, 0, '127.0.0.1').then(() => server);
}

/** What a control request may carry: its bodies are a URL or a few ids. */
const MAX_CONTROL_BODY = 1024 * 1024;

function controlStatus(e: IdsyncError): number {
  if (e.details?.usage) return 400;
  if (e.code === 'internal_error') return 500;
  const status = httpStatusOf(e.code);
  return status >= 400 && status < 500 ? status : 422;
}

/** Closes the control server, dropping open keep-alive connections. */
export function stopControl(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/**
 * DIR/serve.json while its process lives. A serve killed with -9 leaves the file behind, and its
 * port may be someone else's by now: the token (and an invitation URL, a bearer link to the
 * user's consent) must not go there, and the wallet's store is free to open instead.
 */
async function readServeInfo(dir: string): Promise<ServeInfo | undefined> {
  let info: ServeInfo;
  try {
    info = JSON.parse(await readFile(join(dir, 'serve.json'), 'utf8')) as ServeInfo;
  } catch {
    return undefined;
  }
  return Number.isSafeInteger(info?.pid) && info.pid > 0 && processLives(info.pid) ? info : undefined;
}

function processLives(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/** The serve process running for `dir` (its serve.json, and it answers); undefined when none does. */
export async function runningServe(dir: string): Promise<ServeInfo | undefined> {
  const info = await readServeInfo(dir);
  if (!info) return undefined;
  const answered = await viaServe<unknown>(dir, 'GET', '/info').catch(() => undefined);
  return answered === undefined ? undefined : info;
}

/** Calls the serve process of `dir`; undefined when none answers (then the caller opens the store). */
export async function viaServe<T>(dir: string, method: string, path: string, body?: unknown): Promise<T | undefined> {
  const info = await readServeInfo(dir);
  if (!info) return undefined;
  let res: Response;
  try {
    res = await fetch(info.url + path, {
      method,
      headers: { authorization: `Bearer ${info.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    return undefined; // nobody listens: a stale serve.json
  }
  let value: { code?: string; detail?: string; usage?: boolean };
  try {
    value = (await res.json()) as typeof value;
  } catch {
    return undefined; // not JSON: not a wallet serve answering (its process's pid was taken again)
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (!res.ok) {
    // A usage error here is one there too (exit 2); any other refusal keeps its code (exit 1).
    throw new IdsyncError(asErrorCode(value.code, 'wallet_serve_error'), value.detail ?? `wallet serve answered ${res.status}`, value.usage === true ? { details: { usage: true } } : {});
  }
  return value as T;
}
