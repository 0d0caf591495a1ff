// Issuance workflows (service-interface.md "Issuance workflow", vendor-facts "POST
// /issuance-workflows"): creation with datapoints checked against the project's data profile,
// durable state changes along states.ts, expiry by the injected clock, and CREDENTIAL_ISSUANCE_*
// events. Writes to one workflow are serialised in-process.
import { validateDatapoints, type DataProfile } from '../../credentials/manifest.js';
import type { FlatDatapoints } from '../../credentials/datapoints.js';
import { IdsyncError } from '../../errors.js';
import type { ServiceBase, ServiceEvent } from '../context.js';
import { isDid } from './delivery/targets.js';
import { keyedLock, type KeyedLock } from '../../keyed-lock.js';
import { timeKey } from '../../store/time-key.js';
import type { BatchOp } from '../../store/store.js';
import { buildIndexOnce } from '../../store/index-once.js';
import { prepareEvents } from '../webhooks/event-outbox.js';
import { credentialIssuanceEvent, type CredentialIssuanceEvent } from '../webhooks/events.js';
import { buildWorkflowInvitation, WORKFLOW_INVITATIONS, type WorkflowInvitationRecord } from './invitation.js';
import { assertTransition, isTerminal, type WorkflowStatus } from './states.js';

export const WORKFLOWS = 'issuance-workflows';
/** `<tenantId>/<createdAt ms, 15 digits>/<id>` → id: a tenant's workflows in creation order. */
export const WORKFLOW_INDEX = 'issuance-workflow-index';
/** `<expiresAt as timeKey>\0<id>` → id: the workflows the expiry sweep has still to look at, by when they expire. */
export const WORKFLOW_EXPIRY = 'issuance-workflow-expiry';

/** vendor-facts: expiresIn is in milliseconds; 30 days. */
export const DEFAULT_EXPIRES_IN = 2_592_000_000;
/** One year: a longer-lived invitation is almost certainly a unit mistake (seconds vs ms is not). */
export const MAX_EXPIRES_IN = 31_536_000_000;

export interface StatusChangeTerms {
  status: 'SUSPENDED' | 'REVOKED';
  statusUpdateTrigger: 'WORKFLOW_CREATION' | 'WORKFLOW_COMPLETION';
}

export interface SentDestination {
  channel: 'DIDCOMM' | 'EMAIL' | 'SMS';
  to: string;
  status: 'sent' | 'queued' | 'pending' | 'recorded' | 'failed';
  outboxId: string;
  at: string;
  error?: { code: string; message: string };
}

export interface IssuanceWorkflow {
  id: string;
  tenantId: string;
  projectId: string;
  userId?: string;
  userDID?: string;
  datapoints: FlatDatapoints;
  status: WorkflowStatus;
  statusChangeTerms?: StatusChangeTerms;
  expiresIn: number;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
  invitation: { id: string; url: string };
  destinations: SentDestination[];
  /** Thread of the issue-credential exchange, once the wallet answered. */
  didcommThreadId?: string;
  credentialId?: string;
  failure?: { code: string; message: string };
  history: { status: WorkflowStatus; at: string; reason?: string }[];
}

/** What state changes need: the DIDComm side can call them with just these. */
export type WorkflowStateDeps = Pick<ServiceBase, 'store' | 'clock'> & Partial<Pick<ServiceBase, 'events' | 'logger'>>;
/** What creation needs in addition. */
export type WorkflowDeps = WorkflowStateDeps & Pick<ServiceBase, 'ids' | 'config' | 'publicUrl' | 'serviceDid'>;

export interface CreateWorkflowInput {
  tenantId: string;
  projectId: unknown;
  datapoints: unknown;
  userId?: unknown;
  userDID?: unknown;
  expiresIn?: unknown;
  statusChangeTerms?: unknown;
}

type FieldError = { field: string; code: string; message: string };

function invalid(errors: FieldError[]): IdsyncError {
  return new IdsyncError('invalid_request', errors.map((e) => `${e.field}: ${e.message}`).join('; '), { details: { errors } });
}

