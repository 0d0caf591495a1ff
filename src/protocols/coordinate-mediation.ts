// Coordinate Mediation 2.0 and 3.0 (https://didcomm.org/coordinate-mediation/2.0, /3.0): a
// recipient asks a mediator for mediation (mediate-request → mediate-grant | mediate-deny), then
// tells it which DIDs it receives for (keylist-update / recipient-update) and asks which it holds
// (keylist-query / recipient-query). The versions differ in names only, and in one shape: the
// 2.0 grant's routing_did is one DID string (the Identus SDK refuses a list), the 3.0 grant's a
// list. Builders, body rules, parsers and the client side are here; the mediator side is
// src/mediator/coordinate.ts.
import type { MessageRule } from '../conformance/types.js';
import { createMessage, type MessageDeps } from '../didcomm/message.js';
import type { PlainMessage } from '../didcomm/types.js';
import { IdsyncError } from '../errors.js';
import type { ProtocolModule, Router } from '../router/router.js';
import { request, type RequestOptions } from './await-reply.js';
import { assertRules, assertType, draftHeaders, isDid, isPlainObject, parsedProtocol, rule, type HandlersFor, type MessageHeaders } from './protocol-kit.js';

export const COORDINATE_MEDIATION_2_PIURI = 'https://didcomm.org/coordinate-mediation/2.0';
/**
 * The goal_code of an out-of-band invitation to mediate: the value the Identus cloud mediator
 * publishes (no protocol registers one). idsync's mediator uses it, and a wallet told to accept
 * such an invitation as a connection says what to do with it instead.
 */
export const MEDIATE_GOAL_CODE = 'request-mediate';
export const COORDINATE_MEDIATION_3_PIURI = 'https://didcomm.org/coordinate-mediation/3.0';

export type MediationVersion = '2.0' | '3.0';
export const MEDIATION_VERSIONS: readonly MediationVersion[] = ['2.0', '3.0'];

/** Message names per version (3.0 renamed the keylist messages after the DIDs they carry). */
export const MEDIATION_NAMES = {
  '2.0': { update: 'keylist-update', updateResponse: 'keylist-update-response', query: 'keylist-query', list: 'keylist', listField: 'keys' },
  '3.0': { update: 'recipient-update', updateResponse: 'recipient-update-response', query: 'recipient-query', list: 'recipient', listField: 'dids' },
} as const;

export const piuriOf = (v: MediationVersion): string => (v === '2.0' ? COORDINATE_MEDIATION_2_PIURI : COORDINATE_MEDIATION_3_PIURI);

/** The full message type URIs of one version. */
export function mediationTypes(v: MediationVersion) {
  const p = piuriOf(v);
  const n = MEDIATION_NAMES[v];
  return {
    request: `${p}/mediate-request`,
    grant: `${p}/mediate-grant`,
    deny: `${p}/mediate-deny`,
    update: `${p}/${n.update}`,
    updateResponse: `${p}/${n.updateResponse}`,
    query: `${p}/${n.query}`,
    list: `${p}/${n.list}`,
  };
}

export type UpdateAction = 'add' | 'remove';
export type UpdateResult = 'client_error' | 'server_error' | 'no_change' | 'success';
const ACTIONS: readonly string[] = ['add', 'remove'];
const RESULTS: readonly string[] = ['client_error', 'server_error', 'no_change', 'success'];

export interface RecipientUpdate {
  recipientDid: string;
  action: UpdateAction;
}
export interface RecipientUpdated extends RecipientUpdate {
  result: UpdateResult;
}
export interface Paginate {
  limit: number;
  offset: number;
}
export interface Pagination {
  count: number;
  offset: number;
  remaining: number;
}

type Headers = Omit<MessageHeaders, 'pthid'>;

// ---- builders ------------------------------------------------------------------------------

// §Requirements: "the recipient should specify return_route header to all" on its requests.
const RETURN_ROUTE = { return_route: 'all' as const };

export function buildMediateRequest(v: MediationVersion, input: Headers, deps: MessageDeps): PlainMessage {
  return createMessage({ type: mediationTypes(v).request, ...draftHeaders(input), body: {}, ...RETURN_ROUTE }, deps);
}

/** §Mediate Grant: 2.0 `routing_did` is one DID, 3.0 a list of DIDs. */
export function buildMediateGrant(v: MediationVersion, input: Headers & { routingDid: string }, deps: MessageDeps): PlainMessage {
  const routing_did = v === '2.0' ? input.routingDid : [input.routingDid];
  return createMessage({ type: mediationTypes(v).grant, ...draftHeaders(input), body: { routing_did } }, deps);
}

