// Listing a tenant's issuance workflows: oldest first (the creation-time index), filtered,
// paged by offset or by an opaque cursor (base64url of the last index key).
import { IdsyncError } from '../../errors.js';
import { isTerminal, type WorkflowStatus } from './states.js';
import { getWorkflow, WORKFLOW_INDEX, WORKFLOWS, type IssuanceWorkflow, type WorkflowStateDeps } from './workflows.js';

export interface WorkflowFilters {
  projectId?: string;
  status?: WorkflowStatus;
  userId?: string;
  userDID?: string;
}

export interface Paging {
  limit: number;
  offset?: number;
  /** Opaque cursor from a previous page's `nextCursor`. */
  cursor?: string;
}

/** A tenant's workflows, oldest first, filtered; `nextCursor` when more remain. */
export async function listWorkflows(
  deps: WorkflowStateDeps,
  tenantId: string,
  filters: WorkflowFilters = {},
  paging: Paging = { limit: 50 },
): Promise<{ total: number; workflows: IssuanceWorkflow[]; nextCursor?: string }> {
  const prefix = `${tenantId}/`;
  const index = await deps.store.collection<string>(WORKFLOW_INDEX).list({ prefix });
  const col = deps.store.collection<IssuanceWorkflow>(WORKFLOWS);
  const matched: { key: string; wf: IssuanceWorkflow }[] = [];
  const after = paging.cursor !== undefined ? Buffer.from(paging.cursor, 'base64url').toString('utf8') : undefined;
  if (after !== undefined && !after.startsWith(prefix)) {
    throw new IdsyncError('invalid_request', 'cursor is not one this service issued', {
      details: { errors: [{ field: 'querystring/cursor', code: 'invalid', message: 'is not a valid cursor' }] },
    });
  }
  for (const { key, value } of index) {
    let wf = await col.get(value);
    if (!wf) continue;
    if (!isTerminal(wf.status) && Date.parse(wf.expiresAt) <= deps.clock.now()) wf = await getWorkflow(deps, wf.id);
    if (filters.projectId !== undefined && wf.projectId !== filters.projectId) continue;
    if (filters.status !== undefined && wf.status !== filters.status) continue;
    if (filters.userId !== undefined && wf.userId !== filters.userId) continue;
    if (filters.userDID !== undefined && wf.userDID !== filters.userDID) continue;
    matched.push({ key, wf });
  }
  const start = after !== undefined ? matched.findIndex((m) => m.key > after) : (paging.offset ?? 0);
  const from = start < 0 ? matched.length : start;
  const page = matched.slice(from, from + paging.limit);
  const more = from + paging.limit < matched.length;
  const out: { total: number; workflows: IssuanceWorkflow[]; nextCursor?: string } = { total: matched.length, workflows: page.map((m) => m.wf) };
  if (more && page.length) out.nextCursor = Buffer.from(page[page.length - 1].key, 'utf8').toString('base64url');
  return out;
}
