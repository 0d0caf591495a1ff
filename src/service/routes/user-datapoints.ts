// A user's datapoints (service-interface.md "GET/PUT .../datapoints"; vendor-facts: PATCH and
// the older `/claims` path). Updates merge (a null value removes a key) and, unless autoSync is
// turned off, start a sync over the established session or owe one until it is established.
import type { FastifyRequest } from 'fastify';
import type { App } from '../http/app-types.js';
import type { ServiceDeps } from '../deps.js';
import { authOf, requireScope } from '../auth/route-auth.js';
import { problem } from '../http/problem.js';
import { responses, UserIdParams } from '../http/schemas.js';
import { AutoSyncQuery, DatapointsUpdateBody, DatapointsWithDid, FlatDatapoints } from './schemas/users.js';
import { datapointsView } from '../users/views.js';
import { fieldErrors } from '../http/problem-handlers.js';
import { normalizePatch } from '../../credentials/datapoints.js';

type UpdateBody = Record<string, unknown> & { datapoints?: Record<string, unknown>; autoSync?: boolean; noAutoSync?: boolean };

/** autoSync is on unless any variant turns it off: ?autoSync=false, ?noAutoSync (bare or =true), body autoSync:false or noAutoSync:true. */
export function autoSyncOf(query: { autoSync?: boolean; noAutoSync?: string }, body: UpdateBody): boolean {
  const noAutoSyncQuery = query.noAutoSync !== undefined && query.noAutoSync !== 'false' && query.noAutoSync !== '0';
  return !(query.autoSync === false || noAutoSyncQuery || body.autoSync === false || body.noAutoSync === true);
}

/** The datapoints of the body: `{datapoints:{…}}` or the bare flat object (not both). */
export function datapointsOf(body: UpdateBody): Record<string, unknown> {
  const { datapoints, autoSync: _a, noAutoSync: _n, ...bare } = body;
  if (datapoints !== undefined && Object.keys(bare).length > 0) {
    throw problem('invalid_request', 'send datapoints either inside `datapoints` or as top-level keys, not both');
  }
  return datapoints ?? bare;
}

export async function userDatapointRoutes(app: App, deps: ServiceDeps): Promise<void> {
  for (const resource of ['datapoints', 'claims'] as const) {
    const legacy = resource === 'claims';
    const tags = ['Users'];
    app.get(
      `/api/v1/provider/users/:userId/${resource}`,
      {
        preHandler: requireScope('read:provider-users'),
        schema: {
          tags,
          summary: legacy ? 'Get the user\'s datapoints (older path)' : 'Get the user\'s datapoints',
          deprecated: legacy || undefined,
          params: UserIdParams,
          response: responses({ 200: DatapointsWithDid }, [404]),
        },
      },
      async (request) => datapointsView(await deps.users.require({ tenantId: authOf(request).tenantId, userId: request.params.userId })),
    );

    for (const method of ['PUT', 'PATCH'] as const) {
      app.route({
        method,
        url: `/api/v1/provider/users/:userId/${resource}`,
        preHandler: requireScope('upsert:provider-user-claims'),
        // Body validation errors become invalid_datapoints (below) rather than invalid_request.
        attachValidation: true,
        schema: {
          tags,
          summary: `${method === 'PUT' ? 'Update' : 'Patch'} the user's datapoints${legacy ? ' (older path)' : ''}`,
          description:
            'Merges the datapoints (null removes a key). A sync starts unless autoSync is turned off ' +
            '(query autoSync=false, query noAutoSync, body autoSync:false or noAutoSync:true). ' +
            'Without an established session the sync is owed and starts once the session is established. ' +
            'Responds with the flat datapoints after the update; header Idsync-Sync-Operation names a started sync.',
          deprecated: legacy || undefined,
          params: UserIdParams,
          querystring: AutoSyncQuery,
          body: DatapointsUpdateBody,
          response: responses({ 200: FlatDatapoints }, [404, 413, 415]),
        },
        handler: async (request: FastifyRequest, reply) => {
          const params = request.params as { userId: string };
          if (request.validationError) {
            const v = request.validationError as Error & { validation?: unknown[]; validationContext?: string };
            if (v.validationContext !== 'body') throw v;
            const errors = fieldErrors((v.validation ?? []) as never, 'body');
            throw problem('invalid_datapoints', `${errors[0]?.field ?? 'body'} ${errors[0]?.message ?? 'is invalid'}`, { errors });
          }
          const body = request.body as UpdateBody;
          const { datapoints, errors } = normalizePatch(datapointsOf(body));
          if (errors.length) {
            // The datapoint module's messages already name their field.
            throw problem('invalid_datapoints', errors[0].message, {
              errors: errors.map((e) => ({ field: e.field, code: e.code, message: e.message })),
            });
          }
          const autoSync = autoSyncOf(request.query as { autoSync?: boolean; noAutoSync?: string }, body);
          const { user, syncOperationId } = await deps.users.updateDatapoints(
            { tenantId: authOf(request).tenantId, userId: params.userId },
            datapoints,
            { autoSync },
          );
          if (syncOperationId) reply.header('Idsync-Sync-Operation', syncOperationId);
          return { ...user.datapoints };
        },
      });
    }
  }
}
