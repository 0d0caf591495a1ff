// Issuance workflows (service-interface.md "Issuance"; vendor-facts "POST /issuance-workflows").
// Reading needs create:issuance-workflows: the client that creates workflows reads them back.
import type { App } from '../http/app-types.js';
import { authOf, requireScope } from '../auth/route-auth.js';
import type { ServiceDeps } from '../deps.js';
import { responses } from '../http/schemas.js';
import {
  CreateWorkflowBody,
  SendInvitationBody,
  SendInvitationResponse,
  WorkflowEnvelope,
  WorkflowIdParams,
  WorkflowList,
  WorkflowListQuery,
} from './schemas/issuance-workflows.js';
import { sendWorkflowInvitation } from '../issuance/send.js';
import { issuanceServicesOf } from '../issuance/wiring.js';
import { workflowView } from '../issuance/view.js';
import { listWorkflows } from '../issuance/list.js';
import { createWorkflow, getWorkflow } from '../issuance/workflows.js';

export const READ_WORKFLOWS_SCOPE = 'create:issuance-workflows';

export async function issuanceWorkflowRoutes(app: App, deps: ServiceDeps): Promise<void> {
  app.post(
    '/api/v1/issuance-workflows',
    {
      preHandler: requireScope('create:issuance-workflows'),
      schema: {
        tags: ['Issuance'],
        summary: 'Create an issuance workflow',
        description:
          'Validates the datapoints against the project\'s data profile and prepares an out-of-band invitation ' +
          '(goal_code streamlined-vc). 201 `{issuanceWorkflow}` with status CREATED. 404 project_not_found.',
        body: CreateWorkflowBody,
        response: responses({ 201: WorkflowEnvelope }, [404, 413, 415]),
      },
    },
    async (request, reply) => {
      const { tenantId } = authOf(request);
      const b = request.body;
      // A known, linked user lends its DID, so DIDCOMM invitations need no target.
      const userDID = b.userDID ?? (b.userId !== undefined ? (await deps.users.get({ tenantId, userId: b.userId }))?.userDID : undefined);
      const wf = await createWorkflow(deps, {
        tenantId,
        projectId: b.projectId,
        datapoints: b.datapoints,
        ...(b.userId !== undefined ? { userId: b.userId } : {}),
        ...(userDID !== undefined ? { userDID } : {}),
        ...(b.expiresIn !== undefined ? { expiresIn: b.expiresIn } : {}),
        ...(b.statusChangeTerms !== undefined ? { statusChangeTerms: b.statusChangeTerms } : {}),
      });
      // statusChangeTerms with trigger WORKFLOW_CREATION: this user's earlier credentials (docs/service.md).
      try {
        await deps.agent.onWorkflowCreated?.(wf);
      } catch (err) {
        request.log.warn({ err, workflowId: wf.id }, 'statusChangeTerms at workflow creation failed');
      }
      reply.code(201).header('location', `/api/v1/issuance-workflows/${encodeURIComponent(wf.id)}`);
      return { issuanceWorkflow: workflowView(wf) };
    },
  );

  app.get(
    '/api/v1/issuance-workflows',
    {
      preHandler: requireScope(READ_WORKFLOWS_SCOPE),
      schema: {
        tags: ['Issuance'],
        summary: 'List issuance workflows',
        description: `Oldest first; filter by projectId, status, userId, userDID. Page with limit and offset or cursor. Needs ${READ_WORKFLOWS_SCOPE}.`,
        querystring: WorkflowListQuery,
        response: responses({ 200: WorkflowList }),
      },
    },
    async (request) => {
      const { tenantId } = authOf(request);
      const { limit = 50, offset, cursor, projectId, status, userId, userDID } = request.query;
      const page = await listWorkflows(
        deps,
        tenantId,
        { ...(projectId ? { projectId } : {}), ...(status ? { status } : {}), ...(userId ? { userId } : {}), ...(userDID ? { userDID } : {}) },
        { limit, ...(offset !== undefined ? { offset } : {}), ...(cursor !== undefined ? { cursor } : {}) },
      );
      const paging: { limit: number; offset?: number; nextCursor?: string } = { limit };
      if (cursor === undefined) paging.offset = offset ?? 0;
      if (page.nextCursor) paging.nextCursor = page.nextCursor;
      return { counts: { total: page.total }, issuanceWorkflows: page.workflows.map(workflowView), paging };
    },
  );

  app.get(
    '/api/v1/issuance-workflows/:issuanceWorkflowId',
    {
      preHandler: requireScope(READ_WORKFLOWS_SCOPE),
      schema: {
        tags: ['Issuance'],
        summary: 'Get an issuance workflow',
        description: `Needs ${READ_WORKFLOWS_SCOPE}. 404 workflow_not_found.`,
        params: WorkflowIdParams,
        response: responses({ 200: WorkflowEnvelope }, [404]),
      },
    },
    async (request) => {
      const wf = await getWorkflow(deps, request.params.issuanceWorkflowId, { tenantId: authOf(request).tenantId });
      return { issuanceWorkflow: workflowView(wf) };
    },
  );

  app.post(
    '/api/v1/issuance-workflows/:issuanceWorkflowId/send-invitation',
    {
      preHandler: requireScope('send:issuance-workflows'),
      schema: {
        tags: ['Issuance'],
        summary: 'Send the workflow\'s invitation',
        description:
          'destinations: [{channel: DIDCOMM | Email (EMAIL) | SMS, target}] — a DID, an e-mail address, an E.164 phone number; ' +
          'target is optional for DIDCOMM when the workflow names a userDID. Every destination is recorded in the outbox. ' +
          'A transport failure is reported per destination (status failed), never as an error; send again to retry. ' +
          '400 invalid_destination with field errors; 409 invalid_transition when the workflow is COMPLETED, FAILED or EXPIRED.',
        params: WorkflowIdParams,
        body: SendInvitationBody,
        response: responses({ 200: SendInvitationResponse }, [404, 409, 413, 415]),
      },
    },
    async (request) => {
      const services = issuanceServicesOf(deps);
      const result = await sendWorkflowInvitation(
        { ...deps, invitations: services.invitations, ...(services.issuerName ? { issuerName: services.issuerName } : {}) },
        request.params.issuanceWorkflowId,
        { tenantId: authOf(request).tenantId, destinations: request.body.destinations },
      );
      return { issuanceWorkflow: workflowView(result.issuanceWorkflow), deliveries: result.deliveries };
    },
  );
}
