// Webhook event names and builders in the vendor's envelope `{type, action, event, params}`
// (vendor-facts "Webhooks"). Rows without an action in the vendor table carry `action: null`.

/** The body of every webhook POST. */
export interface WebhookEnvelope<P extends Record<string, unknown> = Record<string, unknown>> {
  type: string;
  action: string | null;
  event: string;
  params: P;
  /**
   * Extensions so that a receiver can order events (docs/service.md "Webhooks", ordering): when the
   * state change happened (ISO 8601, the service's clock; not the attempt's time), whose events
   * these are (`user:<userId>`, `workflow:<id>`, or `tenant`), and the event's number among that
   * subject's events (1, 2, 3, … increasing in the order the changes were stored).
   */
  occurredAt?: string;
  subject?: string;
  sequence?: number;
}

/**
 * The subject an event is ordered within: a workflow's events by workflow, a user's (Data Pipe,
 * syncs and their issuance, credential status) by user; anything else by tenant.
 */
export function subjectOf(env: Pick<WebhookEnvelope, 'type' | 'params'>): string {
  const p = env.params as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const workflow = str(p.issuanceWorkflowId);
  if (env.type === 'CREDENTIAL_ISSUANCE' && workflow) return `workflow:${workflow}`;
  const user = str(p.userId) ?? str(p.userAccountId);
  return user ? `user:${user}` : workflow ? `workflow:${workflow}` : 'tenant';
}

/** An event handed to the dispatcher; `tenantId` selects the subscribers and is not sent. */
export type WebhookEventInput = Omit<WebhookEnvelope, 'action'> & { action?: string | null; tenantId?: string };

export const WEBHOOK_TYPES = {
  SSI_AGENT: 'SSI_AGENT',
  DATA_SYNC: 'DATA_SYNC',
  DATA_UPDATE: 'DATA_UPDATE',
  CREDENTIAL_ISSUANCE: 'CREDENTIAL_ISSUANCE',
  CREDENTIAL_VERIFICATION: 'CREDENTIAL_VERIFICATION',
  CREDENTIAL_PRESENTATION: 'CREDENTIAL_PRESENTATION',
} as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[keyof typeof WEBHOOK_TYPES];

export const WEBHOOK_ACTIONS = {
  DATA_PIPE_STATUS_UPDATE: 'DATA_PIPE_STATUS_UPDATE',
  /** Older name of DATA_PIPE_STATUS_UPDATE seen in vendor samples; we never emit it. */
  SESSION_STATUS_UPDATE: 'SESSION_STATUS_UPDATE',
  CREDENTIAL_STATUS_UPDATE: 'CREDENTIAL_STATUS_UPDATE',
} as const;

export const DATA_PIPE_EVENTS = ['DATA_PIPE_INITIATED', 'DATA_PIPE_ESTABLISHED'] as const;
/** Older names (SESSION_INVITE_CREATED ≙ DATA_PIPE_INITIATED, SESSION_ESTABLISHED ≙ DATA_PIPE_ESTABLISHED). */
export const LEGACY_SESSION_EVENTS = ['SESSION_INVITE_CREATED', 'SESSION_ESTABLISHED'] as const;
export const DATA_SYNC_EVENTS = [
  'DATA_SYNC_NOT_STARTED',
  'DATA_SYNC_STARTED',
  'DATA_SYNC_COMPLETED',
  'DATA_SYNC_ABORTED',
  'DATA_SYNC_FAILED',
] as const;
export const DATA_UPDATE_EVENTS = ['DATA_UPDATE_STARTED', 'DATA_UPDATE_COMPLETED', 'DATA_UPDATE_FAILED'] as const;
export const CREDENTIAL_ISSUANCE_EVENTS = [
  'CREDENTIAL_ISSUANCE_PENDING',
  'CREDENTIAL_ISSUANCE_COMPLETED',
  'CREDENTIAL_ISSUANCE_FAILED',
] as const;
export const CREDENTIAL_VERIFICATION_EVENTS = [
  'CREDENTIAL_VERIFICATION_PENDING',
  'CREDENTIAL_VERIFICATION_COMPLETED',
  'CREDENTIAL_VERIFICATION_FAILED',
] as const;
export const CREDENTIAL_PRESENTATION_EVENTS = [
  'CREDENTIAL_PRESENTATION_PENDING',
  'CREDENTIAL_PRESENTATION_COMPLETED',
  'CREDENTIAL_PRESENTATION_FAILED',
] as const;
export const CREDENTIAL_STATUS_EVENTS = ['CREDENTIAL_REVOKED', 'CREDENTIAL_SUSPENDED', 'CREDENTIAL_UNSUSPENDED'] as const;

