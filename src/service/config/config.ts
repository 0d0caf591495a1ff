// Configuration records the spec leaves to a management console (service-interface.md
// "What the service does" 4): tenants and their API clients, projects, data profiles and
// issuance settings. Store-backed; filled from a fixtures file, the env seed or the admin API.
import type { Store } from '../../store/store.js';
import type { DataProfile } from '../../credentials/manifest.js';
import { problem } from '../http/problem.js';

export type { DataProfile };

export interface TenantRecord {
  id: string;
  name: string;
  /** The project whose data profile fixes the sync scope (sync-context `datapoints`). */
  defaultProjectId?: string;
  createdAt: string;
}

export interface ClientRecord {
  clientId: string;
  tenantId: string;
  /** `scrypt$N$r$p$<salt b64u>$<hash b64u>` (client-secret.ts); the secret itself is never stored. */
  secretHash: string;
  scopes: string[];
  createdAt: string;
}

/** Issuance settings of a project: credential format, validity and status list. */
export interface IssuanceSettings {
  format: 'ldp' | 'jwt';
  /** Validity of issued credentials in milliseconds; null: no expirationDate. */
  validityMs: number | null;
  /** Give issued credentials a credentialStatus entry (revocation and suspension lists). */
  statusList: boolean;
}

export const DEFAULT_ISSUANCE: IssuanceSettings = { format: 'ldp', validityMs: 365 * 24 * 3600 * 1000, statusList: true };

export interface ProjectRecord {
  id: string;
  tenantId: string;
  name: string;
  dataProfileId: string;
  issuance: IssuanceSettings;
  createdAt: string;
  updatedAt: string;
}

export interface ServiceConfig {
  getTenant(id: string): Promise<TenantRecord | undefined>;
  putTenant(tenant: TenantRecord): Promise<void>;
  listTenants(): Promise<TenantRecord[]>;
  getClient(clientId: string): Promise<ClientRecord | undefined>;
  putClient(client: ClientRecord): Promise<void>;
  getProject(tenantId: string, projectId: string): Promise<ProjectRecord | undefined>;
  /** Like getProject but throws 404 project_not_found. */
  requireProject(tenantId: string, projectId: string): Promise<ProjectRecord>;
  listProjects(tenantId: string): Promise<ProjectRecord[]>;
  putProject(project: ProjectRecord): Promise<void>;
  deleteProject(tenantId: string, projectId: string): Promise<void>;
  getDataProfile(tenantId: string, profileId: string): Promise<DataProfile | undefined>;
  listDataProfiles(tenantId: string): Promise<DataProfile[]>;
  putDataProfile(tenantId: string, profile: DataProfile): Promise<void>;
  deleteDataProfile(tenantId: string, profileId: string): Promise<void>;
  /** The project's data profile; throws 404 project_not_found or data_profile_not_found. */
  profileOfProject(tenantId: string, projectId: string): Promise<DataProfile>;
  /** The tenant's default project (its data profile fixes the sync scope), if any. */
  defaultProject(tenantId: string): Promise<ProjectRecord | undefined>;
}

// Keys are `<tenantId>/<id>` so a tenant's records list by prefix; ids never contain '/'.
const key = (tenantId: string, id: string): string => `${tenantId}/${id}`;

export function createServiceConfig(store: Store): ServiceConfig {
  const tenants = store.collection<TenantRecord>('svc-tenants');
  const clients = store.collection<ClientRecord>('svc-clients');
  const projects = store.collection<ProjectRecord>('svc-projects');
  const profiles = store.collection<DataProfile>('svc-data-profiles');

  const config: ServiceConfig = {
    getTenant: (id) => tenants.get(id),
    putTenant: (t) => tenants.put(t.id, t),
    listTenants: async () => (await tenants.list()).map((e) => e.value),
    getClient: (clientId) => clients.get(clientId),
    putClient: (c) => clients.put(c.clientId, c),
    getProject: (tenantId, projectId) => projects.get(key(tenantId, projectId)),
    async requireProject(tenantId, projectId) {
      const p = await projects.get(key(tenantId, projectId));
      if (!p) throw problem('project_not_found', `no project ${projectId}`);
      return p;
    },
    listProjects: async (tenantId) => (await projects.list({ prefix: `${tenantId}/` })).map((e) => e.value),
    putProject: (p) => projects.put(key(p.tenantId, p.id), p),
    deleteProject: (tenantId, projectId) => projects.del(key(tenantId, projectId)),
    getDataProfile: (tenantId, id) => profiles.get(key(tenantId, id)),
    listDataProfiles: async (tenantId) => (await profiles.list({ prefix: `${tenantId}/` })).map((e) => e.value),
    putDataProfile: (tenantId, p) => profiles.put(key(tenantId, p.id), p),
    deleteDataProfile: (tenantId, id) => profiles.del(key(tenantId, id)),
    async profileOfProject(tenantId, projectId) {
      const project = await config.requireProject(tenantId, projectId);
      const profile = await profiles.get(key(tenantId, project.dataProfileId));
      if (!profile) throw problem('data_profile_not_found', `project ${projectId} names a missing data profile`);
      return profile;
    },
    async defaultProject(tenantId) {
      const tenant = await tenants.get(tenantId);
      if (tenant?.defaultProjectId) {
        const p = await projects.get(key(tenantId, tenant.defaultProjectId));
        if (p) return p;
      }
      return (await projects.list({ prefix: `${tenantId}/`, limit: 1 }))[0]?.value;
    },
  };
  return config;
}
