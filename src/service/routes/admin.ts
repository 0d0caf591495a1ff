// The admin API (/admin, scope idsync:admin): what the spec leaves to a management console —
// projects, data profiles, issuance settings — plus webhook subscriptions and ecosystem
// partners. Everything is scoped to the token's tenant. Schemas of projects and profiles are
// the fixtures' (config/schemas.ts); writes go through the same seed functions.
import { Type } from '@fastify/type-provider-typebox';
import { literalUnion } from '../http/literal-union.js';
import type { App } from '../http/app-types.js';
import { authOf, requireScope } from '../auth/route-auth.js';
import { DEFAULT_ISSUANCE, type ProjectRecord } from '../config/config.js';
import type { ServiceDeps } from '../deps.js';
import { problem } from '../http/problem.js';
import { ID_PATTERN, responses } from '../http/schemas.js';
import { DataProfileInput, IssuanceSettingsSchema, ProjectInput } from '../config/schemas.js';
import { ADMIN_SCOPE } from '../auth/scopes.js';
import { putDataProfile, putProject } from '../seed.js';
import { issuanceServicesOf } from '../issuance/wiring.js';
import { adminWebhookRoutes } from './admin-webhooks.js';
import { adminRetryRoutes } from './admin-retries.js';
import { PARTNER_ROLES, PARTNER_STATUSES, type Partner, type PartnerRepo } from '../issuance/partners.js';

const admin = requireScope(ADMIN_SCOPE);
const Id = () => Type.String({ pattern: ID_PATTERN });

export const ProjectSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    dataProfileId: Type.String(),
    issuance: Type.Object({
      format: Type.Union([Type.Literal('ldp'), Type.Literal('jwt')]),
      validityMs: Type.Union([Type.Integer(), Type.Null()]),
      statusList: Type.Boolean(),
    }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Project' },
);
// Profiles carry their DIF Credential Manifest; shown as stored.
const DataProfileSchema = Type.Object({ id: Type.String(), name: Type.String(), version: Type.String() }, { additionalProperties: true, title: 'DataProfile' });

const projectView = ({ tenantId: _t, ...p }: ProjectRecord) => p;

