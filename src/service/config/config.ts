// Configuration records the spec leaves to a management console (service-interface.md
// "What the service does" 4): tenants and their API clients, projects, data profiles and
// issuance settings. Store-backed; filled from a fixtures file, the env seed or the admin API.
import type { Store } from '../../store/store.js';
import { setBounded } from '../../bounded.js';
import type { DataProfile } from '../../credentials/manifest.js';
import { problem } from '../http/problem.js';
import { deepFreeze } from '../../deep-freeze.js';
import { keyedLock } from '../../keyed-lock.js';

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
  /** Changes with every write through this config, before and after it (projectSettings keeps reads until then). */
  revision(): number;
  /**
   * Runs `fn` while no other `exclusive` call of the tenant runs: a change that reads before it
   * writes (create unless it exists, delete a profile no project uses, update what is still there)
   * holds, in this process, against another such change made at the same time. Not re-entrant.
   */
  exclusive<T>(tenantId: string, fn: () => Promise<T>): Promise<T>;
}

// Keys are `<tenantId>/<id>` so a tenant's records list by prefix; ids never contain '/'.
const key = (tenantId: string, id: string): string => `${tenantId}/${id}`;

export function createServiceConfig(store: Store): ServiceConfig {
  const tenants = store.collection<TenantRecord>('svc-tenants');
  const clients = store.collection<ClientRecord>('svc-clients');
  const projects = store.collection<ProjectRecord>('svc-projects');
  const profiles = store.collection<DataProfile>('svc-data-profiles');
  let revision = 0;
  const tenantLock = keyedLock();
  // Counted as it starts and as it ends: a read that overlapped a write is never kept as current.
  const write = async (w: () => Promise<void>): Promise<void> => {
    revision++;
    try {
      await w();
    } finally {
      revision++;
    }
  };

  const config: ServiceConfig = {
    getTenant: (id) => tenants.get(id),
    putTenant: (t) => write(() => tenants.put(t.id, t)),
    listTenants: async () => (await tenants.list()).map((e) => e.value),
    getClient: (clientId) => clients.get(clientId),
    putClient: (c) => write(() => clients.put(c.clientId, c)),
    getProject: (tenantId, projectId) => projects.get(key(tenantId, projectId)),
    async requireProject(tenantId, projectId) {
      const p = await projects.get(key(tenantId, projectId));
      if (!p) throw problem('project_not_found', `no project ${projectId}`);
      return p;
    },
    listProjects: async (tenantId) => (await projects.list({ prefix: `${tenantId}/` })).map((e) => e.value),
    putProject: (p) => write(() => projects.put(key(p.tenantId, p.id), p)),
    deleteProject: (tenantId, projectId) => write(() => projects.del(key(tenantId, projectId))),
    getDataProfile: (tenantId, id) => profiles.get(key(tenantId, id)),
    listDataProfiles: async (tenantId) => (await profiles.list({ prefix: `${tenantId}/` })).map((e) => e.value),
    putDataProfile: (tenantId, p) => write(() => profiles.put(key(tenantId, p.id), p)),
    deleteDataProfile: (tenantId, id) => write(() => profiles.del(key(tenantId, id))),
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
    revision: () => revision,
    exclusive: (tenantId, fn) => tenantLock(tenantId, fn),
  };
  return config;
}

/** A tenant's project (the one named, else its default) and that project's data profile. */
export interface ProjectSettings {
  project?: ProjectRecord;
  profile?: DataProfile;
}

/** What projectSettings read, per config, while its revision stays the same. */
const settingsKept = new WeakMap<ServiceConfig, { revision: number; byProject: Map<string, ProjectSettings> }>();
/** Projects kept per config (a tenant has few; the key includes the tenant). */
const SETTINGS_KEPT_MAX = 1024;

/**
 * The settings an issuance or a user's session reads (every request-credential and offer, every
 * sync context): read and parsed once, then kept until the config is next written to, so a change
 * made through it (the admin API, the seed) applies to the next read. Shared by every reader, so
 * frozen: the getters of ServiceConfig give fresh records to change.
 */
export async function projectSettings(config: ServiceConfig, tenantId: string, projectId?: string): Promise<ProjectSettings> {
  const revision = config.revision();
  let kept = settingsKept.get(config);
  if (!kept || kept.revision !== revision) settingsKept.set(config, (kept = { revision, byProject: new Map() }));
  const k = projectId === undefined ? `${tenantId}/` : key(tenantId, projectId);
  const hit = kept.byProject.get(k);
  if (hit) return hit;
  const project = projectId ? await config.getProject(tenantId, projectId) : await config.defaultProject(tenantId);
  const profile = project ? await config.getDataProfile(tenantId, project.dataProfileId) : undefined;
  const settings = deepFreeze({ ...(project ? { project } : {}), ...(profile ? { profile } : {}) });
  // Not kept when a write started or ended meanwhile (it may have changed what was read).
  if (config.revision() === revision) setBounded(kept.byProject, k, settings, SETTINGS_KEPT_MAX);
  return settings;
}
