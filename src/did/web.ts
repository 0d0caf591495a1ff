// did:web (W3C CCG did:web Method Specification, §Create and §Read): did:web:<host[%3Aport]>[:path…]
// is fetched from https://<host>/.well-known/did.json or https://<host>/<path…>/did.json.
// Plain HTTP only for hosts on an allow list (default localhost and 127.0.0.1), for local use.
import { IdsyncError, isIdsyncError } from '../errors.js';
import { parseJsonBounded } from '../json-depth.js';
import { connectGuard } from '../net/connect-guard.js';
import { guardedFetch } from '../net/guarded-fetch.js';
import { networkError, readBounded } from '../http-fetch.js';
import { generateKeyPair, type KeyPair } from '../keys.js';
import {
  buildDocument, defaultPurposes, didcommService, documentResult, errorResult, jwkMethod, JWS_2020_CONTEXT, secretFor,
} from './document.js';
import type { CreatedDid, DIDDocument, DIDResolutionResult } from './types.js';

export const DEFAULT_HTTP_HOSTS = ['localhost', '127.0.0.1'];

let defaultFetch: typeof fetch | undefined;
/**
 * The fetch used when none is given: every connection checked after name resolution (src/net),
 * loopback allowed (a local twin's did:web), private ranges, link-local and metadata refused.
 */
function webFetch(): typeof fetch {
  return (defaultFetch ??= guardedFetch(connectGuard({ allowLoopback: true, allowPrivate: false })));
}
/** A DID document larger than this is refused while it streams in (never buffered whole). */
export const DEFAULT_MAX_DOCUMENT_BYTES = 256 * 1024;
export const DEFAULT_FETCH_TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 3;

/** The did:web for a base URL: 'http://127.0.0.1:8080' → 'did:web:127.0.0.1%3A8080' (§Create: port as %3A). */
export function didWebFromUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch (err) {
    throw new IdsyncError('invalid_argument', 'not a URL', { cause: err });
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new IdsyncError('invalid_argument', 'did:web needs an http(s) URL');
  const path = u.pathname.replace(/\/(\.well-known\/)?did\.json$/, '').replace(/\/\.well-known\/?$/, '');
  let segments: string[];
  try {
    segments = path.split('/').filter(Boolean).map((s) => encodeURIComponent(decodeURIComponent(s)));
  } catch (err) {
    throw new IdsyncError('invalid_argument', 'bad percent-encoding in the URL path', { cause: err });
  }
  const host = encodeURIComponent(u.hostname) + (u.port ? `%3A${u.port}` : '');
  return ['did:web', host, ...segments].join(':');
}

