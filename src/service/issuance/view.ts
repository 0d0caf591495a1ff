// The API view of a workflow: the stored record without the tenant, plus invitationUrl.
import type { IssuanceWorkflow } from './workflows.js';

export type IssuanceWorkflowView = Omit<IssuanceWorkflow, 'tenantId'> & { invitationUrl: string };

export function workflowView(wf: IssuanceWorkflow): IssuanceWorkflowView {
  const { tenantId: _tenant, ...rest } = wf;
  return { ...rest, invitationUrl: wf.invitation.url };
}
