// Out-of-Band 2.0 (DIDComm v2 §Out Of Band Messages): invitations, their URL form
// `<base>?_oob=<base64url(JSON)>`, the short form `?_oobid=<id>` fetched with HTTP GET,
// and validation with one error code, 'invalid_invitation'.
import { inspectInvitationUrl, checkInvitation } from '../conformance/oob-url.js';
import { refusalsOf } from '../conformance/types.js';
import { epochSeconds, withBody, type MessageDeps } from '../didcomm/message.js';
import type { ProtocolModule } from '../router/router.js';
import type { Attachment, PlainMessage } from '../didcomm/types.js';
import { b64uDecodeText, b64uEncode } from '../encoding.js';
import { parseJsonBounded } from '../json-depth.js';
import { IdsyncError, isIdsyncError } from '../errors.js';
import { networkError } from '../http-fetch.js';
import { uuid } from '../clock.js';

export const OUT_OF_BAND_PIURI = 'https://didcomm.org/out-of-band/2.0';
export const OUT_OF_BAND = { invitation: `${OUT_OF_BAND_PIURI}/invitation` } as const;
/** The `accept` value for DIDComm Messaging v2. */
export const DIDCOMM_V2_PROFILE = 'didcomm/v2';

export interface Invitation extends PlainMessage {
  from: string;
  body: { goal_code?: string; goal?: string; accept?: string[]; [k: string]: unknown };
}

export interface CreateInvitationInput {
  from: string;
  goal_code?: string;
  goal?: string;
  accept?: string[];
  attachments?: Attachment[];
  id?: string;
  /** Sets expires_time; without it the invitation does not expire. */
  expiresInMs?: number;
}

function invalid(message: string, details: Record<string, unknown> = {}, cause?: unknown): IdsyncError {
  return new IdsyncError('invalid_invitation', message, { details, cause });
}

/** An invitation; `id` becomes the pthid of the invitee's first message. No `typ`, to keep URLs short. */
export function createInvitation(input: CreateInvitationInput, deps: Partial<MessageDeps> = {}): Invitation {
  const body: Invitation['body'] = {};
  if (input.goal_code !== undefined) body.goal_code = input.goal_code;
  if (input.goal !== undefined) body.goal = input.goal;
  body.accept = input.accept ?? [DIDCOMM_V2_PROFILE];
  const invitation: Invitation = { type: OUT_OF_BAND.invitation, id: input.id ?? (deps.ids ?? uuid)(), from: input.from, body };
  if (deps.clock) {
    invitation.created_time = epochSeconds(deps.clock.now());
    if (input.expiresInMs !== undefined) invitation.expires_time = epochSeconds(deps.clock.now() + input.expiresInMs);
  }
  if (input.attachments?.length) invitation.attachments = input.attachments;
  return validateInvitation(invitation);
}

/** Checks an invitation against the conformance rules; throws 'invalid_invitation' on any MUST broken, or any rule idsync needs (`refuses`). */
export function validateInvitation(value: unknown): Invitation {
  const failures = refusalsOf(checkInvitation(value));
  if (failures.length) {
    throw invalid(`invalid invitation: ${failures.map((f) => f.detail).join('; ')}`, { failures: failures.map((f) => ({ rule: f.rule, detail: f.detail })) });
  }
  // A plaintext message: an absent body (OPTIONAL in v2.1) is read as empty (no goal_code, every profile accepted).
  return withBody(value as Invitation);
}

function baseUrl(base: string): URL {
  try {
    return new URL(base);
  } catch (err) {
    throw new IdsyncError('didcomm_invalid_argument', `not an absolute URL: ${base}`, { cause: err });
  }
}

/** `<base>?_oob=<base64url(compact JSON)>` (§Standard Message Encoding); other query parameters are kept. */
export function encodeInvitationUrl(base: string, invitation: PlainMessage): string {
  const url = baseUrl(base);
  url.searchParams.delete('_oobid');
  url.searchParams.set('_oob', b64uEncode(JSON.stringify(invitation)));
  return url.toString();
}

/** `<base>?_oobid=<id>` (§Short URL Message Retrieval). */
export function encodeShortInvitationUrl(base: string, oobid: string): string {
  const url = baseUrl(base);
  url.searchParams.delete('_oob');
  url.searchParams.set('_oobid', oobid);
  return url.toString();
}

export type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

export interface ParseInvitationOptions {
  /** Fetches `_oobid` short URLs (default: global fetch). */
  fetchShort?: FetchLike;
  /** Redirect hops to follow for a short URL (default 5). */
  maxRedirects?: number;
}

function fromUrl(input: string): { invitation?: Invitation; oobid?: string } {
  const inspection = inspectInvitationUrl(input);
  const failures = refusalsOf(inspection.results);
  if (inspection.oobid !== undefined && failures.length === 0) return { oobid: inspection.oobid };
  if (failures.length) {
    throw invalid(`invalid invitation URL: ${failures.map((f) => f.detail).join('; ')}`, { failures: failures.map((f) => ({ rule: f.rule, detail: f.detail })) });
  }
  return { invitation: withBody(inspection.invitation as Invitation) };
}

/**
 * GET of a short invitation URL (§Short URL Message Retrieval): a 2xx answer, or a redirect for the
 * caller to follow. What no answer came for is invalid_invitation with the socket's reason
 * (ECONNREFUSED, ENOTFOUND, a timeout), not undici's bare "fetch failed"; so is any other status.
 */
export async function fetchShortUrl(url: string, fetchFn: FetchLike, init: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetchFn(url, init);
  } catch (err) {
    throw invalid(`could not fetch the short invitation URL: ${networkError(err, url).message}`, { reason: 'fetch_failed' }, err);
  }
  if (res.status < 200 || res.status >= 400) {
    await res.body?.cancel();
    throw invalid(`the short invitation URL answered HTTP ${res.status}`, { reason: 'http_status', status: res.status });
  }
  return res;
}

