// The out-of-band 2.0 invitation of an issuance workflow (DIDComm v2 §9.5.1): from the service
// DID, goal_code `streamlined-vc` (WACI-DIDComm issuance), URL `<publicUrl>/connect?_oob=…`.
// The invitation id maps back to the workflow: the wallet's first message carries it as pthid.
import type { Clock } from '../../clock.js';
import { createInvitation, encodeInvitationUrl, type Invitation } from '../../protocols/out-of-band.js';
import type { Store } from '../../store/store.js';

export const WORKFLOW_INVITATIONS = 'issuance-workflow-invitations';
export const ISSUANCE_GOAL_CODE = 'streamlined-vc';

export interface WorkflowInvitationRecord {
  invitationId: string;
  workflowId: string;
  tenantId: string;
  invitation: Invitation;
  url: string;
}

/** The invitation expires with the workflow (expires_time, DIDComm v2 §2.4 message headers). */
export function buildWorkflowInvitation(opts: { id: string; serviceDid: string; publicUrl: string; clock: Clock; expiresInMs: number }): { invitation: Invitation; url: string } {
  const invitation = createInvitation(
    { id: opts.id, from: opts.serviceDid, goal_code: ISSUANCE_GOAL_CODE, goal: 'Issue a credential', expiresInMs: opts.expiresInMs },
    { clock: opts.clock },
  );
  return { invitation, url: encodeInvitationUrl(`${opts.publicUrl}/connect`, invitation) };
}

/** The workflow an invitation (pthid of an inbound message) belongs to, if it is a workflow's. */
export async function findWorkflowByInvitation(deps: { store: Store }, invitationId: string): Promise<WorkflowInvitationRecord | undefined> {
  return deps.store.collection<WorkflowInvitationRecord>(WORKFLOW_INVITATIONS).get(invitationId);
}