/** §Read: the URL of the DID document. http only for allowed hosts. Throws 'invalid_did'. */
export function didWebUrl(input: string, allowHttpHosts: string[] = DEFAULT_HTTP_HOSTS): string {
  const did = input.split(/[?#]/)[0];
  if (!did.startsWith('did:web:')) throw new IdsyncError('invalid_did', 'not a did:web DID');
  const [hostPart, ...rest] = did.slice('did:web:'.length).split(':');
  let host: string;
  let segments: string[];
  try {
    host = decodeURIComponent(hostPart).toLowerCase();
    segments = rest.map((s) => decodeURIComponent(s));
  } catch (err) {
    throw new IdsyncError('invalid_did', 'bad percent-encoding in did:web', { cause: err });
  }
  if (!/^([a-z0-9-]+\.)*[a-z0-9-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/.test(host)) {
    throw new IdsyncError('invalid_did', 'the did:web host is not a domain name, IP address or port');
  }
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('/'))) {
    throw new IdsyncError('invalid_did', 'a did:web path segment is empty or not a single segment');
  }
  // The pattern above admits what no URL can hold ("[::::]", a port over 65535).
  const hostname = URL.parse(`https://${host}`)?.hostname;
  if (hostname === undefined) throw new IdsyncError('invalid_did', 'the did:web host is not a valid host and port');
  const scheme = allowHttpHosts.includes(hostname) ? 'http' : 'https';
  const path = segments.length ? `/${segments.map(encodeURIComponent).join('/')}/did.json` : '/.well-known/did.json';
  return `${scheme}://${host}${path}`;
}

/** The document to publish at the did:web URL: key-1 Ed25519, key-2 X25519 (JsonWebKey2020), optional '#didcomm'. */
export function didWebDocument(did: string, input: {
  authenticationKey: Pick<KeyPair, 'type' | 'publicKey'>;
  keyAgreementKey: Pick<KeyPair, 'type' | 'publicKey'>;
  endpoint?: string;
  routingKeys?: string[];
}): DIDDocument {
  const keys = [input.authenticationKey, input.keyAgreementKey].map((kp, i) => ({
    method: jwkMethod(did, `${did}#key-${i + 1}`, kp),
    purposes: defaultPurposes(kp),
  }));
  const services = input.endpoint ? [didcommService(`${did}#didcomm`, input.endpoint, input.routingKeys ?? [])] : [];
  return buildDocument({ id: did, context: [JWS_2020_CONTEXT], keys, services });
}

/** A did:web for `url` with fresh (or given) keys; publish `document` at didWebUrl(did). */
export function createWebDid(options: {
  url: string;
  endpoint?: string;
  routingKeys?: string[];
  authenticationKey?: KeyPair;
  keyAgreementKey?: KeyPair;
}): CreatedDid {
  const did = didWebFromUrl(options.url);
  const auth = options.authenticationKey ?? generateKeyPair('Ed25519');
  const agree = options.keyAgreementKey ?? generateKeyPair('X25519');
  if (auth.type !== 'Ed25519' || agree.type !== 'X25519') {
    throw new IdsyncError('invalid_argument', 'did:web needs an Ed25519 authentication key and an X25519 key agreement key');
  }
  const document = didWebDocument(did, { authenticationKey: auth, keyAgreementKey: agree, endpoint: options.endpoint, routingKeys: options.routingKeys });
  return { did, document, secrets: [secretFor(`${did}#key-1`, auth), secretFor(`${did}#key-2`, agree)] };
}

export interface WebResolveOptions {
  /** Default: connections checked after name resolution, loopback allowed, private and metadata refused. */
  fetch?: typeof fetch;
  /** Hosts (hostname, no port) fetched over plain http; default localhost and 127.0.0.1. */
  allowHttpHosts?: string[];
  timeoutMs?: number;
  /** Largest document accepted, in bytes (default 256 KiB). */
  maxBytes?: number;
}

/** Whether `url` may be fetched at all: https, or plain http to an allowed (local) host. */
export function fetchAllowed(url: URL, allowHttpHosts: string[] = DEFAULT_HTTP_HOSTS): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && allowHttpHosts.includes(url.hostname));
}

/**
 * Why a redirect from the first URL of a request (`original`) to `next` is not followed, or
 * undefined when it may be. A redirect stays on the same host (hostname and port), so a server
 * cannot point us at another machine (SSRF), and never goes to plain HTTP unless the request
 * already was plain HTTP to that host (no downgrade, not even to localhost).
 */
export function redirectRefusal(original: URL, next: URL): string | undefined {
  const reasons: string[] = [];
  if (next.protocol !== 'https:' && next.protocol !== 'http:') reasons.push(`not HTTP(S) (${next.protocol})`);
  if (next.host !== original.host) reasons.push('another host');
  if (next.protocol === 'http:' && !(original.protocol === 'http:' && next.host === original.host)) reasons.push('plain HTTP');
  return reasons.length ? `refused to follow a redirect to ${next.protocol}//${next.host}: ${reasons.join(', ')}` : undefined;
}

/** Error codes of fetchBounded's refusals (network failures are thrown as they come). */
export const FETCH_REFUSALS = ['fetch_refused', 'response_too_large'] as const;

export interface BoundedFetchOptions {
  fetch?: typeof fetch;
  allowHttpHosts?: string[];
  timeoutMs?: number;
  /** Largest body read, in bytes; more aborts the request. */
  maxBytes: number;
  accept: string;
}

export interface BoundedResponse {
  /** The URL that answered (after same-host redirects). */
  url: URL;
  status: number;
  ok: boolean;
  /** The body as UTF-8, read only when `ok`. */
  text?: string;
}

