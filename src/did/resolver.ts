// One did-resolver Resolver for every method we support (ion, peer, key, web). Failures are DID
// Core §7.1.2 / DID Resolution error results (invalidDid, notFound, methodNotSupported), never throws.
import { Resolver, type DIDCache, type DIDResolutionOptions, type DIDResolver, type Resolvable } from 'did-resolver';
import { systemClock, type Clock } from '../clock.js';
import { IdsyncError } from '../errors.js';
import { errorResult } from './document.js';
import { resolveIon } from './ion.js';
import { resolveKey } from './key.js';
import { resolvePeer } from './peer.js';
import type { DidRegistry, DIDResolutionResult, DocumentResolver } from './types.js';
import { resolveWeb } from './web.js';
import { setBounded } from '../bounded.js';
import { deepFreeze } from '../deep-freeze.js';

export interface ResolverOptions {
  /** Long forms of short did:ion and did:peer:4 DIDs, and did:peer:2 forms of did:peer:3 DIDs. */
  registry?: DidRegistry;
  /** For did:web; default a fetch that connects only to checked public or loopback addresses (did/web.ts). */
  fetch?: typeof fetch;
  /** did:web hosts fetched over plain http (default localhost, 127.0.0.1); all others need https. */
  webAllowHttpHosts?: string[];
  webTimeoutMs?: number;
  /** Largest did:web document body read, in bytes (default 256 KiB). */
  webMaxBytes?: number;
  /** A did-resolver cache, or false for none. Default: resolutionCache(). */
  cache?: DIDCache | false;
}

/** resolutionCache()'s cache: a did-resolver cache, and a look-up by the DID string alone. */
type PeekableCache = DIDCache & { peek(did: string): DIDResolutionResult | undefined };

const isPeekable = (cache: unknown): cache is PeekableCache => typeof (cache as { peek?: unknown } | undefined)?.peek === 'function';

// did-resolver reports an unknown method as 'unsupportedDidMethod'; DID Resolution calls it
// 'methodNotSupported'. Error results are also rebuilt so no two callers share an object.
class IdsyncResolver extends Resolver {
  private readonly peek: PeekableCache['peek'] | undefined;

  constructor(registry: Record<string, DIDResolver>, options: { cache: DIDCache | false }) {
    super(registry, options);
    this.peek = isPeekable(options.cache) ? options.cache.peek : undefined;
  }

  override resolve(didUrl: string, options: DIDResolutionOptions = {}): Promise<DIDResolutionResult> {
    // A DID the cache holds, asked for as that DID (no path, query or fragment), is answered
    // before did-resolver parses it: its DID URL pattern costs ~5 µs on a 1 KB did:ion long form,
    // paid on every envelope. The cache keys are DIDs that pattern accepted, so the answer is
    // the one the full path would give.
    if (this.peek && options.cache !== false) {
      const hit = this.peek(didUrl);
      if (hit) return Promise.resolve(hit);
    }
    return this.resolveAndName(didUrl, options);
  }

  private async resolveAndName(didUrl: string, options: DIDResolutionOptions): Promise<DIDResolutionResult> {
    const result = await super.resolve(didUrl, options);
    switch (result.didResolutionMetadata.error) {
      case 'unsupportedDidMethod':
        return errorResult('methodNotSupported', `the DID method of ${didUrl.split(':').slice(0, 2).join(':')} is not supported`);
      case 'invalidDid':
        return errorResult('invalidDid', String(result.didResolutionMetadata.message ?? 'not a valid DID'));
      default:
        return result;
    }
  }
}

// Marks a result its method resolver built for this very call out of the DID string alone
// (did:ion, did:key): nobody else holds any part of it, so the cache freezes it as it is instead
// of a copy (a structured clone of a DID document per first resolution of every new holder).
const FRESH = Symbol('idsync.freshResolution');
type Marked = DIDResolutionResult & { [FRESH]?: true };

function fresh(resolve: (did: string) => Promise<DIDResolutionResult>): (did: string) => Promise<DIDResolutionResult> {
  return async (did) => Object.defineProperty(await resolve(did), FRESH, { value: true });
}

/** A method resolver that turns anything thrown into a notFound result (the boundary never throws). */
function safe(resolve: (did: string) => Promise<DIDResolutionResult>): DIDResolver {
  return async (did) => {
    try {
      return await resolve(did);
    } catch (err) {
      return errorResult('notFound', err instanceof Error ? err.message : String(err));
    }
  };
}

export function createResolver(options: ResolverOptions = {}): Resolver {
  const { registry } = options;
  const web = { fetch: options.fetch, allowHttpHosts: options.webAllowHttpHosts, timeoutMs: options.webTimeoutMs, maxBytes: options.webMaxBytes };
  return new IdsyncResolver(
    {
      ion: safe(fresh((did) => resolveIon(did, registry))),
      peer: safe((did) => resolvePeer(did, registry)),
      key: safe(fresh(resolveKey)),
      web: safe((did) => resolveWeb(did, web)),
    },
    { cache: options.cache === false ? false : (options.cache ?? resolutionCache()) },
  );
}

/**
 * A small LRU cache of successful results, as a plain did-resolver cache function. Entries
 * expire after ttlMs (did:web documents change); errors are never cached. Results are deep-frozen
 * once (a copy, unless createResolver's method resolver built the result for this call) and
 * shared, so callers cannot change what others get and a hit costs no copy (the envelope layer's
 * per-document conversion cache relies on that identity).
 * `{cache: false}` in resolve options skips it.
 */