export function buildMediateDeny(v: MediationVersion, input: Headers, deps: MessageDeps): PlainMessage {
  return createMessage({ type: mediationTypes(v).deny, ...draftHeaders(input), body: {} }, deps);
}

export function buildRecipientUpdate(v: MediationVersion, input: Headers & { updates: RecipientUpdate[] }, deps: MessageDeps): PlainMessage {
  const updates = input.updates.map((u) => ({ recipient_did: u.recipientDid, action: u.action }));
  return createMessage({ type: mediationTypes(v).update, ...draftHeaders(input), body: { updates }, ...RETURN_ROUTE }, deps);
}

export function buildRecipientUpdateResponse(v: MediationVersion, input: Headers & { updated: RecipientUpdated[] }, deps: MessageDeps): PlainMessage {
  const updated = input.updated.map((u) => ({ recipient_did: u.recipientDid, action: u.action, result: u.result }));
  return createMessage({ type: mediationTypes(v).updateResponse, ...draftHeaders(input), body: { updated } }, deps);
}

export function buildRecipientQuery(v: MediationVersion, input: Headers & { paginate?: Paginate }, deps: MessageDeps): PlainMessage {
  const body = input.paginate ? { paginate: { limit: input.paginate.limit, offset: input.paginate.offset } } : {};
  return createMessage({ type: mediationTypes(v).query, ...draftHeaders(input), body, ...RETURN_ROUTE }, deps);
}

export function buildRecipientList(v: MediationVersion, input: Headers & { dids: string[]; pagination?: Pagination }, deps: MessageDeps): PlainMessage {
  const body: Record<string, unknown> = { [MEDIATION_NAMES[v].listField]: input.dids.map((d) => ({ recipient_did: d })) };
  if (input.pagination) body.pagination = { ...input.pagination };
  return createMessage({ type: mediationTypes(v).list, ...draftHeaders(input), body }, deps);
}

// ---- body rules (conformance) --------------------------------------------------------------

const isCount = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;
const isRecipientDid = (v: unknown): v is string => typeof v === 'string' && /^did:[a-z0-9]+:\S+$/.test(v);

/** The catalogue ids of each version's body rules (conformance/catalogue-entries.ts). */
const RULE_IDS = {
  '2.0': {
    grant: 'coordinate-mediation.mediate-grant.routing_did',
    updates: 'coordinate-mediation.keylist-update.updates',
    updated: 'coordinate-mediation.keylist-update-response.updated',
    paginate: 'coordinate-mediation.keylist-query.paginate',
    list: 'coordinate-mediation.keylist.keys',
    pagination: 'coordinate-mediation.keylist.pagination',
  },
  '3.0': {
    grant: 'coordinate-mediation.mediate-grant.routing_did-list',
    updates: 'coordinate-mediation.recipient-update.updates',
    updated: 'coordinate-mediation.recipient-update-response.updated',
    paginate: 'coordinate-mediation.recipient-query.paginate',
    list: 'coordinate-mediation.recipient.dids',
    pagination: 'coordinate-mediation.recipient.pagination',
  },
} as const;

