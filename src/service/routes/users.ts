// Provider users: list, get, create-or-update (service-interface.md "Users").
import type { App } from '../http/app-types.js';
import type { ServiceDeps } from '../deps.js';
import { authOf, requireScope } from '../auth/route-auth.js';
import { problem } from '../http/problem.js';
import { responses, UserIdParams } from '../http/schemas.js';
import { User, UserList, UserListQuery, UserUpsertBody, UserWithEcho } from './schemas/users.js';
import { userView, userViewWithEcho } from '../users/views.js';
import { b64uDecodeText, b64uEncode } from '../../encoding.js';

// The cursor is opaque to clients: base64url of the last userId of the page.
export const encodeCursor = (userId: string): string => b64uEncode(userId);

function decodeCursor(cursor: string): string {
  try {
    const id = b64uDecodeText(cursor);
    // Only cursors this service made: they round-trip exactly.
    if (id.length > 0 && !id.includes('/') && encodeCursor(id) === cursor) return id;
  } catch {
    // fall through
  }
  throw problem('invalid_request', 'cursor is not one this service issued', { errors: [{ field: 'querystring/cursor', code: 'invalid', message: 'is not a valid cursor' }] });
}

export async function userRoutes(app: App, deps: ServiceDeps): Promise<void> {
  app.get(
    '/api/v1/provider/users',
    {
      preHandler: requireScope('read:provider-users'),
      schema: {
        tags: ['Users'],
        summary: 'List the users of the account',
        description: 'Ordered by userId. Page with `limit` and either `offset` or `cursor` (from paging.nextCursor).',
        querystring: UserListQuery,
        response: responses({ 200: UserList }),
      },
    },
    async (request) => {
      const { tenantId } = authOf(request);
      const { limit = 50, offset, cursor } = request.query;
      if (offset !== undefined && cursor !== undefined) throw problem('invalid_request', 'use either offset or cursor');
      const after = cursor === undefined ? undefined : decodeCursor(cursor);
      const page = await deps.users.list(tenantId, { limit, offset, after });
      const last = page.users[page.users.length - 1];
      const paging: { limit: number; offset?: number; nextCursor?: string } = { limit };
      if (after === undefined) paging.offset = offset ?? 0;
      if (page.hasMore && last) paging.nextCursor = encodeCursor(last.userId);
      return { counts: { total: page.total }, users: page.users.map(userView), paging };
    },
  );

  app.get(
    '/api/v1/provider/users/:userId',
    {
      preHandler: requireScope('read:provider-users'),
      schema: { tags: ['Users'], summary: 'Get one user', params: UserIdParams, response: responses({ 200: User }, [404]) },
    },
    async (request) => userView(await deps.users.require({ tenantId: authOf(request).tenantId, userId: request.params.userId })),
  );

  app.put(
    '/api/v1/provider/users/:userId',
    {
      preHandler: requireScope('upsert:provider-users'),
      schema: {
        tags: ['Users'],
        summary: 'Create the user or update an existing one',
        description: 'Idempotent. 201 when created, 200 when updated. datapointsFlat repeats the user fields.',
        params: UserIdParams,
        body: UserUpsertBody,
        response: responses({ 200: UserWithEcho, 201: UserWithEcho }, [413, 415]),
      },
    },
    async (request, reply) => {
      const ref = { tenantId: authOf(request).tenantId, userId: request.params.userId };
      const { user, created } = await deps.users.upsert(ref, { settings: request.body.settings });
      reply.code(created ? 201 : 200);
      return userViewWithEcho(user);
    },
  );
}
