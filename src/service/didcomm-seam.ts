// The seam between the REST API and the service's DIDComm agent. Routes call a ServiceAgent;
// createService runs the real one (didcomm/agent.ts createServiceAgent) unless given another.
import type { InboundOutcome } from '../didcomm/transport/media-type.js';
import type { InboundRefusal } from '../didcomm/types.js';
import type { Store } from '../store/store.js';
import type { OobInvitation } from './users/invitations.js';
import type { SyncReason, SyncRequester, UserRef } from './users/users.js';
import type { IssuanceWorkflow } from './issuance/workflows.js';

export type SyncStatus = 'queued' | 'started' | 'completed' | 'aborted' | 'failed';

/** One data sync operation (vendor-facts: DATA_SYNC_* events carry its id as dataSyncOperationId). */
export interface SyncOperation {
  id: string;
  tenantId: string;
  userId: string;
  reason: SyncReason;
  status: SyncStatus;
  createdAt: string;
  updatedAt: string;
  /** Set by the DIDComm side when it fails or aborts. */
  error?: string;
}

/** What inbound DIDComm endpoints hand over: the packed message and, when the transport allows, a way to reply. */
export interface InboundInfo {
  transport: 'http' | 'ws';
  /** Return-routed reply (DIDComm v2 §6.1 return_route), when the transport can carry one. */
  reply?: (packed: string) => Promise<void>;
  /** WebSocket only: binds a DID to the socket so that later messages to it are pushed there. */
  bind?: (key: string) => void;
  /** The JSON object the transport parsed the packed message into, so that it is not parsed again. */
  parsed?: Record<string, unknown>;
  /**
   * Called (before receive resolves) when the message failed for a reason that may pass and may
   * be sent again; the endpoint tells the sender so where it can (HTTP 503 with Retry-After).
   */
  retryable?: (outcome: ReceiveOutcome) => void;
  /**
   * Called (before receive resolves) when the message was refused for good and no problem report
   * could tell its sender (no sender to answer): POST /didcomm answers 400 with the refusal's code.
   */
  refused?: (refusal: InboundRefusal) => void;
}

/**
 * What `InboundInfo.retryable` is called with: the message failed for a reason that may pass
 * (store error, timeout, unresolved DID) and its id was left free, so the same message sent again
 * can succeed. POST /didcomm then answers 503 with Retry-After instead of 202.
 */
export interface ReceiveOutcome extends Omit<InboundOutcome, 'retryable'> {
  /** The error code of the failure, for logs. */
  code?: string;
}

import type { RetryCounts } from '../router/retry/scheduler.js';

export interface ServiceAgent extends SyncRequester {
  /** Called after POST .../invite made a new invitation for a user. */
  onInvitationCreated?(info: UserRef & { invitation: OobInvitation }): Promise<void>;
  /**
   * Inbound DIDComm message from POST /didcomm or the WebSocket. Without it the service answers
   * 202 and logs. Calling `info.retryable` makes POST /didcomm answer 503 instead of 202.
   */
  receive?(packed: string, info: InboundInfo): Promise<void>;
  /** A new issuance workflow was stored (statusChangeTerms with trigger WORKFLOW_CREATION). */
  onWorkflowCreated?(workflow: IssuanceWorkflow): Promise<void>;
  /**
   * Called once the service DID is final (createService: at creation with a public URL, else from
   * listen()): resume work a restart left. Idempotent.
   */
  start?(): void;
  /** What the agent's retry scheduler holds (router/retry/scheduler.ts): GET /admin/retries. */
  retries?(): RetryCounts & { byKind: Record<string, RetryCounts> };
  close?(): Promise<void>;
}

export const SYNC_OPERATIONS = 'svc-sync-operations';

// Key `<tenantId>/<userId>/<operationId>`: a user's operations list by prefix.
export const syncOperationKey = (op: Pick<SyncOperation, 'tenantId' | 'userId' | 'id'>): string =>
  `${op.tenantId}/${op.userId}/${op.id}`;

export async function listSyncOperations(store: Store, user: UserRef): Promise<SyncOperation[]> {
  const rows = await store.collection<SyncOperation>(SYNC_OPERATIONS).list({ prefix: `${user.tenantId}/${user.userId}/` });
  return rows.map((r) => r.value).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}