const iso = (ms: number) => new Date(ms).toISOString();
const indexKey = (w: Pick<IssuanceWorkflow, 'tenantId' | 'createdAt' | 'id'>) => `${w.tenantId}/${timeKey(Date.parse(w.createdAt))}/${w.id}`;
const expiryKey = (w: Pick<IssuanceWorkflow, 'expiresAt' | 'id'>) => `${timeKey(Date.parse(w.expiresAt))}\u0000${w.id}`;

// One queue per workflow id (per store: state changes are plain functions over deps), so
// concurrent transitions never lose an update.
const locks = new WeakMap<object, KeyedLock>();
function locked<T>(deps: WorkflowStateDeps, id: string, fn: () => Promise<T>): Promise<T> {
  let lock = locks.get(deps.store);
  if (!lock) locks.set(deps.store, (lock = keyedLock()));
  return lock(id, fn);
}

function checkTerms(v: unknown, errors: FieldError[]): StatusChangeTerms | undefined {
  if (v === undefined || v === null) return undefined;
  const t = v as Partial<StatusChangeTerms>;
  if (typeof v !== 'object' || (t.status !== 'SUSPENDED' && t.status !== 'REVOKED')) {
    errors.push({ field: 'body/statusChangeTerms/status', code: 'invalid_value', message: 'must be SUSPENDED or REVOKED' });
  }
  if (typeof v !== 'object' || (t.statusUpdateTrigger !== 'WORKFLOW_CREATION' && t.statusUpdateTrigger !== 'WORKFLOW_COMPLETION')) {
    errors.push({ field: 'body/statusChangeTerms/statusUpdateTrigger', code: 'invalid_value', message: 'must be WORKFLOW_CREATION or WORKFLOW_COMPLETION' });
  }
  return errors.length ? undefined : { status: t.status!, statusUpdateTrigger: t.statusUpdateTrigger! };
}

export async function createWorkflow(deps: WorkflowDeps, input: CreateWorkflowInput): Promise<IssuanceWorkflow> {
  const errors: FieldError[] = [];
  if (typeof input.projectId !== 'string' || input.projectId === '') errors.push({ field: 'body/projectId', code: 'required', message: 'must be a non-empty string' });
  if (!input.datapoints || typeof input.datapoints !== 'object' || Array.isArray(input.datapoints)) {
    errors.push({ field: 'body/datapoints', code: 'required', message: 'must be an object of flat datapoints' });
  }
  if (input.userId !== undefined && (typeof input.userId !== 'string' || input.userId === '')) errors.push({ field: 'body/userId', code: 'invalid_value', message: 'must be a non-empty string' });
  if (input.userDID !== undefined && (typeof input.userDID !== 'string' || !isDid(input.userDID))) errors.push({ field: 'body/userDID', code: 'invalid_value', message: 'must be a DID' });
  const expiresIn = input.expiresIn ?? DEFAULT_EXPIRES_IN;
  if (typeof expiresIn !== 'number' || !Number.isInteger(expiresIn) || expiresIn <= 0 || expiresIn > MAX_EXPIRES_IN) {
    errors.push({ field: 'body/expiresIn', code: 'invalid_value', message: `must be an integer number of milliseconds, 1..${MAX_EXPIRES_IN}` });
  }
  const terms = checkTerms(input.statusChangeTerms, errors);
  if (errors.length) throw invalid(errors);

  const projectId = input.projectId as string;
  // 404 project_not_found / data_profile_not_found come from the config module.
  const profile = (await deps.config.profileOfProject(input.tenantId, projectId)) as unknown as DataProfile;
  const checked = validateDatapoints(profile, input.datapoints as Record<string, unknown>);
  if (!checked.ok) {
    const errs = checked.errors.map((e) => ({ field: `body/datapoints/${e.field}`, code: e.code, message: e.message }));
    throw new IdsyncError('invalid_datapoints', errs.map((e) => e.message).join('; '), { details: { errors: errs } });
  }

  const now = deps.clock.now();
  const id = deps.ids();
  const { invitation, url } = buildWorkflowInvitation({
    id: deps.ids(),
    serviceDid: deps.serviceDid,
    publicUrl: deps.publicUrl,
    clock: deps.clock,
    expiresInMs: expiresIn as number,
  });
  const wf: IssuanceWorkflow = {
    id,
    tenantId: input.tenantId,
    projectId,
    ...(input.userId !== undefined ? { userId: input.userId as string } : {}),
    ...(input.userDID !== undefined ? { userDID: input.userDID as string } : {}),
    datapoints: checked.datapoints,
    status: 'CREATED',
    ...(terms ? { statusChangeTerms: terms } : {}),
    expiresIn: expiresIn as number,
    expiresAt: iso(now + (expiresIn as number)),
    createdAt: iso(now),
    updatedAt: iso(now),
    invitation: { id: invitation.id, url },
    destinations: [],
    history: [{ status: 'CREATED', at: iso(now) }],
  };
  const inv: WorkflowInvitationRecord = { invitationId: invitation.id, workflowId: id, tenantId: wf.tenantId, invitation, url };
  await deps.store.batch([
    { type: 'put', collection: WORKFLOWS, key: id, value: wf },
    { type: 'put', collection: WORKFLOW_INDEX, key: indexKey(wf), value: id },
    { type: 'put', collection: WORKFLOW_EXPIRY, key: expiryKey(wf), value: id },
    { type: 'put', collection: WORKFLOW_INVITATIONS, key: invitation.id, value: inv },
  ]);
  return wf;
}

