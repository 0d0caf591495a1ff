// fetch without sockets: requests to an in-process service go through fastify's inject (the
// same routing, validation and hooks as over HTTP); any other URL goes to the real network.
import { IN_PROCESS, NULL_BODY_STATUSES, splitFetch, type InProcessFetch, type PlainExchange, type PlainResponse } from '../http-fetch.js';
import type { App } from '../service/http/app-types.js';

/**
 * Answers a request given as plain data with `app.inject` (only the path and query of the URL
 * are used). A DIDComm message POSTed to /didcomm, the most frequent request of a flow, is
 * answered by the route's own in-process entry instead (didcomm-endpoint.ts: the same handler,
 * rate limit and problem documents, without inject's fake request and response); whatever that
 * entry does not take goes through inject.
 */
export function appExchange(app: App): PlainExchange {
  const didcomm = app.hasDecorator('didcommInProcess') ? app.didcommInProcess : undefined;
  return async (req) => {
    const url = new URL(req.url);
    if (didcomm && req.method === 'POST' && url.pathname === '/didcomm' && url.search === '' && req.body !== undefined) {
      const answer = await didcomm({ url: url.pathname, contentType: req.headers['content-type'], body: req.body });
      if (answer) return answer;
    }
    const res = await app.inject({ method: req.method as 'GET', url: url.pathname + url.search, headers: req.headers, ...(req.body ? { payload: req.body } : {}) });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
    return { status: res.statusCode, headers, body: res.payload } satisfies PlainResponse;
  };
}

/**
 * A fetch that answers every request with `app.inject` (only the path and query of the URL are
 * used). It also offers appExchange (http-fetch.ts IN_PROCESS), so that a sender that knows it
 * (the service client, the DIDComm HTTP transport) hands its request over as plain data, without
 * fetch's Request, Response, Headers and body stream for each.
 */
export function appFetch(app: App): typeof fetch {
  const exchange = appExchange(app);
  const f = (async (input: string | URL | Request, init?: RequestInit) => {
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request ? request.url : String(input));
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = {};
    new Headers(init?.headers ?? request?.headers).forEach((value, key) => (headers[key] = value));
    const body = init?.body ?? (request && method !== 'GET' && method !== 'HEAD' ? await request.text() : undefined);
    if (body !== undefined && body !== null && typeof body !== 'string') throw new TypeError('appFetch sends string bodies only');
    const res = await app.inject({ method: method as 'GET', url: url.pathname + url.search, headers, ...(body ? { payload: body } : {}) });
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) out.append(k, String(one));
    }
    // Fetch forbids a body on these statuses.
    const empty = NULL_BODY_STATUSES.has(res.statusCode) || method === 'HEAD';
    return new Response(empty ? null : res.rawPayload, { status: res.statusCode, headers: out });
  }) as InProcessFetch;
  f[IN_PROCESS] = () => exchange;
  return f;
}

/** Sends requests for `origin`'s host (any scheme: did:web resolution asks https://) to `local`, the rest to `remote`. */
export function routeFetch(origin: string, local: typeof fetch, remote: typeof fetch = globalThis.fetch): typeof fetch {
  const host = new URL(origin).host;
  return splitFetch((url) => new URL(url).host === host, local, remote);
}
