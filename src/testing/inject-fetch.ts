// fetch without sockets: requests to an in-process service go through fastify's inject (the
// same routing, validation and hooks as over HTTP); any other URL goes to the real network.
import type { App } from '../service/http/app-types.js';

/** A fetch that answers every request with `app.inject` (only the path and query of the URL are used). */
export function appFetch(app: App): typeof fetch {
  return async (input, init) => {
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
    const empty = [101, 204, 205, 304].includes(res.statusCode) || method === 'HEAD';
    return new Response(empty ? null : res.rawPayload, { status: res.statusCode, headers: out });
  };
}

/** Sends requests for `origin`'s host (any scheme: did:web resolution asks https://) to `local`, the rest to `remote`. */
export function routeFetch(origin: string, local: typeof fetch, remote: typeof fetch = globalThis.fetch): typeof fetch {
  const host = new URL(origin).host;
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    return url.host === host ? local(input, init) : remote(input, init);
  };
}
