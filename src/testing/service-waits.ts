// Waiting for service state over its REST API: a user's sync context, a user, an issuance
// workflow's status. In-process services re-read on their change feed; remote ones are polled.
import type { IssuanceWorkflow, ServiceClient, SyncContext, User } from './rest-client.js';
import { IdsyncError, isIdsyncError } from '../errors.js';
import { WORKFLOW_STATUSES, type WorkflowStatus } from '../service/issuance/states.js';
import { stopWaiting, waitForState, type WaitOptions } from './wait.js';

/** Resolves with the user's sync context once `predicate` accepts it. */
export function waitForSyncContext(client: ServiceClient, userId: string, predicate: (ctx: SyncContext) => boolean, options?: WaitOptions): Promise<SyncContext> {
  return waitForState(`the sync context of ${userId} to match the predicate`, () => client.syncContext(userId), predicate, client.changes, options, describeSyncContext);
}

export function describeSyncContext(c: SyncContext): string {
  const synced = Object.keys(c.syncContext?.datapointsSynced ?? {});
  return `{isSyncOn: ${c.isSyncOn}, isSessionEstablished: ${c.isSessionEstablished}, isLinked: ${c.isLinked}, datapointsSynced: [${synced.join(', ')}]}`;
}

/** Resolves with the user once `predicate` accepts it. */
export function waitForUser(client: ServiceClient, userId: string, predicate: (user: User) => boolean, options?: WaitOptions): Promise<User> {
  return waitForState(`user ${userId} to match the predicate`, () => client.getUser(userId), predicate, client.changes, options, (u) =>
    JSON.stringify({ userDID: u.shortUserDID ?? null, userLogins: u.userLogins, settings: u.settings }),
  );
}

/**
 * Resolves with the workflow once its status is `status` (or one of them). Reaching another
 * final status first (COMPLETED, FAILED, EXPIRED) fails at once instead of waiting out the guard,
 * and so does a workflow the service does not know: its id came from createWorkflow, so a 404
 * means an id from another service or run, which no wait would ever see appear.
 */
export function waitForWorkflowStatus(client: ServiceClient, workflowId: string, status: WorkflowStatus | WorkflowStatus[], options?: WaitOptions): Promise<IssuanceWorkflow> {
  const wanted: string[] = Array.isArray(status) ? status : [status];
  const unknown = wanted.filter((s) => !(WORKFLOW_STATUSES as readonly string[]).includes(s));
  if (unknown.length) return Promise.reject(new IdsyncError('invalid_argument', `no workflow status ${unknown.join(', ')}: one of ${WORKFLOW_STATUSES.join(', ')}`));
  const final = ['COMPLETED', 'FAILED', 'EXPIRED'];
  return waitForState(
    `workflow ${workflowId} to be ${wanted.join(' or ')}`,
    async () => {
      const wf = await client.getWorkflow(workflowId).catch((err: unknown) => {
        throw isIdsyncError(err) && err.code === 'workflow_not_found' ? stopWaiting(err) : err;
      });
      if (!wanted.includes(wf.status) && final.includes(wf.status)) {
        throw stopWaiting(new IdsyncError('workflow_ended', `workflow ${workflowId} ended ${wf.status}${wf.failure ? ` (${wf.failure.code})` : ''} instead of ${wanted.join(' or ')}`, { details: { status: wf.status, failure: wf.failure } }));
      }
      return wf;
    },
    (wf) => wanted.includes(wf.status),
    client.changes,
    options,
    (wf) => `${wf.status}${wf.failure ? ` (${wf.failure.code}: ${wf.failure.message})` : ''}`,
  );
}