function eventOf(wf: IssuanceWorkflow, event: CredentialIssuanceEvent, extra: Record<string, unknown> = {}): ServiceEvent {
  const env = credentialIssuanceEvent(event, {
    didcommThreadId: wf.didcommThreadId ?? wf.invitation.id,
    userAccountId: wf.userId ?? wf.userDID ?? '',
    issuanceWorkflowId: wf.id,
    projectId: wf.projectId,
    ...extra,
  });
  return { tenantId: wf.tenantId, type: env.type, event: env.event, params: env.params };
}

/**
 * Stores `next` with the webhook events it causes in one batch (event-outbox.ts): a crash never
 * keeps the state change and loses its event.
 */
async function storeWithEvents(deps: WorkflowStateDeps, next: IssuanceWorkflow, events: ServiceEvent[], write: StepWrite = (ops) => deps.store.batch(ops)): Promise<() => Promise<void>> {
  const prepared = deps.events && events.length ? await prepareEvents({ events: deps.events, logger: deps.logger }, events) : undefined;
  await write([{ type: 'put', collection: WORKFLOWS, key: next.id, value: next }, ...(prepared?.ops ?? [])]);
  return async () => {
    await prepared?.commit();
  };
}

/**
 * How a transition's writes are stored: alone (a batch), or by the step that causes it, in one
 * batch with what that step stores and sends (e.g. the offer that answers a proposal).
 */
export type StepWrite = (ops: BatchOp[]) => Promise<void>;

/** Applies a transition and stores it with the events `events` names; `mutate` may set more fields. */
async function transition(
  deps: WorkflowStateDeps,
  id: string,
  to: WorkflowStatus,
  /** Sets more fields on `next`; `stored` is the workflow as read under the lock (it may throw to refuse the transition). */
  mutate: (next: IssuanceWorkflow, stored: IssuanceWorkflow) => void = () => {},
  reason?: string,
  events: (next: IssuanceWorkflow, before: IssuanceWorkflow) => ServiceEvent[] = () => [],
  write?: StepWrite,
  /** Allowed from a terminal status too (completeLate). */
  late?: readonly WorkflowStatus[],
): Promise<IssuanceWorkflow> {
  const { next, commit } = await locked(deps, id, async () => {
    const wf = await load(deps, id);
    const at = iso(deps.clock.now());
    if (!late?.includes(wf.status)) assertTransition(wf.status, to, id);
    const next: IssuanceWorkflow = { ...wf, status: to, updatedAt: at, history: [...wf.history] };
    if (wf.status !== to) next.history.push({ status: to, at, ...(reason ? { reason } : {}) });
    mutate(next, wf);
    return { next, commit: await storeWithEvents(deps, next, events(next, wf), write) };
  });
  await commit();
  return next;
}

