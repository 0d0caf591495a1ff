// The sync scope of a tenant's users (spec "User sync context": datapoints = "scope fixed by the
// latest data profile version"): the PascalCase names of the fields of the default project's
// data profile; the whole vocabulary when the tenant has no project.
import { SCOPE_NAMES, scopeName } from '../../credentials/datapoints.js';
import type { ServiceBase } from '../context.js';
import { projectSettings } from '../config/config.js';

export async function syncScopeNames(deps: Pick<ServiceBase, 'config'>, tenantId: string): Promise<string[]> {
  const { profile } = await projectSettings(deps.config, tenantId);
  return profile ? profile.fields.map((f) => scopeName(f.key)) : [...SCOPE_NAMES];
}
