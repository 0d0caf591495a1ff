// Filling the configuration at start: a fixtures file, the IDSYNC_* environment client, or a
// demo tenant on first start. All of it is idempotent: the same input on every start gives
// the same records (secrets are re-hashed only when they changed).
import { isoNow } from '../clock.js';
import { TypeBoxValidatorCompiler, type TSchema } from '@fastify/type-provider-typebox';
import { createDataProfile, defaultKycProfile } from '../credentials/manifest.js';
import { randomId } from '../encoding.js';
import { IdsyncError, type ErrorCode } from '../errors.js';
import type { ServiceBase } from './context.js';
import { DEFAULT_ISSUANCE, type ProjectRecord, type TenantRecord } from './config/config.js';
import { hashClientSecret, verifyClientSecret } from './auth/client-secret.js';
import { ALL_SCOPES, isKnownScope } from './auth/scopes.js';
import { ServiceFixtures, type DataProfileInputT, type ProjectInputT, type ServiceFixturesT } from './config/schemas.js';

type SeedDeps = Pick<ServiceBase, 'config' | 'clock' | 'serviceDid'>;

export const DEFAULT_PROFILE_ID = 'idsync-kyc-default';

/** Validates a value against a TypeBox schema, throwing IdsyncError(code) with field errors. */
export function checkSchema<T>(schema: TSchema, value: unknown, code: ErrorCode, what: string): T {
  const check = TypeBoxValidatorCompiler({ schema, method: 'POST', url: '/', httpPart: 'body' } as never) as (v: unknown) => { value?: unknown; error?: SchemaError[] };
  const result = check(value);
  if (result.error) {
    const errors = result.error.map((e) => ({ field: e.instancePath ?? '', message: e.message ?? 'is invalid' }));
    const first = result.error[0];
    const message = first ? `${first.instancePath || '/'} ${allowedValues(schema, first) ?? first.message ?? 'is invalid'}` : 'invalid';
    throw new IdsyncError(code, `${what}: ${message}`, { details: { errors } });
  }
  return value as T;
}

interface SchemaError {
  keyword?: string;
  message?: string;
  instancePath?: string;
  schemaPath?: string;
}

/**
 * A value outside a list of literals fails once per literal, each "must be equal to constant"
 * (and the validator stops listing after a few): the list is read from the schema instead, at
 * the union the first failed literal belongs to.
 */