async function load(deps: WorkflowStateDeps, id: string): Promise<IssuanceWorkflow> {
  const wf = await deps.store.collection<IssuanceWorkflow>(WORKFLOWS).get(id);
  if (!wf) throw new IdsyncError('workflow_not_found', `no issuance workflow ${id}`);
  if (!isTerminal(wf.status) && Date.parse(wf.expiresAt) <= deps.clock.now()) return expire(deps, wf);
  return wf;
}

async function expire(deps: WorkflowStateDeps, wf: IssuanceWorkflow): Promise<IssuanceWorkflow> {
  const at = iso(deps.clock.now());
  const failure = { code: 'expired', message: `not completed within expiresIn (${wf.expiresIn} ms)` };
  const next: IssuanceWorkflow = { ...wf, status: 'EXPIRED', updatedAt: at, failure, history: [...wf.history, { status: 'EXPIRED', at, reason: 'expired' }] };
  const commit = await storeWithEvents(deps, next, [eventOf(next, 'CREDENTIAL_ISSUANCE_FAILED', { reason: 'expired' })]);
  await commit();
  return next;
}

/** The workflow (expired on read when its time is up); 404 workflow_not_found, also for another tenant's. */
export async function getWorkflow(deps: WorkflowStateDeps, id: string, scope: { tenantId?: string } = {}): Promise<IssuanceWorkflow> {
  const wf = await locked(deps, id, () => load(deps, id));
  if (scope.tenantId !== undefined && wf.tenantId !== scope.tenantId) throw new IdsyncError('workflow_not_found', `no issuance workflow ${id}`);
  return wf;
}

/**
 * Records where the invitation went; CREATED → INVITATION_SENT (IN_PROGRESS stays). With
 * `advance: false` (every delivery failed) only the destinations are recorded. A workflow that
 * became final while the invitation was being sent (the holder completed it, it expired) keeps its
 * state, and the destinations are recorded all the same: they were sent, and a 409 saying
 * "nothing is sent" would hide a message that went out.
 */
export function markInvitationSent(deps: WorkflowStateDeps, id: string, sent: SentDestination[], options: { advance?: boolean } = {}): Promise<IssuanceWorkflow> {
  return locked(deps, id, async () => {
    const wf = await load(deps, id);
    const to: WorkflowStatus = wf.status === 'IN_PROGRESS' ? 'IN_PROGRESS' : 'INVITATION_SENT';
    const final = isTerminal(wf.status);
    if (!final) assertTransition(wf.status, to, id);
    const status = options.advance === false || final ? wf.status : to;
    const at = iso(deps.clock.now());
    const next: IssuanceWorkflow = { ...wf, status, updatedAt: at, destinations: [...wf.destinations, ...sent], history: [...wf.history] };
    if (wf.status !== status) next.history.push({ status, at });
    await deps.store.collection<IssuanceWorkflow>(WORKFLOWS).put(id, next);
    return next;
  });
}

/**
 * The wallet answered the invitation (pthid = invitation id): → IN_PROGRESS (stored by `write` when
 * given). `claim` sees the workflow as stored, under its lock, and throws to refuse this answer (one
 * made on another thread meanwhile holds it): two answers at once cannot both take it.
 */
export async function markInProgress(deps: WorkflowStateDeps, id: string, info: { didcommThreadId?: string; userDID?: string; claim?: (stored: IssuanceWorkflow) => void } = {}, write?: StepWrite): Promise<IssuanceWorkflow> {
  return transition(
    deps,
    id,
    'IN_PROGRESS',
    (w, stored) => {
      info.claim?.(stored);
      if (info.didcommThreadId) w.didcommThreadId = info.didcommThreadId;
      if (info.userDID && !w.userDID) w.userDID = info.userDID;
    },
    undefined,
    (next, before) => (before.status !== 'IN_PROGRESS' ? [eventOf(next, 'CREDENTIAL_ISSUANCE_PENDING')] : []),
    write,
  );
}

