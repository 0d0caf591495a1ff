// The Data Pipe side of a user: sync context, invitation, manual sync (service-interface.md
// "GET .../sync-context", "Create user invitation", "Start user data synchronization").
import type { App } from '../http/app-types.js';
import type { ServiceDeps } from '../deps.js';
import { authOf, requireScope } from '../auth/route-auth.js';
import { Empty, responses, UserIdParams } from '../http/schemas.js';
import { InviteResponse, SyncContext, SyncStarted } from './schemas/users.js';
import { syncContextOf } from '../users/views.js';
import { syncScopeNames } from '../users/sync-scope.js';
import { createUserInvitation } from '../users/invitations.js';
import { prepareEvents } from '../webhooks/event-outbox.js';

export async function userSessionRoutes(app: App, deps: ServiceDeps): Promise<void> {
  app.get(
    '/api/v1/provider/users/:userId/sync-context',
    {
      preHandler: requireScope('read:provider-user-sync-sessions'),
      schema: { tags: ['Data Sync'], summary: 'Get the user\'s sync context', params: UserIdParams, response: responses({ 200: SyncContext }, [404]) },
    },
    async (request) => {
      const { tenantId } = authOf(request);
      const user = await deps.users.require({ tenantId, userId: request.params.userId });
      return {
        isSyncOn: user.settings.isSyncOn,
        isSessionEstablished: user.isSessionEstablished,
        isLinked: user.isLinked,
        datapoints: await syncScopeNames(deps, tenantId),
        issuerDIDs: [deps.serviceDid],
        syncContext: syncContextOf(user),
      };
    },
  );

  app.post(
    '/api/v1/provider/users/:userId/invite',
    {
      preHandler: requireScope('create:provider-user-sync-sessions'),
      schema: {
        tags: ['Data Sync'],
        summary: 'Create an invitation URL for the user to establish the Data Pipe',
        description:
          'Body `{}` (or none). invitationUrl is `<public-url>/connect?_oob=<base64url OOB 2.0 invitation>` from the service DID; ' +
          'absent once the session is established. Every call makes a new invitation; earlier ones stay valid until they ' +
          'expire (expires_time, default 30 days after creation; invitationExpiresAt). DATA_PIPE_INITIATED {thid: invitation id, userId}.',
        params: UserIdParams,
        body: Empty,
        response: responses({ 200: InviteResponse }, [404, 413, 415]),
      },
    },
    async (request) => {
      const ref = { tenantId: authOf(request).tenantId, userId: request.params.userId };
      const user = await deps.users.require(ref);
      const base = { isSessionEstablished: user.isSessionEstablished, isLinked: user.isLinked, isAlreadyConnected: user.isSessionEstablished };
      if (user.isSessionEstablished) return base;
      // DATA_PIPE_INITIATED is written in the invitation's own batch (the outbox).
      const record = await createUserInvitation(deps, ref, (r) =>
        prepareEvents(deps, [{ tenantId: ref.tenantId, type: 'SSI_AGENT', action: 'DATA_PIPE_STATUS_UPDATE', event: 'DATA_PIPE_INITIATED', params: { thid: r.id, userId: ref.userId } }]),
      );
      await deps.agent.onInvitationCreated?.({ ...ref, invitation: record.invitation });
      return { ...base, invitationUrl: record.url, ...(record.expiresAt ? { invitationExpiresAt: record.expiresAt } : {}) };
    },
  );

  // The spec writes the path without the slash after v1; both forms are served.
  for (const url of ['/api/v1/provider/users/:userId/sync', '/api/v1provider/users/:userId/sync']) {
    app.post(
      url,
      {
        preHandler: requireScope('start:provider-user-sync-sessions'),
        schema: {
          tags: ['Data Sync'],
          summary: url.startsWith('/api/v1provider') ? 'Start a sync (the spec\'s slash-less path)' : 'Start a sync over the established session',
          description: 'No body. 202 with the operation id; 409 session_not_established while no session, 409 sync_disabled while settings.isSyncOn is false.',
          deprecated: url.startsWith('/api/v1provider') || undefined,
          params: UserIdParams,
          response: responses({ 202: SyncStarted }, [404, 409]),
        },
      },
      async (request, reply) => {
        const { operationId } = await deps.users.startSync({ tenantId: authOf(request).tenantId, userId: request.params.userId });
        reply.code(202);
        return { operationId, status: 'queued' };
      },
    );
  }
}
