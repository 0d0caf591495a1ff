// The sync scope of a tenant's users (spec "User sync context": datapoints = "scope fixed by the
// latest data profile version"): the PascalCase names of the fields of the default project's
// data profile; the whole vocabulary when the tenant has no project.
import { SCOPE_NAMES, scopeName } from '../../credentials/datapoints.js';
import type { ServiceBase } from '../context.js';

export async function syncScopeNames(deps: Pick<ServiceBase, 'config'>, tenantId: string): Promise<string[]> {
  const project = await deps.config.defaultProject(tenantId);
  const profile = project ? await deps.config.getDataProfile(tenantId, project.dataProfileId) : undefined;
  return profile ? profile.fields.map((f) => scopeName(f.key)) : [...SCOPE_NAMES];
}