function allowedValues(schema: TSchema, first: SchemaError): string | undefined {
  if (first.keyword !== 'const' || !first.schemaPath?.startsWith('#/')) return undefined;
  const path = first.schemaPath.slice(2).split('/').slice(0, -1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: unknown = schema;
  for (const p of path) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[p] : undefined;
  if (!Array.isArray(node) || !node.every((n) => n && typeof n === 'object' && 'const' in n)) return undefined;
  return `must be one of ${node.map((n: { const: unknown }) => JSON.stringify(n.const)).join(', ')}`;
}

export function parseFixtures(value: unknown): ServiceFixturesT {
  const fixtures = checkSchema<ServiceFixturesT>(ServiceFixtures, value, 'invalid_config', 'invalid fixtures');
  // Checked before anything is written: a second entry with the same id would silently replace
  // the first, and a client listed under two tenants would fail half-way through the file.
  const once = (what: string, ids: string[]) => {
    const seen = new Set<string>();
    for (const id of ids) {
      if (seen.has(id)) throw new IdsyncError('invalid_config', `invalid fixtures: ${what} ${id} is listed twice`, { details: { duplicate: id } });
      seen.add(id);
    }
  };
  once('tenant', fixtures.tenants.map((t) => t.id));
  once('client', fixtures.tenants.flatMap((t) => (t.clients ?? []).map((c) => c.clientId)));
  for (const t of fixtures.tenants) {
    once(`tenant ${t.id}: project`, (t.projects ?? []).map((p) => p.id));
    once(`tenant ${t.id}: data profile`, (t.dataProfiles ?? []).map((p) => p.id));
  }
  return fixtures;
}

export async function putDataProfile(deps: SeedDeps, tenantId: string, input: DataProfileInputT): Promise<void> {
  try {
    await deps.config.putDataProfile(tenantId, createDataProfile({ ...input, issuer: { id: deps.serviceDid } }));
  } catch (err) {
    if (err instanceof IdsyncError && err.code === 'invalid_profile') throw new IdsyncError('invalid_config', err.message, { cause: err });
    throw err;
  }
}

/** Creates or updates a project; its data profile must exist (default: the whole vocabulary). */
export async function putProject(deps: SeedDeps, tenantId: string, input: ProjectInputT): Promise<ProjectRecord> {
  const existing = await deps.config.getProject(tenantId, input.id);
  // An omitted member keeps its value, as name and issuance do; a new project gets the default.
  const dataProfileId = input.dataProfileId ?? existing?.dataProfileId ?? DEFAULT_PROFILE_ID;
  if (!(await deps.config.getDataProfile(tenantId, dataProfileId))) {
    throw new IdsyncError('invalid_config', `project ${input.id}: no data profile ${dataProfileId}`);
  }
  const now = isoNow(deps.clock);
  const project: ProjectRecord = {
    id: input.id,
    tenantId,
    name: input.name ?? existing?.name ?? input.id,
    dataProfileId,
    issuance: { ...DEFAULT_ISSUANCE, ...existing?.issuance, ...input.issuance },
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
  await deps.config.putProject(project);
  return project;
}

/** Creates the tenant if missing and makes sure it has the default KYC profile. */
export async function ensureTenant(deps: SeedDeps, id: string, name?: string): Promise<TenantRecord> {
  let tenant = await deps.config.getTenant(id);
  if (!tenant) {
    tenant = { id, name: name ?? id, createdAt: isoNow(deps.clock) };
    await deps.config.putTenant(tenant);
  } else if (name && tenant.name !== name) {
    tenant = { ...tenant, name };
    await deps.config.putTenant(tenant);
  }
  if (!(await deps.config.getDataProfile(id, DEFAULT_PROFILE_ID))) {
    await deps.config.putDataProfile(id, defaultKycProfile(deps.serviceDid));
  }
  return tenant;
}

export async function putClient(deps: SeedDeps, tenantId: string, input: { clientId: string; clientSecret: string; scopes?: string[] }): Promise<void> {
  const scopes = input.scopes ?? [...ALL_SCOPES];
  const unknown = scopes.filter((s) => !isKnownScope(s));
  if (unknown.length) throw new IdsyncError('invalid_config', `client ${input.clientId}: unknown scopes ${unknown.join(' ')}`);
  const existing = await deps.config.getClient(input.clientId);
  if (existing && existing.tenantId !== tenantId) {
    throw new IdsyncError('invalid_config', `client ${input.clientId} already belongs to another tenant`);
  }
  const same = existing && (await verifyClientSecret(input.clientSecret, existing.secretHash));
  await deps.config.putClient({
    clientId: input.clientId,
    tenantId,
    secretHash: same ? existing.secretHash : await hashClientSecret(input.clientSecret),
    scopes,
    createdAt: existing?.createdAt ?? isoNow(deps.clock),
  });
}

async function setDefaultProject(deps: SeedDeps, tenantId: string, projectId: string): Promise<void> {
  const tenant = await deps.config.getTenant(tenantId);
  if (tenant && tenant.defaultProjectId !== projectId) await deps.config.putTenant({ ...tenant, defaultProjectId: projectId });
}

export async function applyFixtures(deps: SeedDeps, fixtures: unknown): Promise<void> {
  const parsed = parseFixtures(fixtures);
  for (const t of parsed.tenants) {
    await ensureTenant(deps, t.id, t.name);
    for (const p of t.dataProfiles ?? []) await putDataProfile(deps, t.id, p);
    for (const p of t.projects ?? []) await putProject(deps, t.id, p);
    for (const c of t.clients ?? []) await putClient(deps, t.id, c);
    const def = t.defaultProjectId ?? t.projects?.[0]?.id;
    if (def) {
      if (!(await deps.config.getProject(t.id, def))) throw new IdsyncError('invalid_config', `tenant ${t.id}: no project ${def}`);
      await setDefaultProject(deps, t.id, def);
    }
  }
}

export interface EnvSeed {
  clientId?: string;
  clientSecret?: string;
  projectId?: string;
}

export const ENV_TENANT_ID = 'default';

/** The environment variables behind EnvSeed, in the order they are named. */
const ENV_VARIABLES: ReadonlyArray<[keyof EnvSeed, string]> = [
  ['clientId', 'IDSYNC_CLIENT_ID'],
  ['clientSecret', 'IDSYNC_CLIENT_SECRET'],
  ['projectId', 'IDSYNC_PROJECT_ID'],
];

/**
 * The three variables go together: some set and others not is a mistake (a typo, an unexported
 * variable), never a request for the demo tenant, so it is refused naming what is missing.
 * Returns whether all three are set. An empty value counts as unset.
 */
export function checkEnvSeed(env: EnvSeed): boolean {
  const missing = ENV_VARIABLES.filter(([key]) => !env[key]).map(([, name]) => name);
  if (missing.length === 0) return true;
  if (missing.length === ENV_VARIABLES.length) return false;
  const set = ENV_VARIABLES.filter(([key]) => env[key]).map(([, name]) => name);
  throw new IdsyncError(
    'invalid_config',
    `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set, but ${set.join(' and ')} ${set.length > 1 ? 'are' : 'is'}: set all three to seed that client, or none for a demo tenant`,
    { details: { missing } },
  );
}

/**
 * IDSYNC_CLIENT_ID/SECRET/PROJECT_ID: a tenant with that client (every scope, issuance and
 * admin included) and that project with the default KYC profile (the whole vocabulary).
 */
export async function seedFromEnv(deps: SeedDeps, env: EnvSeed): Promise<boolean> {
  if (!checkEnvSeed(env) || !env.clientId || !env.clientSecret || !env.projectId) return false;
  const existing = await deps.config.getClient(env.clientId);
  const tenantId = existing?.tenantId ?? ENV_TENANT_ID;
  await ensureTenant(deps, tenantId, 'Environment tenant');
  const project = (await deps.config.getProject(tenantId, env.projectId)) ?? (await putProject(deps, tenantId, { id: env.projectId }));
  await putClient(deps, tenantId, { clientId: env.clientId, clientSecret: env.clientSecret });
  await setDefaultProject(deps, tenantId, project.id);
  return true;
}

export interface DemoCredentials {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  projectId: string;
}

/** On a store with no tenant at all: a demo tenant whose credentials are returned once (to print). */
export async function seedDemoTenant(deps: SeedDeps): Promise<DemoCredentials | undefined> {
  if ((await deps.config.listTenants()).length > 0) return undefined;
  const creds: DemoCredentials = { tenantId: 'demo', clientId: `demo-${randomId(6)}`, clientSecret: randomId(24), projectId: 'demo-project' };
  await putDemoTenant(deps, creds);
  return creds;
}

/**
 * The demo tenant with its project (made once, kept after) as its default, and `creds`' client
 * with that secret (a client already there gets the new secret: demo-tenant.ts renews it so).
 */
export async function putDemoTenant(deps: SeedDeps, creds: DemoCredentials): Promise<void> {
  await ensureTenant(deps, creds.tenantId, 'Demo tenant');
  if (!(await deps.config.getProject(creds.tenantId, creds.projectId))) await putProject(deps, creds.tenantId, { id: creds.projectId, name: 'Demo project' });
  await setDefaultProject(deps, creds.tenantId, creds.projectId);
  await putClient(deps, creds.tenantId, { clientId: creds.clientId, clientSecret: creds.clientSecret });
}
