// GET /api/v1/provider/projects/:projectId/users-by-did/:userDID (vendor-facts): a user by the
// DID of their wallet, long or short form.
import { Type } from '@fastify/type-provider-typebox';
import type { App } from '../http/app-types.js';
import type { ServiceDeps } from '../deps.js';
import { authOf, requireScope } from '../auth/route-auth.js';
import { problem } from '../http/problem.js';
import { ID_PATTERN, responses } from '../http/schemas.js';
import { User } from './schemas/users.js';
import { userView } from '../users/views.js';

const Params = Type.Object({
  projectId: Type.String({ pattern: ID_PATTERN }),
  userDID: Type.String({ pattern: '^did:[a-z0-9]+:', maxLength: 8192, description: 'Long- or short-form DID' }),
});

export async function usersByDidRoutes(app: App, deps: ServiceDeps): Promise<void> {
  app.get(
    '/api/v1/provider/projects/:projectId/users-by-did/:userDID',
    {
      preHandler: requireScope('read:provider-users'),
      schema: { tags: ['Users'], summary: 'Find a user by wallet DID', params: Params, response: responses({ 200: User }, [404]) },
    },
    async (request) => {
      const { tenantId } = authOf(request);
      await deps.config.requireProject(tenantId, request.params.projectId);
      const user = await deps.users.findByDid(tenantId, request.params.userDID);
      if (!user) throw problem('user_not_found', 'no user has a wallet with this DID');
      return userView(user);
    },
  );
}
