// The wallet behind a mediator, recipient side of Coordinate Mediation 2.0 / 3.0 (the client
// helpers are protocols/coordinate-mediation.ts). The wallet's DID is made naming the mediator
// (DIDComm v2.1 §Using a DID as an endpoint, or the mediator's URI with its key as routingKeys),
// then mediation is asked for and the DID registered (keylist-update / recipient-update). Each
// step is kept in the store first, so a wallet stopped half way finishes on its next start and a
// restarted wallet keeps its grant.
import type { DIDDocument, DocumentResolver } from '../did/types.js';
import { didOf, sameDid } from '../didcomm/message.js';
import { IdsyncError, toIdsyncError } from '../errors.js';
import {
  requestMediation, updateRecipients, type MediationVersion,
} from '../protocols/coordinate-mediation.js';
import { parseInvitationUrl } from '../protocols/out-of-band.js';
import type { Router } from '../router/router.js';
import { serviceUris } from '../router/peer-route.js';
import type { Store } from '../store/store.js';
import { chooseEndpoint } from './outbound.js';

export const MEDIATION_COLLECTION = 'wallet-mediation';
const KEY = 'mediator';

/**
 * How the wallet's DIDCommMessaging service names the mediator: 'did' (default) the mediator's
 * DID as the endpoint; 'routing-keys' the mediator's URI with its key agreement key as routingKeys.
 */
export type MediatorEndpointForm = 'did' | 'routing-keys';

export interface MediationOptions {
  /** '2.0' or '3.0'; 'auto' (default) asks in 2.0 and, when the mediator cannot grant in 2.0, in 3.0. */
  version?: MediationVersion | 'auto';
  endpointForm?: MediatorEndpointForm;
  /** Collect over a live WebSocket when the mediator offers one (default true); else poll. */
  live?: boolean;
  /** Polling interval when not live (default 2000 ms). */
  pollIntervalMs?: number;
  /**
   * How long the confirmation of a live delivery (messages-received) waits for more deliveries to
   * confirm in the same message (default 0: those handled in the same turn of the event loop).
   */
  ackDelayMs?: number;
  /** Collect while the wallet runs (default true); false: only wallet.pickup() collects. */
  collect?: boolean;
}

export interface MediationRecord {
  /** The mediator's DID (the invitation's `from`, or the DID given). */
  mediator: string;
  /** The DID the wallet's service names for routing; checked against the grant's routing_did. */
  routingDid: string;
  form: MediatorEndpointForm;
  /** 'pending' until the grant came and the wallet's DID is registered. */
  state: 'pending' | 'registered';
  version?: MediationVersion;
  grantedAt?: string;
}

export function mediationStore(store: Store) {
  const col = store.collection<MediationRecord>(MEDIATION_COLLECTION);
  return { get: () => col.get(KEY), put: (r: MediationRecord) => col.put(KEY, r), remove: () => col.del(KEY) };
}

/** Whether a mediator given as `input` is named by its DID (else it is an invitation: URL or JSON). */
export const namesMediatorDid = (input: string): boolean => /^did:[a-z0-9]+:/.test(input.trim());

/** The mediator's DID from `input`: a DID as given, or the `from` of an out-of-band invitation (URL or JSON). */
export async function mediatorDidOf(input: string, fetchFn?: typeof fetch): Promise<string> {
  const text = input.trim();
  if (namesMediatorDid(text)) return didOf(text);
  const invitation = await parseInvitationUrl(text, fetchFn ? { fetchShort: fetchFn } : {});
  if (typeof invitation.from !== 'string') throw new IdsyncError('mediation_failed', 'the invitation to mediate names no mediator DID (from)');
  return invitation.from;
}

/** The key agreement key id of `doc` (absolute), for routingKeys. */
function keyAgreementKid(doc: DIDDocument): string | undefined {
  const first = doc.keyAgreement?.[0];
  const id = typeof first === 'string' ? first : first?.id;
  if (!id) return undefined;
  return id.startsWith('#') ? `${doc.id}${id}` : id;
}

/**
 * The wallet DID's service for a mediator: its DID as the endpoint, or (routing-keys) its URI
 * with its key agreement key as the one routing key (DIDComm v2.1 §Service Endpoint: routingKeys
 * "An ordered array of strings referencing keys to be used when preparing the message for transmission").
 */