/**
 * GET `start` with a time limit covering the whole exchange (body included), redirects followed
 * by hand under redirectRefusal, and the body read as a stream that is cancelled as soon as it
 * passes `maxBytes` (a declared Content-Length over the limit is refused before reading).
 * Throws IdsyncError 'fetch_refused' or 'response_too_large'; network errors as they come.
 */
export async function fetchBounded(start: URL, o: BoundedFetchOptions): Promise<BoundedResponse> {
  const allowHttpHosts = o.allowHttpHosts ?? DEFAULT_HTTP_HOSTS;
  if (!fetchAllowed(start, allowHttpHosts)) {
    throw new IdsyncError('fetch_refused', `refused to fetch ${start.protocol}//${start.host}: only https, or http to ${allowHttpHosts.join(', ') || 'no host'}`);
  }
  const doFetch = o.fetch ?? webFetch();
  const signal = AbortSignal.timeout(o.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS);
  let url = start;
  for (let hops = 0; ; hops++) {
    const res = await doFetch(url, { headers: { accept: o.accept }, redirect: 'manual', signal });
    const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
    if (!location) {
      if (!res.ok) {
        await discard(res);
        return { url, status: res.status, ok: false };
      }
      const tooLarge = () => new IdsyncError('response_too_large', `the response from ${url.href} is larger than the ${o.maxBytes}-byte limit`, { details: { maxBytes: o.maxBytes } });
      return { url, status: res.status, ok: true, text: new TextDecoder().decode(await readBounded(res, o.maxBytes, tooLarge)) };
    }
    await discard(res);
    if (hops >= MAX_REDIRECTS) throw new IdsyncError('fetch_refused', `too many redirects fetching ${start.href}`);
    const next = URL.parse(location, url.href);
    if (!next) throw new IdsyncError('fetch_refused', `a redirect from ${url.href} to a Location that is not a URL`);
    const refusal = redirectRefusal(start, next);
    if (refusal) throw new IdsyncError('fetch_refused', refusal);
    url = next;
  }
}

async function discard(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => undefined);
}

/** The did:web method resolver: network and HTTP failures become notFound with a message, never throws. */
export async function resolveWeb(did: string, options: WebResolveOptions = {}): Promise<DIDResolutionResult> {
  const allowHttpHosts = options.allowHttpHosts ?? DEFAULT_HTTP_HOSTS;
  let url: URL;
  try {
    url = new URL(didWebUrl(did, allowHttpHosts));
  } catch (err) {
    return errorResult('invalidDid', (err as Error).message);
  }
  const id = did.split(/[?#]/)[0];
  let res: BoundedResponse;
  try {
    res = await fetchBounded(url, {
      fetch: options.fetch,
      allowHttpHosts,
      timeoutMs: options.timeoutMs,
      maxBytes: options.maxBytes ?? DEFAULT_MAX_DOCUMENT_BYTES,
      accept: 'application/did+json, application/did+ld+json, application/json',
    });
  } catch (err) {
    if (isIdsyncError(err) && (FETCH_REFUSALS as readonly string[]).includes(err.code)) {
      return errorResult('notFound', `could not resolve ${id}: ${err.message}`);
    }
    // The host did not answer: say so with its address, so a caller can tell "the service is
    // down" from "no such DID" (http-fetch.ts networkError: transport_unreachable / _timeout).
    const failure = networkError(err, url.href);
    const reason = String(failure.details?.reason ?? (err as Error).message);
    return errorResult('notFound', `could not fetch ${url.href} (${reason})`, { code: failure.code, url: url.href, reason });
  }
  try {
    if (!res.ok) return errorResult('notFound', `${res.url.href} answered HTTP ${res.status}`);
    const doc = parseJsonBounded(res.text ?? '') as DIDDocument;
    // §Read: the document's id must be the DID that was resolved.
    if (!doc || typeof doc !== 'object' || doc.id !== id) return errorResult('notFound', `the document at ${res.url.href} is not for ${id}`);
    return documentResult(doc);
  } catch (err) {
    return errorResult('notFound', `could not fetch ${url.href}: ${(err as Error).message}`);
  }
}
