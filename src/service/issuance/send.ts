// send-invitation (service-interface.md "Issuance"): validates the destinations, refuses a
// finished workflow (409 invalid_transition), delivers the workflow's invitation on every
// channel (delivery/sender.ts records each in the outbox), and records the result.
import { isoNow } from '../../clock.js';
import type { DeliveryResult, InvitationSender } from './delivery/sender.js';
import { parseDestinations } from './delivery/targets.js';
import { findWorkflowByInvitation } from './invitation.js';
import { assertTransition } from './states.js';
import { getWorkflow, markInvitationSent, type IssuanceWorkflow, type SentDestination, type WorkflowStateDeps } from './workflows.js';
import { IdsyncError } from '../../errors.js';

export interface SendInvitationResult {
  issuanceWorkflow: IssuanceWorkflow;
  deliveries: DeliveryResult[];
}

export async function sendWorkflowInvitation(
  deps: WorkflowStateDeps & { invitations: InvitationSender; issuerName?: string },
  id: string,
  input: { tenantId?: string; destinations: unknown },
): Promise<SendInvitationResult> {
  const wf = await getWorkflow(deps, id, input.tenantId !== undefined ? { tenantId: input.tenantId } : {});
  // Refuse before anything is sent when the workflow is finished (COMPLETED/FAILED/EXPIRED).
  assertTransition(wf.status, wf.status === 'IN_PROGRESS' ? 'IN_PROGRESS' : 'INVITATION_SENT', wf.id);
  const destinations = parseDestinations(input.destinations, wf.userDID ? { defaultDid: wf.userDID } : {});
  const inv = await findWorkflowByInvitation(deps, wf.invitation.id);
  if (!inv) throw new IdsyncError('internal_error', `invitation of workflow ${wf.id} is missing`);
  const deliveries = await deps.invitations.send(destinations, {
    invitation: inv.invitation,
    invitationUrl: inv.url,
    workflowId: wf.id,
    tenantId: wf.tenantId,
    ...(deps.issuerName ? { issuerName: deps.issuerName } : {}),
  });
  const at = isoNow(deps.clock);
  const sent: SentDestination[] = deliveries.map((d) => ({
    channel: d.channel,
    to: d.to,
    status: d.status,
    outboxId: d.outboxId,
    at,
    ...(d.error ? { error: d.error } : {}),
  }));
  // Only a delivery that got out, will be sent again (pending) or was at least recorded moves the workflow on; all failed:
  // the destinations are kept for the record and the state stays, so a retry is a plain re-send.
  const anyOut = deliveries.some((d) => d.status !== 'failed');
  const issuanceWorkflow = await markInvitationSent(deps, wf.id, sent, { advance: anyOut });
  return { issuanceWorkflow, deliveries };
}