export async function serviceForMediator(routingDid: string, form: MediatorEndpointForm, resolve: DocumentResolver): Promise<{ endpoint: string; routingKeys?: string[] }> {
  if (form === 'did') return { endpoint: routingDid };
  const doc = await resolve(routingDid);
  const kid = doc ? keyAgreementKid(doc) : undefined;
  const uri = chooseEndpoint(serviceUris(doc), ['https', 'http', 'wss', 'ws']);
  if (!doc || !kid || !uri) throw new IdsyncError('mediation_failed', `the mediator ${routingDid} names no key agreement key or no endpoint URI`, { details: { mediator: routingDid } });
  return { endpoint: uri, routingKeys: [kid] };
}

/** Asks for mediation in `version` ('auto': 2.0, then 3.0 when 2.0 is refused or its grant unreadable). */
async function grant(router: Router, mediator: string, version: MediationVersion | 'auto', timeoutMs: number, signal?: AbortSignal): Promise<{ version: MediationVersion; routingDids: string[] }> {
  const tries: MediationVersion[] = version === 'auto' ? ['2.0', '3.0'] : [version];
  let last: unknown;
  for (const v of tries) {
    try {
      const answer = await requestMediation(router, mediator, v, { to: mediator, untracked: true, timeoutMs, ...(signal ? { signal } : {}) });
      if (!answer.granted) throw new IdsyncError('mediation_denied', `the mediator ${mediator} denied mediation (coordinate-mediation ${v})`, { details: { mediator, version: v } });
      return { version: v, routingDids: answer.routingDids };
    } catch (err) {
      const e = toIdsyncError(err);
      if (e.code === 'mediation_denied') throw e;
      // Stopped: no other version is asked, and the failure says it was stopped.
      if (signal?.aborted) throw new IdsyncError('aborted', `stopped while asking ${mediator} for mediation (coordinate-mediation ${v})`, { details: { mediator }, cause: err });
      last = e;
    }
  }
  const e = toIdsyncError(last);
  throw new IdsyncError('mediation_failed', `${NOT_ASKED.has(e.code) ? `the mediator ${mediator} could not be asked for mediation` : `the mediator ${mediator} granted no mediation`}: ${e.message}`, { details: { mediator, code: e.code }, cause: last });
}

/** Failures before any request reached the mediator: "granted no mediation" would say it was asked. */
const NOT_ASKED = new Set(['did_not_resolved', 'transport_unreachable', 'endpoint_refused', 'no_endpoint', 'invalid_did']);

/**
 * Finishes a pending mediation: the grant (its routing DID must be the one the wallet's DID
 * names), then the wallet's DID registered. Both requests are idempotent at the mediator, so a
 * wallet stopped between them asks again on its next start. `signal` stops both, the waits for
 * the answers included: it fails at once with code 'aborted'.
 */
export async function completeMediation(
  o: { router: Router; store: Store; did: string; now: () => string; version?: MediationVersion | 'auto'; timeoutMs?: number; signal?: AbortSignal },
  record: MediationRecord,
): Promise<MediationRecord> {
  const timeoutMs = o.timeoutMs ?? 15_000;
  const granted = await grant(o.router, record.mediator, record.version ?? o.version ?? 'auto', timeoutMs, o.signal);
  if (!granted.routingDids.some((d) => sameDid(d, record.routingDid))) {
    throw new IdsyncError('mediation_failed', `the mediator routes through ${granted.routingDids.join(', ')}, not ${record.routingDid} that the wallet's DID names`, {
      details: { mediator: record.mediator, routingDids: granted.routingDids },
    });
  }
  const withGrant: MediationRecord = { ...record, version: granted.version, grantedAt: o.now() };
  await mediationStore(o.store).put(withGrant);
  // §Keylist Update: "Used to notify the mediator of keys in use by the recipient."
  await updateRecipients(o.router, record.mediator, [{ recipientDid: o.did, action: 'add' }], granted.version, { to: record.mediator, untracked: true, timeoutMs, ...(o.signal ? { signal: o.signal } : {}) });
  const registered: MediationRecord = { ...withGrant, state: 'registered' };
  await mediationStore(o.store).put(registered);
  return registered;
}

