// A small typed client for the service's REST API (service-interface.md "Endpoints", plus our
// /dev/outbox and /admin/webhooks): what QA tests and the demo drive the service with. It gets
// and caches an access token (OAuth 2.0 client credentials, RFC 6749 §4.4) and turns RFC 9457
// problem responses into IdsyncErrors carrying the problem's `code` and HTTP status.
import type { Static } from '@fastify/type-provider-typebox';
import { systemClock, type Clock } from '../clock.js';
import { IdsyncError, asErrorCode } from '../errors.js';
import { inProcessExchange, NULL_BODY_STATUSES } from '../http-fetch.js';
import { parseRetryAfter } from '../didcomm/transport/media-type.js';
import type { InviteResponse, SyncContext as SyncContextSchema, SyncStarted, User as UserSchema, UserWithEcho } from '../service/routes/schemas/users.js';
import type { IssuanceWorkflowSchema, SendInvitationResponse } from '../service/routes/schemas/issuance-workflows.js';
import type { OutboxEntrySchema } from '../service/routes/dev-outbox.js';
import type { WithSecret as WebhookWithSecret } from '../service/routes/admin-webhooks.js';
import type { ChangeFeed } from './changes.js';

export type User = Static<typeof UserSchema>;
export type UpsertedUser = Static<typeof UserWithEcho>;
export type SyncContext = Static<typeof SyncContextSchema>;
/** Datapoints in the spec's nested form (`residentialAddress {…}`): syncContext.datapointsSynced / datapointsLatest. */
export type NestedDatapoints = SyncContext['syncContext']['datapointsSynced'];
export type Invitation = Static<typeof InviteResponse>;
export type SyncStart = Static<typeof SyncStarted>;
export type IssuanceWorkflow = Static<typeof IssuanceWorkflowSchema>;
export type SentInvitation = Static<typeof SendInvitationResponse>;
export type OutboxEntry = Static<typeof OutboxEntrySchema>;
export type FlatDatapoints = Record<string, string | null>;

export interface WorkflowInput {
  projectId?: string;
  datapoints: Record<string, unknown>;
  userId?: string;
  userDID?: string;
  expiresIn?: number;
  statusChangeTerms?: { status: 'SUSPENDED' | 'REVOKED'; statusUpdateTrigger: 'WORKFLOW_CREATION' | 'WORKFLOW_COMPLETION' };
}

export interface Destination {
  channel: 'DIDCOMM' | 'EMAIL' | 'Email' | 'SMS';
  target?: string;
}

/** POST /admin/webhooks: the subscription with its signing secret. */
export type WebhookSubscription = Static<typeof WebhookWithSecret>;

export interface ServiceClientOptions {
  /** Base URL of the service, e.g. http://127.0.0.1:8080 (no /api/v1). */
  url: string;
  clientId: string;
  clientSecret: string;
  /** Scopes to ask for; omitted: every scope the client holds. */
  scopes?: string[];
  /** Project used by createWorkflow when the input names none. */
  projectId?: string;
  /** Default: global fetch. In-process testbeds pass one that calls the app without a socket. */
  fetch?: typeof fetch;
  clock?: Clock;
  /** Notifications of service state changes, so waiters need not poll (in-process services only). */
  changes?: ChangeFeed;
}

export interface ServiceClient {
  readonly url: string;
  readonly projectId?: string;
  readonly changes?: ChangeFeed;
  /** A valid access token (fetched once, renewed a minute before it expires). */
  token(): Promise<string>;
  putUser(userId: string, body?: { settings?: { isSyncOn?: boolean } }): Promise<UpsertedUser>;
  getUser(userId: string): Promise<User>;
  listUsers(query?: { limit?: number; offset?: number; cursor?: string }): Promise<{ counts: { total: number }; users: User[]; paging: { nextCursor?: string } }>;
  /** PUT …/datapoints; `autoSync: false` stores without starting a sync. */
  putDatapoints(userId: string, datapoints: FlatDatapoints, options?: { autoSync?: boolean }): Promise<{ datapoints: FlatDatapoints; syncOperationId?: string }>;
  getDatapoints(userId: string): Promise<FlatDatapoints & { userDID?: string }>;
  invite(userId: string): Promise<Invitation>;
  /** POST …/sync (202). */
  sync(userId: string): Promise<SyncStart>;
  syncContext(userId: string): Promise<SyncContext>;
  createWorkflow(input: WorkflowInput): Promise<IssuanceWorkflow>;
  sendInvitation(workflowId: string, destinations: Destination[]): Promise<SentInvitation>;
  getWorkflow(workflowId: string): Promise<IssuanceWorkflow>;
  /** GET /dev/outbox (admin scope): what the service sent, oldest first. */
  outbox(filter?: { to?: string; channel?: string; workflowId?: string; limit?: number }): Promise<OutboxEntry[]>;
  /** POST /admin/webhooks (admin scope). */
  subscribeWebhook(input: { url: string; events?: string[]; secret?: string }): Promise<WebhookSubscription>;
  /** Any call: JSON in, parsed JSON out; non-2xx throws IdsyncError(problem code). */
  request<T = unknown>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; body: T }>;
}

const enc = encodeURIComponent;

