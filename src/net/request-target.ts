// The URL of an incoming HTTP request, read from its request-target (RFC 9112 §3.2) without
// throwing. Node's HTTP parser hands on targets that `new URL(target, base)` refuses ("//",
// "http://[::1/") or reads as something else ("//host/path" is a network-path reference, RFC 3986
// §4.2, so its path would be "/path"). A throw in a request or upgrade listener is an uncaught
// exception: one request would stop the whole server.

/**
 * The request's URL: an origin-form target ("/path?query") under a fixed origin, so that its
 * path is the target's own; an absolute-form target ("http://host/path", §3.2.2) as it is.
 * Undefined for anything else, or a target no URL can hold: the caller answers 400.
 */
export function requestUrl(target: string | undefined): URL | undefined {
  const raw = target ?? '/';
  try {
    if (raw.startsWith('/')) return new URL(`http://request-target${raw}`);
    return /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? new URL(raw) : undefined;
  } catch {
    return undefined;
  }
}

/** The detail of the 400 `invalid_request` a server answers when requestUrl gives undefined (RFC 9112 §3.2). */
export const NOT_A_PATH = 'the request target is not a path';

/** The request's path; '' when its target has none (no route matches it). */
export function requestPath(target: string | undefined): string {
  return requestUrl(target)?.pathname ?? '';
}