/** The holder acknowledged the credential: → COMPLETED (stored by `write` when given). */
export async function complete(deps: WorkflowStateDeps, id: string, credentialId: string, write?: StepWrite): Promise<IssuanceWorkflow> {
  return transition(
    deps,
    id,
    'COMPLETED',
    (w) => {
      w.credentialId = credentialId;
    },
    undefined,
    (next) => [eventOf(next, 'CREDENTIAL_ISSUANCE_COMPLETED', { credentialId })],
    write,
  );
}

/**
 * The holder acknowledged its credential after the workflow had FAILED or EXPIRED (the credential
 * was issued and delivered before that): → COMPLETED after all, with CREDENTIAL_ISSUANCE_COMPLETED
 * following the failure's event, so that the provider's view is the holder's.
 */
export async function completeLate(deps: WorkflowStateDeps, id: string, credentialId: string, write?: StepWrite): Promise<IssuanceWorkflow> {
  return transition(
    deps,
    id,
    'COMPLETED',
    (w) => {
      w.credentialId = credentialId;
      delete w.failure;
    },
    'late-ack',
    (next) => [eventOf(next, 'CREDENTIAL_ISSUANCE_COMPLETED', { credentialId })],
    write,
    ['FAILED', 'EXPIRED'],
  );
}

/** → FAILED with a reason code (states.ts FAILURE_CODES, or any snake_case code). */
export async function fail(deps: WorkflowStateDeps, id: string, code: string, message?: string): Promise<IssuanceWorkflow> {
  if (!/^[a-z][a-z0-9_]{0,63}$/.test(code)) throw new IdsyncError('invalid_request', 'failure code must be snake_case');
  return transition(
    deps,
    id,
    'FAILED',
    (w) => {
      w.failure = { code, message: message ?? code.replace(/_/g, ' ') };
    },
    code,
    (next) => [eventOf(next, 'CREDENTIAL_ISSUANCE_FAILED', { reason: code })],
  );
}

/** The expiry index over a store written before it: its waiting workflows, indexed once (index-once.ts). */
function indexExpiries(deps: WorkflowStateDeps): Promise<void> {
  return buildIndexOnce(deps.store, WORKFLOW_EXPIRY, async () => {
    const workflows = deps.store.collection<IssuanceWorkflow>(WORKFLOWS);
    const ops: BatchOp[] = [];
    for (const { value: wf } of (await workflows.count()) === 0 ? [] : await workflows.list()) {
      if (!isTerminal(wf.status)) ops.push({ type: 'put', collection: WORKFLOW_EXPIRY, key: expiryKey(wf), value: wf.id });
    }
    return ops;
  });
}

/**
 * Expires every non-terminal workflow whose expiresAt ≤ now; resolves with how many. It reads only
 * the workflows whose time has come (the expiry index), each once: its index entry goes once it
 * has been looked at, expired or already finished. The sweep runs every minute: reading every
 * workflow each time cost a pass over all of them, finished ones included, forever.
 */
export async function expireDue(deps: WorkflowStateDeps, now: number = deps.clock.now()): Promise<number> {
  await indexExpiries(deps);
  const col = deps.store.collection<IssuanceWorkflow>(WORKFLOWS);
  const expiry = deps.store.collection<string>(WORKFLOW_EXPIRY);
  let n = 0;
  for (const { key: dueKey, value: id } of await expiry.list({ lt: timeKey(now + 1) })) {
    const done = await locked(deps, id, async () => {
      const fresh = await col.get(id);
      if (!fresh || isTerminal(fresh.status) || Date.parse(fresh.expiresAt) > now) return false;
      await expire(deps, fresh);
      return true;
    });
    await expiry.del(dueKey);
    if (done) n++;
  }
  return n;
}