export function resolutionCache(options: { max?: number; ttlMs?: number; clock?: Clock } = {}): DIDCache {
  const max = options.max ?? 500;
  const ttlMs = options.ttlMs ?? 5 * 60_000;
  const clock = options.clock ?? systemClock;
  const entries = new Map<string, { at: number; result: DIDResolutionResult }>();
  const peek = (did: string): DIDResolutionResult | undefined => {
    const hit = entries.get(did);
    if (!hit) return undefined;
    if (clock.now() - hit.at >= ttlMs) {
      entries.delete(did); // expired: not kept until newer entries push it out
      return undefined;
    }
    entries.delete(did); // re-insert: Map order is the LRU order
    entries.set(did, hit);
    return hit.result;
  };
  const cache: DIDCache = async (parsed, resolve, resolveOptions) => {
    if (resolveOptions?.cache === false) return resolve();
    const hit = peek(parsed.did);
    if (hit) return hit;
    const result = await resolve();
    if (result.didResolutionMetadata.error || !result.didDocument) return result;
    const frozen = deepFreeze((result as Marked)[FRESH] ? result : structuredClone(result));
    entries.delete(parsed.did);
    setBounded(entries, parsed.did, { at: clock.now(), result: frozen }, max);
    return frozen;
  };
  return Object.assign(cache, { peek });
}

/**
 * Why `did` did not resolve, as a coded error for the user: `transport_unreachable` or
 * `transport_timeout` naming the address when its host could not be reached (did:web, web.ts),
 * else `did_not_resolved` with the resolver's message. `what` names the DID in the message.
 */
export function resolutionError(did: string, result: DIDResolutionResult, what = `the DID ${did}`): IdsyncError {
  const meta = result.didResolutionMetadata as { error?: string; message?: string; code?: unknown; url?: unknown; reason?: unknown };
  if ((meta.code === 'transport_unreachable' || meta.code === 'transport_timeout') && typeof meta.url === 'string') {
    const why = meta.code === 'transport_timeout' ? `no answer from ${meta.url} in time` : `cannot reach ${meta.url}${meta.reason ? ` (${String(meta.reason)})` : ''}`;
    return new IdsyncError(meta.code, `${why}: ${what} did not resolve`, { details: { did, endpoint: meta.url, ...(meta.reason ? { reason: meta.reason } : {}) } });
  }
  const detail = meta.message ?? meta.error ?? 'no document';
  return new IdsyncError('did_not_resolved', `${what} did not resolve (${detail})`, { details: { did, ...(meta.error ? { error: meta.error } : {}) } });
}

/** Characters of a DID an error message repeats: a long form is kilobytes (details keep it whole). */
const ECHOED_DID_CHARS = 120;

/** `did` as an error message shows it: cut short, saying how long it is, when it is long. */
export const echoedDid = (did: string): string => (did.length <= ECHOED_DID_CHARS ? did : `${did.slice(0, ECHOED_DID_CHARS)}… (${did.length} characters)`);

/**
 * The DocumentResolver the DIDComm layer wants: the document, or null when it cannot be resolved
 * now. A DID its method calls invalid (DID Resolution §7.1.2 `invalidDid`: did:key:zzz, a
 * did:peer:2 whose elements do not decode) never will be: that is thrown as `invalid_did`
 * (problem code e.p.did.invalid), so a message from such a DID is refused for good instead of
 * answered "send it again later" as a DID that may resolve on the next try is.
 */
export function documentResolver(resolver: Resolvable): DocumentResolver {
  const failures = new Map<string, string>();
  const failed = (did: string, why: string) => {
    failures.delete(did); // set again as the newest
    setBounded(failures, did, why.slice(0, 500), FAILURES_KEPT);
  };
  const resolve: DocumentResolver = async (did) => {
    let result: DIDResolutionResult;
    try {
      result = await resolver.resolve(did);
    } catch (err) {
      failed(did, (err as Error)?.message ?? String(err));
      return null;
    }
    const meta = result.didResolutionMetadata as { error?: string; message?: string };
    if (meta.error === 'invalidDid') throw new IdsyncError('invalid_did', `${echoedDid(did)} is not a valid DID${meta.message ? ` (${meta.message})` : ''}`, { details: { did } });
    if (meta.error) failed(did, meta.message ? `${meta.error}: ${meta.message}` : meta.error);
    else if (failures.size) failures.delete(did);
    return meta.error ? null : result.didDocument;
  };
  failureReasons.set(resolve, failures);
  return resolve;
}

/** Why each resolver of documentResolver last failed to resolve a DID, for the few DIDs that failed last. */
const failureReasons = new WeakMap<DocumentResolver, Map<string, string>>();
const FAILURES_KEPT = 64;

/**
 * Why `resolve` (made by documentResolver) last answered null for `did`: the resolution error and
 * its message (notFound: ECONNREFUSED, an answer that is not JSON, one too large, …), which the
 * null answer leaves out. Undefined for any other resolver, or a DID that did not fail.
 */
export function resolutionFailure(resolve: DocumentResolver, did: string): string | undefined {
  return failureReasons.get(resolve)?.get(did);
}

/** `wrapper` answers with `inner`'s documents where it has none of its own: resolutionFailure of it reads `inner`'s reasons. */
export function failuresOf<T extends DocumentResolver>(wrapper: T, inner: DocumentResolver): T {
  const reasons = failureReasons.get(inner);
  if (reasons) failureReasons.set(wrapper, reasons);
  return wrapper;
}