export async function adminRoutes(app: App, deps: ServiceDeps): Promise<void> {
  const tags = ['Admin'];

  // Projects -----------------------------------------------------------------------------
  app.get('/admin/projects', { preHandler: admin, schema: { tags, summary: 'List projects', response: responses({ 200: Type.Object({ projects: Type.Array(ProjectSchema) }) }) } }, async (request) => ({
    projects: (await deps.config.listProjects(authOf(request).tenantId)).map(projectView),
  }));

  app.post(
    '/admin/projects',
    { preHandler: admin, schema: { tags, summary: 'Create a project', description: 'dataProfileId defaults to idsync-kyc-default. 409 already_exists.', body: ProjectInput, response: responses({ 201: ProjectSchema }, [409]) } },
    async (request, reply) => {
      const { tenantId } = authOf(request);
      return deps.config.exclusive(tenantId, async () => {
        if (await deps.config.getProject(tenantId, request.body.id)) throw problem('already_exists', `project ${request.body.id} exists`);
        const created = projectView(await putProject(deps, tenantId, request.body));
        reply.code(201);
        return created;
      });
    },
  );

  const ProjectParams = Type.Object({ projectId: Id() });
  app.get('/admin/projects/:projectId', { preHandler: admin, schema: { tags, summary: 'Get a project', params: ProjectParams, response: responses({ 200: ProjectSchema }, [404]) } }, async (request) =>
    projectView(await deps.config.requireProject(authOf(request).tenantId, request.params.projectId)),
  );

  app.put(
    '/admin/projects/:projectId',
    {
      preHandler: admin,
      schema: { tags, summary: 'Create or update a project', description: 'Omitted members keep their value (a new project: dataProfileId idsync-kyc-default).', params: ProjectParams, body: Type.Omit(ProjectInput, ['id']), response: responses({ 200: ProjectSchema, 201: ProjectSchema }) },
    },
    async (request, reply) => {
      const { tenantId } = authOf(request);
      return deps.config.exclusive(tenantId, async () => {
        const existed = await deps.config.getProject(tenantId, request.params.projectId);
        const put = projectView(await putProject(deps, tenantId, { ...request.body, id: request.params.projectId }));
        reply.code(existed ? 200 : 201);
        return put;
      });
    },
  );

  app.delete('/admin/projects/:projectId', { preHandler: admin, schema: { tags, summary: 'Delete a project', params: ProjectParams, response: responses({ 204: { description: 'Deleted' } }, [404]) } }, async (request, reply) => {
    const { tenantId } = authOf(request);
    await deps.config.exclusive(tenantId, async () => {
      await deps.config.requireProject(tenantId, request.params.projectId);
      await deps.config.deleteProject(tenantId, request.params.projectId);
    });
    return reply.code(204).send();
  });

  // Issuance settings ----------------------------------------------------------------------
  const Settings = ProjectSchema.properties.issuance;
  app.get('/admin/projects/:projectId/issuance-settings', { preHandler: admin, schema: { tags, summary: 'Get a project\'s issuance settings', params: ProjectParams, response: responses({ 200: Settings }, [404]) } }, async (request) => {
    const p = await deps.config.requireProject(authOf(request).tenantId, request.params.projectId);
    return { ...DEFAULT_ISSUANCE, ...p.issuance };
  });

  app.put(
    '/admin/projects/:projectId/issuance-settings',
    {
      preHandler: admin,
      schema: { tags, summary: 'Update issuance settings', description: 'format ldp | jwt, validityMs, statusList; omitted members keep their value.', params: ProjectParams, body: IssuanceSettingsSchema, response: responses({ 200: Settings }, [404]) },
    },
    async (request) => {
      const { tenantId } = authOf(request);
      // Under the tenant's lock: a project deleted meanwhile stays deleted (404 here).
      return deps.config.exclusive(tenantId, async () => {
        const p = await deps.config.requireProject(tenantId, request.params.projectId);
        const next = await putProject(deps, tenantId, { id: p.id, name: p.name, dataProfileId: p.dataProfileId, issuance: { ...p.issuance, ...request.body } });
        return next.issuance;
      });
    },
  );

  // Data profiles --------------------------------------------------------------------------
  const ProfileParams = Type.Object({ profileId: Id() });
  app.get('/admin/data-profiles', { preHandler: admin, schema: { tags, summary: 'List data profiles', response: responses({ 200: Type.Object({ dataProfiles: Type.Array(DataProfileSchema) }) }) } }, async (request) => ({
    dataProfiles: await deps.config.listDataProfiles(authOf(request).tenantId),
  }));

  app.post(
    '/admin/data-profiles',
    { preHandler: admin, schema: { tags, summary: 'Create a data profile', description: 'Builds its DIF Credential Manifest. 409 already_exists.', body: DataProfileInput, response: responses({ 201: DataProfileSchema }, [409]) } },
    async (request, reply) => {
      const { tenantId } = authOf(request);
      return deps.config.exclusive(tenantId, async () => {
        if (await deps.config.getDataProfile(tenantId, request.body.id)) throw problem('already_exists', `data profile ${request.body.id} exists`);
        await putDataProfile(deps, tenantId, request.body);
        reply.code(201);
        return deps.config.getDataProfile(tenantId, request.body.id);
      });
    },
  );

  app.get('/admin/data-profiles/:profileId', { preHandler: admin, schema: { tags, summary: 'Get a data profile', params: ProfileParams, response: responses({ 200: DataProfileSchema }, [404]) } }, async (request) => {
    const p = await deps.config.getDataProfile(authOf(request).tenantId, request.params.profileId);
    if (!p) throw problem('data_profile_not_found', `no data profile ${request.params.profileId}`);
    return p;
  });

  app.put(
    '/admin/data-profiles/:profileId',
    { preHandler: admin, schema: { tags, summary: 'Create or replace a data profile', params: ProfileParams, body: Type.Omit(DataProfileInput, ['id']), response: responses({ 200: DataProfileSchema, 201: DataProfileSchema }) } },
    async (request, reply) => {
      const { tenantId } = authOf(request);
      return deps.config.exclusive(tenantId, async () => {
        const existed = await deps.config.getDataProfile(tenantId, request.params.profileId);
        await putDataProfile(deps, tenantId, { ...request.body, id: request.params.profileId });
        reply.code(existed ? 200 : 201);
        return deps.config.getDataProfile(tenantId, request.params.profileId);
      });
    },
  );

  app.delete(
    '/admin/data-profiles/:profileId',
    { preHandler: admin, schema: { tags, summary: 'Delete a data profile', description: '409 conflict while a project uses it.', params: ProfileParams, response: responses({ 204: { description: 'Deleted' } }, [404, 409]) } },
    async (request, reply) => {
      const { tenantId } = authOf(request);
      const id = request.params.profileId;
      // Under the tenant's lock: no project takes the profile between the check and the delete.
      await deps.config.exclusive(tenantId, async () => {
        if (!(await deps.config.getDataProfile(tenantId, id))) throw problem('data_profile_not_found', `no data profile ${id}`);
        const users = (await deps.config.listProjects(tenantId)).filter((p) => p.dataProfileId === id).map((p) => p.id);
        if (users.length) throw problem('conflict', `data profile ${id} is used by project(s) ${users.join(', ')}`, { projects: users });
        await deps.config.deleteDataProfile(tenantId, id);
      });
      return reply.code(204).send();
    },
  );

  const services = issuanceServicesOf(deps);
  await adminWebhookRoutes(app, services.webhooks);
  adminRetryRoutes(app, deps);
  partnerRoutes(app, services.partners);
}