export type DataPipeEvent = (typeof DATA_PIPE_EVENTS)[number];
export type DataSyncEvent = (typeof DATA_SYNC_EVENTS)[number];
export type DataUpdateEvent = (typeof DATA_UPDATE_EVENTS)[number];
export type CredentialIssuanceEvent = (typeof CREDENTIAL_ISSUANCE_EVENTS)[number];
export type CredentialVerificationEvent = (typeof CREDENTIAL_VERIFICATION_EVENTS)[number];
export type CredentialPresentationEvent = (typeof CREDENTIAL_PRESENTATION_EVENTS)[number];
export type CredentialStatusEvent = (typeof CREDENTIAL_STATUS_EVENTS)[number];

/** Every event name we emit (subscription filters are checked against these and the types). */
export const WEBHOOK_EVENT_NAMES: readonly string[] = [
  ...DATA_PIPE_EVENTS,
  ...DATA_SYNC_EVENTS,
  ...DATA_UPDATE_EVENTS,
  ...CREDENTIAL_ISSUANCE_EVENTS,
  ...CREDENTIAL_VERIFICATION_EVENTS,
  ...CREDENTIAL_PRESENTATION_EVENTS,
  ...CREDENTIAL_STATUS_EVENTS,
];

/** Extra params may ride along (e.g. issuanceWorkflowId); the vendor's named params come first. */
type Extra = Record<string, unknown>;

export function dataPipeStatusUpdate(event: DataPipeEvent, params: { thid: string; userId: string } & Extra): WebhookEnvelope {
  return { type: WEBHOOK_TYPES.SSI_AGENT, action: WEBHOOK_ACTIONS.DATA_PIPE_STATUS_UPDATE, event, params };
}

export function dataSyncEvent(event: DataSyncEvent, params: { cptyDID: string; dataSyncOperationId: string } & Extra): WebhookEnvelope {
  return { type: WEBHOOK_TYPES.DATA_SYNC, action: null, event, params };
}

export function dataUpdateEvent(
  event: DataUpdateEvent,
  params: { cptyDID: string; dataUpdateOperationId: string } & Extra,
): WebhookEnvelope {
  return { type: WEBHOOK_TYPES.DATA_UPDATE, action: null, event, params };
}

type ThreadParams = { didcommThreadId: string; userAccountId: string } & Extra;

export function credentialIssuanceEvent(event: CredentialIssuanceEvent, params: ThreadParams): WebhookEnvelope {
  return { type: WEBHOOK_TYPES.CREDENTIAL_ISSUANCE, action: null, event, params };
}

export function credentialVerificationEvent(event: CredentialVerificationEvent, params: ThreadParams): WebhookEnvelope {
  return { type: WEBHOOK_TYPES.CREDENTIAL_VERIFICATION, action: null, event, params };
}

export function credentialPresentationEvent(event: CredentialPresentationEvent, params: ThreadParams): WebhookEnvelope {
  return { type: WEBHOOK_TYPES.CREDENTIAL_PRESENTATION, action: null, event, params };
}

export function credentialStatusUpdate(
  event: CredentialStatusEvent,
  params: { userAccountId: string; credentialId: string } & Extra,
): WebhookEnvelope {
  return { type: WEBHOOK_TYPES.SSI_AGENT, action: WEBHOOK_ACTIONS.CREDENTIAL_STATUS_UPDATE, event, params };
}

/** The envelope as sent: exactly the four vendor members, `action` null when absent. */
export function toEnvelope(input: WebhookEventInput): WebhookEnvelope {
  return { type: input.type, action: input.action ?? null, event: input.event, params: input.params ?? {} };
}

/** The envelope with its ordering members (the dispatcher sets them when it stores the event). */
export function orderedEnvelope(input: WebhookEventInput, order: { occurredAt: string; subject: string; sequence: number }): WebhookEnvelope {
  return { ...toEnvelope(input), occurredAt: order.occurredAt, subject: order.subject, sequence: order.sequence };
}

/**
 * Subscription filter: no filter or an empty one matches everything; otherwise an entry matches
 * an event name (`DATA_SYNC_COMPLETED`), a type (`DATA_SYNC`), an action or `*`.
 */
export function matchesFilter(filter: readonly string[] | undefined, env: WebhookEnvelope): boolean {
  if (!filter || filter.length === 0) return true;
  return filter.some((f) => f === '*' || f === env.event || f === env.type || (env.action !== null && f === env.action));
}