/** A fetched short URL answers with the invitation JSON, a URL holding `_oob`, or a redirect to one. */
async function fetchShort(url: string, fetchFn: FetchLike, hopsLeft: number): Promise<Invitation> {
  if (hopsLeft < 0) throw invalid('too many redirects resolving the short invitation URL', { reason: 'redirects' });
  const res = await fetchShortUrl(url, fetchFn, { redirect: 'manual', headers: { accept: 'application/json, text/plain;q=0.5, */*;q=0.1' } });
  if (res.status >= 300) {
    const location = res.headers.get('location');
    if (!location) throw invalid(`redirect ${res.status} without Location`, { reason: 'redirect' });
    const next = URL.parse(location, url);
    if (!next) throw invalid(`redirect ${res.status} to a Location that is not a URL`, { reason: 'redirect' });
    return resolveUrl(next.toString(), fetchFn, hopsLeft - 1);
  }
  const text = (await res.text()).trim();
  let json: unknown;
  try {
    json = parseJsonBounded(text);
  } catch {
    json = undefined;
  }
  if (typeof json === 'object' && json !== null) return validateInvitation(json);
  const target = typeof json === 'string' ? json : text;
  const named = /^[a-z][a-z0-9+.-]*:/i.test(target) ? URL.parse(target, url) : null;
  if (named) return resolveUrl(named.toString(), fetchFn, hopsLeft - 1);
  // A fetch that followed redirects itself leaves the final URL in res.url.
  if (res.url && res.url !== url && new URL(res.url).searchParams.has('_oob')) return resolveUrl(res.url, fetchFn, hopsLeft - 1);
  throw invalid('the short invitation URL did not return an invitation', { reason: 'not_an_invitation' });
}

async function resolveUrl(url: string, fetchFn: FetchLike, hopsLeft: number): Promise<Invitation> {
  const { invitation, oobid } = fromUrl(url);
  if (invitation) return invitation;
  if (oobid !== undefined) return fetchShort(url, fetchFn, hopsLeft);
  throw invalid('no invitation in the URL');
}

/**
 * The invitation in an `_oob` URL (base64url; padded or standard base64 tolerated), or
 * behind an `_oobid` short URL. Also takes the invitation JSON itself or its base64url.
 * Every failure is IdsyncError 'invalid_invitation'.
 */
export async function parseInvitationUrl(input: string, options: ParseInvitationOptions = {}): Promise<Invitation> {
  if (typeof input !== 'string' || input.trim() === '') throw invalid('empty invitation');
  const text = input.trim();
  try {
    if (text.startsWith('{')) return validateInvitation(parseJsonBounded(text));
    if (/^eyJ[A-Za-z0-9_\-+/=]*$/.test(text)) return validateInvitation(parseJsonBounded(b64uDecodeText(text)));
    const fetchFn = options.fetchShort ?? ((u: string, init?: RequestInit) => fetch(u, init));
    return await resolveUrl(text, fetchFn, options.maxRedirects ?? 5);
  } catch (err) {
    if (isIdsyncError(err) && err.code === 'invalid_invitation') throw err;
    throw invalid(`not an invitation: ${(err as Error)?.message ?? String(err)}`, { reason: 'unparseable' }, err);
  }
}

/** True when the invitation accepts DIDComm v2 answers (no `accept` means any). */
export function acceptsDidcommV2(invitation: Invitation): boolean {
  return !Array.isArray(invitation.body.accept) || invitation.body.accept.some((a) => a === DIDCOMM_V2_PROFILE || a.startsWith(`${DIDCOMM_V2_PROFILE};`));
}

/** The protocol messages attached to an invitation (data.json, or data.base64 of JSON), in order of preference. */
export function attachedMessages(invitation: Invitation): PlainMessage[] {
  const out: PlainMessage[] = [];
  for (const a of invitation.attachments ?? []) {
    try {
      const value = a.data.json ?? (a.data.base64 ? parseJsonBounded(b64uDecodeText(a.data.base64)) : undefined);
      if (value && typeof value === 'object' && typeof (value as PlainMessage).type === 'string') out.push(value as PlainMessage);
    } catch {
      // Not a JSON message: the attachment is for the application, not the router.
    }
  }
  return out;
}

export interface OutOfBandOptions {
  /** An invitation that arrived as a DIDComm message (e.g. an invitation delivered by DIDCOMM). */
  onInvitation?: (invitation: Invitation, message: PlainMessage) => void | Promise<void>;
  /**
   * The roles disclosed (Discover Features 2.0): 'receiver' for an agent that takes invitations,
   * 'sender' for one that issues them. Default both.
   */
  roles?: string[];
}

/**
 * The disclosure of an agent that issues invitations but receives none by DIDComm (so registers
 * no out-of-band handler): Discover Features 2.0 discloses what an agent really does.
 */
export const OUT_OF_BAND_SENDER_FEATURE = { 'feature-type': 'protocol', id: OUT_OF_BAND_PIURI, roles: ['sender'] } as const;

export function outOfBandProtocol(options: OutOfBandOptions = {}): ProtocolModule {
  return {
    piuri: OUT_OF_BAND_PIURI,
    roles: options.roles ?? ['sender', 'receiver'],
    handlers: {
      invitation: async (ctx) => {
        const invitation = validateInvitation(ctx.message);
        ctx.emit('invitation', { invitation, message: ctx.message });
        await options.onInvitation?.(invitation, ctx.message);
      },
    },
  };
}