// Ecosystem partners ------------------------------------------------------------------------
const Role = literalUnion(PARTNER_ROLES);
const Status = literalUnion(PARTNER_STATUSES);
export const PartnerSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    did: Type.String(),
    status: Status,
    roles: Type.Array(Role),
    builtIn: Type.Optional(Type.Union([Type.Literal('service'), Type.Literal('provider')], { description: 'The two default partners (cannot be deleted)' })),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Partner' },
);
const PartnerInput = Type.Object(
  { id: Type.Optional(Id()), name: Type.String({ minLength: 1, maxLength: 200 }), did: Type.String({ maxLength: 8192 }), status: Type.Optional(Status), roles: Type.Array(Role, { minItems: 1 }) },
  { additionalProperties: false },
);
const PartnerPatch = Type.Partial(Type.Omit(PartnerInput, ['id']), { additionalProperties: false });
const PartnerParams = Type.Object({ partnerId: Id() });
const partnerView = ({ tenantId: _t, didFollowsService: _f, ...p }: Partner) => p;

function partnerRoutes(app: App, partners: PartnerRepo): void {
  const tags = ['Admin'];
  app.get(
    '/admin/partners',
    {
      preHandler: admin,
      schema: {
        tags,
        summary: 'List ecosystem partners',
        description: 'The service itself and the provider organisation are partners by default.',
        querystring: Type.Object({ status: Type.Optional(Status), role: Type.Optional(Role) }),
        response: responses({ 200: Type.Object({ partners: Type.Array(PartnerSchema) }) }),
      },
    },
    async (request) => ({ partners: (await partners.list(authOf(request).tenantId, request.query)).map(partnerView) }),
  );
  app.post('/admin/partners', { preHandler: admin, schema: { tags, summary: 'Add an ecosystem partner', body: PartnerInput, response: responses({ 201: PartnerSchema }, [409]) } }, async (request, reply) => {
    const p = await partners.create(authOf(request).tenantId, request.body);
    reply.code(201);
    return partnerView(p);
  });
  app.get('/admin/partners/:partnerId', { preHandler: admin, schema: { tags, summary: 'Get a partner', params: PartnerParams, response: responses({ 200: PartnerSchema }, [404]) } }, async (request) =>
    partnerView(await partners.get(authOf(request).tenantId, request.params.partnerId)),
  );
  app.patch('/admin/partners/:partnerId', { preHandler: admin, schema: { tags, summary: 'Update a partner', params: PartnerParams, body: PartnerPatch, response: responses({ 200: PartnerSchema }, [404]) } }, async (request) =>
    partnerView(await partners.update(authOf(request).tenantId, request.params.partnerId, request.body)),
  );
  app.delete(
    '/admin/partners/:partnerId',
    { preHandler: admin, schema: { tags, summary: 'Remove a partner', description: '409 conflict for the two default partners (set them Inactive instead).', params: PartnerParams, response: responses({ 204: { description: 'Deleted' } }, [404, 409]) } },
    async (request, reply) => {
      await partners.remove(authOf(request).tenantId, request.params.partnerId);
      return reply.code(204).send();
    },
  );
}
