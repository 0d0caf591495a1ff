// did:web (W3C CCG did:web Method Specification, §Create and §Read): did:web:<host[%3Aport]>[:path…]
// is fetched from https://<host>/.well-known/did.json or https://<host>/<path…>/did.json.
// Plain HTTP only for hosts on an allow list (default localhost and 127.0.0.1), for local use.
import { IdsyncError } from '../errors.js';
import { generateKeyPair, type KeyPair } from '../keys.js';
import {
  buildDocument, defaultPurposes, didcommService, documentResult, errorResult, jwkMethod, JWS_2020_CONTEXT, secretFor,
} from './document.js';
import type { CreatedDid, DIDDocument, DIDResolutionResult } from './types.js';

export const DEFAULT_HTTP_HOSTS = ['localhost', '127.0.0.1'];
const MAX_DOCUMENT_BYTES = 256 * 1024;
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
  const segments = path.split('/').filter(Boolean).map((s) => encodeURIComponent(decodeURIComponent(s)));
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
  const hostname = new URL(`https://${host}`).hostname;
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
  fetch?: typeof fetch;
  /** Hosts (hostname, no port) fetched over plain http; default localhost and 127.0.0.1. */
  allowHttpHosts?: string[];
  timeoutMs?: number;
}

function allowed(url: URL, allowHttpHosts: string[]): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && allowHttpHosts.includes(url.hostname));
}

/** The did:web method resolver: network and HTTP failures become notFound with a message, never throws. */
export async function resolveWeb(did: string, options: WebResolveOptions = {}): Promise<DIDResolutionResult> {
  const allowHttpHosts = options.allowHttpHosts ?? DEFAULT_HTTP_HOSTS;
  const doFetch = options.fetch ?? fetch;
  let url: URL;
  try {
    url = new URL(didWebUrl(did, allowHttpHosts));
  } catch (err) {
    return errorResult('invalidDid', (err as Error).message);
  }
  const id = did.split(/[?#]/)[0];
  try {
    const signal = AbortSignal.timeout(options.timeoutMs ?? 10_000);
    let res: Response;
    // Redirects are followed by hand so that none can downgrade to plain HTTP on another host.
    for (let hops = 0; ; hops++) {
      res = await doFetch(url, { headers: { accept: 'application/did+json, application/did+ld+json, application/json' }, redirect: 'manual', signal });
      const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
      if (!location) break;
      if (hops >= MAX_REDIRECTS) return errorResult('notFound', `too many redirects resolving ${id}`);
      url = new URL(location, url);
      if (!allowed(url, allowHttpHosts)) return errorResult('notFound', `refused to follow a redirect to ${url.protocol}//${url.host} (plain HTTP)`);
    }
    if (!res.ok) return errorResult('notFound', `${url.href} answered HTTP ${res.status}`);
    const text = await res.text();
    if (text.length > MAX_DOCUMENT_BYTES) return errorResult('notFound', `the DID document at ${url.href} is too large`);
    const doc = JSON.parse(text) as DIDDocument;
    // §Read: the document's id must be the DID that was resolved.
    if (!doc || typeof doc !== 'object' || doc.id !== id) return errorResult('notFound', `the document at ${url.href} is not for ${id}`);
    return documentResult(doc);
  } catch (err) {
    return errorResult('notFound', `could not fetch ${url.href}: ${(err as Error).message}`);
  }
}
