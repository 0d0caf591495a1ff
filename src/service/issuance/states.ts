// The issuance workflow state machine (ours: vendor-facts says the vendor's is unpublished).
//
//   CREATED ──send-invitation──► INVITATION_SENT ──wallet answers──► IN_PROGRESS ──ack──► COMPLETED
//      │                              │  ▲ (re-send)                     │
//      └───────────── any non-terminal state ──► FAILED (reason code) / EXPIRED (expiresAt passed)
//
// CREATED → IN_PROGRESS is allowed: the invitation URL is in the workflow record, and a
// provider may hand it to the user itself. Re-sending keeps INVITATION_SENT (or IN_PROGRESS).
// COMPLETED, FAILED and EXPIRED are terminal.
import { problem } from '../http/problem.js';

export const WORKFLOW_STATUSES = ['CREATED', 'INVITATION_SENT', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'EXPIRED'] as const;
export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];

export const TERMINAL_STATUSES: readonly WorkflowStatus[] = ['COMPLETED', 'FAILED', 'EXPIRED'];

const NEXT: Record<WorkflowStatus, readonly WorkflowStatus[]> = {
  CREATED: ['INVITATION_SENT', 'IN_PROGRESS', 'FAILED', 'EXPIRED'],
  INVITATION_SENT: ['INVITATION_SENT', 'IN_PROGRESS', 'FAILED', 'EXPIRED'],
  IN_PROGRESS: ['IN_PROGRESS', 'COMPLETED', 'FAILED', 'EXPIRED'],
  COMPLETED: [],
  FAILED: [],
  EXPIRED: [],
};

/**
 * Reason codes of FAILED (anything matching /^[a-z][a-z0-9_]*$/ is accepted; these are the ones
 * the service itself uses).
 */
export const FAILURE_CODES = {
  /** The holder declined the offer (issue-credential 3.0 problem report). */
  offer_declined: 'The holder declined the credential offer',
  /** The holder's wallet rejected the issued credential (e.g. failed verification). */
  credential_refused: 'The holder refused the issued credential',
  /** The holder's request did not match the offer (wrong DID, bad proof, tampered data). */
  request_invalid: 'The credential request was invalid',
  /** Issuing failed on our side (signing, status list). */
  issuance_error: 'The credential could not be issued',
  /** The provider cancelled the workflow. */
  cancelled: 'The workflow was cancelled',
} as const;

export function isTerminal(status: WorkflowStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export function canTransition(from: WorkflowStatus, to: WorkflowStatus): boolean {
  return NEXT[from].includes(to);
}

/** Throws 'invalid_transition' (HTTP 409) unless `from → to` is allowed. */
export function assertTransition(from: WorkflowStatus, to: WorkflowStatus, workflowId: string): void {
  if (!canTransition(from, to)) {
    throw problem('invalid_transition', `issuance workflow ${workflowId} is ${from}; it cannot become ${to}`, {
      workflowId,
      status: from,
      requestedStatus: to,
    });
  }
}