function rulesOf(v: MediationVersion): Record<string, MessageRule[]> {
  const n = MEDIATION_NAMES[v];
  const id = RULE_IDS[v];
  const field = n.listField;
  const grant: MessageRule = (m) =>
    v === '2.0'
      ? [rule(id.grant, isDid(m.body.routing_did), 'body.routing_did must be one DID string (2.0; a list is the 3.0 form)')]
      : [rule(id.grant, Array.isArray(m.body.routing_did) && m.body.routing_did.length > 0 && m.body.routing_did.every(isDid), 'body.routing_did must be a non-empty list of DIDs (3.0)')];
  const update: MessageRule = (m) => {
    const list = m.body.updates;
    const ok = Array.isArray(list) && list.length > 0 && list.every((u) => isPlainObject(u) && isRecipientDid(u.recipient_did) && ACTIONS.includes(u.action as string));
    return [rule(id.updates, ok, 'body.updates must be a non-empty list of {recipient_did: a DID, action: "add" | "remove"}')];
  };
  const updateResponse: MessageRule = (m) => {
    const list = m.body.updated;
    const ok = Array.isArray(list) && list.every((u) => isPlainObject(u) && typeof u.recipient_did === 'string' && ACTIONS.includes(u.action as string) && RESULTS.includes(u.result as string));
    return [rule(id.updated, ok, 'body.updated must list {recipient_did, action: add | remove, result: client_error | server_error | no_change | success}')];
  };
  // §Keylist Query: "paginate: is optional, and if present must include limit and offset".
  const query: MessageRule = (m) => {
    const p = m.body.paginate;
    return p === undefined ? [] : [rule(id.paginate, isPlainObject(p) && isCount(p.limit) && isCount(p.offset), 'body.paginate, when present, must include limit and offset (non-negative integers)')];
  };
  // §Keylist: "pagination: is optional, and if present must include count, offset and remaining".
  const listed: MessageRule = (m) => {
    const list = m.body[field];
    const out = [rule(id.list, Array.isArray(list) && list.every((k) => isPlainObject(k) && typeof k.recipient_did === 'string'), `body.${field} must be a list of {recipient_did}`)];
    const p = m.body.pagination;
    if (p !== undefined) out.push(rule(id.pagination, isPlainObject(p) && isCount(p.count) && isCount(p.offset) && isCount(p.remaining), 'body.pagination, when present, must include count, offset and remaining'));
    return out;
  };
  return { 'mediate-grant': [grant], [n.update]: [update], [n.updateResponse]: [updateResponse], [n.query]: [query], [n.list]: [listed] };
}

export const COORDINATE_MEDIATION_2_RULES = rulesOf('2.0');
export const COORDINATE_MEDIATION_3_RULES = rulesOf('3.0');
const RULES: Record<MediationVersion, Record<string, MessageRule[]>> = { '2.0': COORDINATE_MEDIATION_2_RULES, '3.0': COORDINATE_MEDIATION_3_RULES };

// ---- parsers -------------------------------------------------------------------------------

const versionOf = (m: PlainMessage): MediationVersion => (String(m.type).startsWith(`${COORDINATE_MEDIATION_3_PIURI}/`) ? '3.0' : '2.0');
const checked = (m: PlainMessage, name: string) => assertRules(m, RULES[versionOf(m)][name] ?? []);

/** The routing DIDs of a grant, as a list for both versions. */
export function parseMediateGrant(message: PlainMessage): { routingDids: string[] } {
  const v = versionOf(message);
  assertType(message, mediationTypes(v).grant);
  checked(message, 'mediate-grant');
  const r = message.body.routing_did;
  return { routingDids: Array.isArray(r) ? (r as string[]) : [r as string] };
}

export function parseRecipientUpdate(message: PlainMessage): { updates: RecipientUpdate[] } {
  const v = versionOf(message);
  assertType(message, mediationTypes(v).update);
  checked(message, MEDIATION_NAMES[v].update);
  return { updates: (message.body.updates as Array<{ recipient_did: string; action: UpdateAction }>).map((u) => ({ recipientDid: u.recipient_did, action: u.action })) };
}

export function parseRecipientUpdateResponse(message: PlainMessage): { updated: RecipientUpdated[] } {
  const v = versionOf(message);
  assertType(message, mediationTypes(v).updateResponse);
  checked(message, MEDIATION_NAMES[v].updateResponse);
  return {
    updated: (message.body.updated as Array<{ recipient_did: string; action: UpdateAction; result: UpdateResult }>).map((u) => ({ recipientDid: u.recipient_did, action: u.action, result: u.result })),
  };
}

export function parseRecipientQuery(message: PlainMessage): { paginate?: Paginate } {
  const v = versionOf(message);
  assertType(message, mediationTypes(v).query);
  checked(message, MEDIATION_NAMES[v].query);
  const p = message.body.paginate as Paginate | undefined;
  return p ? { paginate: { limit: p.limit, offset: p.offset } } : {};
}

export function parseRecipientList(message: PlainMessage): { dids: string[]; pagination?: Pagination } {
  const v = versionOf(message);
  assertType(message, mediationTypes(v).list);
  checked(message, MEDIATION_NAMES[v].list);
  const dids = (message.body[MEDIATION_NAMES[v].listField] as Array<{ recipient_did: string }>).map((k) => k.recipient_did);
  const p = message.body.pagination as Pagination | undefined;
  return { dids, ...(p ? { pagination: { count: p.count, offset: p.offset, remaining: p.remaining } } : {}) };
}

const none = (message: PlainMessage) => ({ id: message.id });

