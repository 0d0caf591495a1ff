// The holder's checks on an issued credential before it is acked (docs/protocols.md
// "Issue-credential 3.0"): proof, issuer DID and its assertionMethod key, subject = this wallet's
// DID (long or short form), validity period, status (against the status list credential attached
// to the issue message when there is one) and claims = the offer's preview.
import { decodeVcJwt } from '../credentials/vc-jwt.js';
import { DEFAULT_HTTP_HOSTS, fetchAllowed, fetchBounded } from '../did/web.js';
import { parseJsonBounded } from '../json-depth.js';
import { connectGuard } from '../net/connect-guard.js';
import { guardedFetch } from '../net/guarded-fetch.js';
import { DEFAULT_WALLET_ADDRESSES } from './addresses.js';
import { verifyCredential } from '../credentials/verify.js';
import type { VerificationResult } from '../credentials/types.js';
import type { FlatDatapoints } from '../credentials/datapoints.js';
import type { WalletContext } from './context.js';

export interface CredentialExpectations {
  /** The issuer: the DID of the thread's peer. */
  issuer: string;
  /** The offer's preview as flat datapoints; undefined when the offer had none. */
  claims?: FlatDatapoints;
  /** The status list credential attached to the issue message (object or VC-JWT). */
  statusListCredential?: unknown;
}

/** The id of a status list credential given as an object or a VC-JWT; undefined when unreadable. */
export function statusListId(list: unknown): string | undefined {
  try {
    if (typeof list === 'string') return decodeVcJwt(list).credential.id;
    if (list && typeof list === 'object') {
      const l = list as { id?: unknown; jwt?: unknown };
      if (typeof l.jwt === 'string') return decodeVcJwt(l.jwt).credential.id;
      return typeof l.id === 'string' ? l.id : undefined;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

export interface StatusListFetchOptions {
  /** The whole request, body included (default 10 s). */
  timeoutMs?: number;
  /** Largest list accepted, in bytes (default 1 MiB; a 131,072-entry list is ~16 KiB compressed). */
  maxBytes?: number;
  /** Hosts fetched over plain http (default localhost and 127.0.0.1: the local service twin). */
  allowHttpHosts?: string[];
}

export const DEFAULT_STATUS_LIST_TIMEOUT_MS = 10_000;
export const DEFAULT_STATUS_LIST_MAX_BYTES = 1024 * 1024;

/**
 * Fetches a status list credential: JSON, or a VC-JWT as text. The URL comes from an issuer's
 * credential, so the same rules as did:web apply (did/web.ts fetchBounded): https only, plain
 * http only to localhost/127.0.0.1, same-host redirects only, a time limit and a size limit.
 * A URL outside those rules gives undefined (the status is unavailable); a list too large, a
 * redirect refused or a timeout throws, which the verifier reports as status_unavailable.
 */
export function httpStatusListFetch(fetchFn?: typeof fetch, options: StatusListFetchOptions = {}): (url: string) => Promise<unknown> {
  // Default: connections checked after name resolution under the wallet's default policy (no private or metadata addresses).
  fetchFn ??= guardedFetch(connectGuard(DEFAULT_WALLET_ADDRESSES));
  const allowHttpHosts = options.allowHttpHosts ?? DEFAULT_HTTP_HOSTS;
  return async (url) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return undefined;
    }
    if (!fetchAllowed(target, allowHttpHosts)) return undefined;
    const res = await fetchBounded(target, {
      fetch: fetchFn,
      allowHttpHosts,
      timeoutMs: options.timeoutMs ?? DEFAULT_STATUS_LIST_TIMEOUT_MS,
      maxBytes: options.maxBytes ?? DEFAULT_STATUS_LIST_MAX_BYTES,
      accept: 'application/vc+ld+json, application/json, application/vc+jwt, application/jwt;q=0.9',
    });
    if (!res.ok) return undefined;
    const text = (res.text ?? '').trim();
    return text.startsWith('{') ? parseJsonBounded(text) : text;
  };
}

/** Runs every check; never throws (a failure is a check in the result). */
export async function checkIssuedCredential(ctx: WalletContext, raw: unknown, expect: CredentialExpectations): Promise<VerificationResult> {
  const attachedId = expect.statusListCredential === undefined ? undefined : statusListId(expect.statusListCredential);
  return verifyCredential(raw, {
    resolve: ctx.resolve,
    clock: ctx.clock,
    // credentials/issuer-key.ts sameDid: the long and short forms of our did:ion both match.
    expectedSubject: ctx.identity.did,
    expectedIssuer: expect.issuer,
    ...(expect.claims ? { expectedClaims: expect.claims as Record<string, unknown> } : {}),
    statusList: async (url) => {
      if (attachedId !== undefined && attachedId === url) return expect.statusListCredential;
      return ctx.statusListFetch?.(url);
    },
  });
}

/** The first failed check: what the problem report names. */
export function firstFailure(result: VerificationResult): { check: string; code?: string; detail?: string } | undefined {
  const bad = result.checks.find((c) => !c.ok);
  return bad ? { check: bad.check, code: bad.code, detail: bad.detail } : undefined;
}