export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const base = options.url.replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch;
  const clock = options.clock ?? systemClock;
  let cached: { token: string; renewAt: number } | undefined;
  let fetching: Promise<string> | undefined;

  /**
   * One request: through fetch, or, when the fetch reaches the server in this process (the fleet's
   * link, http-fetch.ts IN_PROCESS), as plain data, read as the same answer in a Response would
   * be read, without the Response's stream and body machinery.
   */
  async function exchange(method: string, url: string, init: RequestInit): Promise<{ status: number; headers: Headers; text: string }> {
    const plain = inProcessExchange(doFetch, url);
    if (!plain) {
      const res = await doFetch(url, init);
      return { status: res.status, headers: res.headers, text: await res.text() };
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(init.headers as Record<string, string>)) headers[k.toLowerCase()] = v;
    const res = await plain({ method, url, headers, ...(typeof init.body === 'string' ? { body: init.body } : {}) });
    // A Response has no body for these or for HEAD.
    const empty = NULL_BODY_STATUSES.has(res.status) || method === 'HEAD';
    return { status: res.status, headers: new Headers(res.headers), text: empty ? '' : (res.body ?? '') };
  }

  async function raw<T>(method: string, path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; headers: Headers; body: T }> {
    const init: RequestInit = { method, headers: { accept: 'application/json', ...headers } };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    let res: { status: number; headers: Headers; text: string };
    try {
      res = await exchange(method, base + path, init);
    } catch (err) {
      throw new IdsyncError('service_unreachable', `${method} ${base}${path}: ${(err as Error).message}`, { cause: err });
    }
    const text = res.text;
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    if (res.status >= 400) throw problemError(method, path, res.status, parsed, parseRetryAfter(res.headers.get('retry-after'), clock.now()));
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  async function fetchToken(): Promise<string> {
    const body: Record<string, unknown> = { clientId: options.clientId, clientSecret: options.clientSecret };
    if (options.scopes) body.scopes = options.scopes;
    const res = await raw<{ accessToken: string; expiresIn: number }>('POST', '/api/v1/auth/token', body, {});
    // expiresIn is in seconds (RFC 6749 §5.1); renew a minute early.
    cached = { token: res.body.accessToken, renewAt: clock.now() + Math.max(0, res.body.expiresIn - 60) * 1000 };
    return cached.token;
  }

  async function token(): Promise<string> {
    if (cached && clock.now() < cached.renewAt) return cached.token;
    // Concurrent callers share one token request.
    fetching ??= fetchToken().finally(() => (fetching = undefined));
    return fetching;
  }

  async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    return raw<T>(method, path, body, { authorization: `Bearer ${await token()}`, ...headers });
  }
  const json = async <T>(method: string, path: string, body?: unknown): Promise<T> => (await call<T>(method, path, body)).body;
  const user = (userId: string, rest = '') => `/api/v1/provider/users/${enc(userId)}${rest}`;

  return {
    url: base,
    projectId: options.projectId,
    changes: options.changes,
    token,
    request: call,
    putUser: (userId, body = { settings: { isSyncOn: true } }) => json('PUT', user(userId), body),
    getUser: (userId) => json('GET', user(userId)),
    listUsers(query = {}) {
      return json('GET', `/api/v1/provider/users${queryString(query)}`);
    },
    async putDatapoints(userId, datapoints, o = {}) {
      const res = await call<FlatDatapoints>('PUT', user(userId, `/datapoints${o.autoSync === false ? '?autoSync=false' : ''}`), { datapoints });
      const op = res.headers.get('idsync-sync-operation');
      return { datapoints: res.body, ...(op ? { syncOperationId: op } : {}) };
    },
    getDatapoints: (userId) => json('GET', user(userId, '/datapoints')),
    invite: (userId) => json('POST', user(userId, '/invite'), {}),
    sync: (userId) => json('POST', user(userId, '/sync')),
    syncContext: (userId) => json('GET', user(userId, '/sync-context')),
    async createWorkflow(input) {
      const projectId = input.projectId ?? options.projectId;
      if (!projectId) throw new IdsyncError('invalid_argument', 'createWorkflow needs a projectId (or a client created with one)');
      return (await json<{ issuanceWorkflow: IssuanceWorkflow }>('POST', '/api/v1/issuance-workflows', { ...input, projectId })).issuanceWorkflow;
    },
    sendInvitation: (workflowId, destinations) => json('POST', `/api/v1/issuance-workflows/${enc(workflowId)}/send-invitation`, { destinations }),
    async getWorkflow(workflowId) {
      return (await json<{ issuanceWorkflow: IssuanceWorkflow }>('GET', `/api/v1/issuance-workflows/${enc(workflowId)}`)).issuanceWorkflow;
    },
    async outbox(filter = {}) {
      return (await json<{ entries: OutboxEntry[] }>('GET', `/dev/outbox${queryString(filter)}`)).entries;
    },
    subscribeWebhook: (input) => json('POST', '/admin/webhooks', input),
  };
}

function queryString(query: Record<string, string | number | undefined>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.set(k, String(v));
  const text = qs.toString();
  return text ? `?${text}` : '';
}

/**
 * RFC 9457 problem details → IdsyncError(code); the status and problem stay in details. A code
 * that is not in the catalogue (another service's) becomes `service_problem`: it is in details.problem.
 * A 429's or 503's Retry-After is details.retryAfterSeconds, so that a caller that reads again
 * (a wait polling a service in another process) waits that long first.
 */
function problemError(method: string, path: string, status: number, body: unknown, retryAfterSeconds?: number): IdsyncError {
  const p = (typeof body === 'object' && body !== null ? body : {}) as { code?: string; title?: string; detail?: string };
  const code = asErrorCode(p.code, 'service_problem');
  const why = p.detail ?? p.title ?? (typeof body === 'string' && body ? body.slice(0, 200) : `HTTP ${status}`);
  return new IdsyncError(code, `${method} ${path.split('?')[0]}: ${status} ${why}`, { details: { status, problem: body, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) } });
}