/** Parsers by role-neutral name: update, updateResponse, query and list stand for each version's message names. */
const PARSERS = {
  'mediate-request': none,
  'mediate-grant': parseMediateGrant,
  'mediate-deny': none,
  update: parseRecipientUpdate,
  updateResponse: parseRecipientUpdateResponse,
  query: parseRecipientQuery,
  list: parseRecipientList,
};

/** Handlers by role-neutral name (update, updateResponse, query, list stand for each version's message names). */
export type CoordinateMediationHandlers = HandlersFor<typeof PARSERS>;

/** The module for router.use(): the mediator registers the requests, the recipient the answers. */
export function coordinateMediationProtocol(v: MediationVersion, handlers: CoordinateMediationHandlers, roles: string[]): ProtocolModule {
  const n = MEDIATION_NAMES[v];
  const wireName: Record<string, string> = { update: n.update, updateResponse: n.updateResponse, query: n.query, list: n.list };
  const wireParsers: Record<string, (m: PlainMessage) => unknown> = {};
  const wireHandlers: Record<string, unknown> = {};
  for (const [name, parse] of Object.entries(PARSERS)) {
    const wire = wireName[name] ?? name;
    wireParsers[wire] = parse;
    if ((handlers as Record<string, unknown>)[name]) wireHandlers[wire] = (handlers as Record<string, unknown>)[name];
  }
  return parsedProtocol({ piuri: piuriOf(v), roles, rules: RULES[v] }, wireParsers, wireHandlers as HandlersFor<typeof wireParsers>);
}

// ---- the recipient (client) side -----------------------------------------------------------

/** The recipient's module: answers emit events that `requestMediation` and friends wait for. */
export function mediationClientProtocol(v: MediationVersion): ProtocolModule {
  const emit = (event: string) => (ctx: Parameters<NonNullable<CoordinateMediationHandlers['mediate-deny']>>[0]) => ctx.emit(event, { message: ctx.message });
  return coordinateMediationProtocol(v, { 'mediate-grant': emit('mediation-answer'), 'mediate-deny': emit('mediation-answer'), updateResponse: emit('mediation-updated'), list: emit('mediation-list') }, ['recipient']);
}

export type MediationAnswer = { granted: true; routingDids: string[]; message: PlainMessage } | { granted: false; message: PlainMessage };

/** Asks `mediator` for mediation; resolves with the grant's routing DIDs, or granted false on a deny. */
export async function requestMediation(router: Router, mediator: string, v: MediationVersion = '2.0', options: RequestOptions = {}): Promise<MediationAnswer> {
  const draft = { type: mediationTypes(v).request, body: {}, ...RETURN_ROUTE };
  const { response } = await request(router, draft, 'mediation-answer', { ...options, to: mediator });
  if (response.type === mediationTypes(v).deny) return { granted: false, message: response };
  return { granted: true, routingDids: parseMediateGrant(response).routingDids, message: response };
}

/** Adds or removes recipient DIDs at `mediator`; resolves with its per-DID results. */
export async function updateRecipients(router: Router, mediator: string, updates: RecipientUpdate[], v: MediationVersion = '2.0', options: RequestOptions = {}): Promise<RecipientUpdated[]> {
  const draft = { type: mediationTypes(v).update, body: { updates: updates.map((u) => ({ recipient_did: u.recipientDid, action: u.action })) }, ...RETURN_ROUTE };
  const { response } = await request(router, draft, 'mediation-updated', { ...options, to: mediator });
  const { updated } = parseRecipientUpdateResponse(response);
  const failed = updated.filter((u) => u.result === 'client_error' || u.result === 'server_error');
  if (failed.length) throw new IdsyncError('mediation_update_failed', `the mediator refused ${failed.map((u) => `${u.action} ${u.recipientDid}: ${u.result}`).join('; ')}`, { details: { updated } });
  return updated;
}

/** The recipient DIDs `mediator` holds for us (one page when `paginate` is given). */
export async function queryRecipients(router: Router, mediator: string, v: MediationVersion = '2.0', paginate?: Paginate, options: RequestOptions = {}): Promise<{ dids: string[]; pagination?: Pagination }> {
  const draft = { type: mediationTypes(v).query, body: paginate ? { paginate } : {}, ...RETURN_ROUTE };
  const { response } = await request(router, draft, 'mediation-list', { ...options, to: mediator });
  return parseRecipientList(response);
}
