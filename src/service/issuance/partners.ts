// Ecosystem partners (vendor-facts "Ecosystem partners"): organisations a tenant trusts, each
// with a name, a DID, a status (Active | Inactive) and roles (Issuer, Verifier). The service
// itself and the provider's own organisation are partners of every tenant by default; those
// two can be edited but not deleted. Collection `partners`, key `<tenantId>/<id>`.
import { isoNow } from '../../clock.js';
import { keyedLock } from '../../keyed-lock.js';
import type { Clock, IdGenerator } from '../../clock.js';
import { IdsyncError } from '../../errors.js';
import type { Store } from '../../store/store.js';
import { isDid } from './delivery/targets.js';

export const PARTNERS = 'partners';
export const PARTNER_ROLES = ['Issuer', 'Verifier'] as const;
export const PARTNER_STATUSES = ['Active', 'Inactive'] as const;
export type PartnerRole = (typeof PARTNER_ROLES)[number];
export type PartnerStatus = (typeof PARTNER_STATUSES)[number];

/** Ids of the two default partners. */
export const SERVICE_PARTNER_ID = 'service';
export const PROVIDER_PARTNER_ID = 'provider';

export interface Partner {
  id: string;
  tenantId: string;
  name: string;
  did: string;
  status: PartnerStatus;
  roles: PartnerRole[];
  /** Set on the default partners. */
  builtIn?: 'service' | 'provider';
  /** A default partner without a DID of its own shows the service's current DID (it changes with publicUrl). */
  didFollowsService?: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface PartnerInput {
  id?: unknown;
  name?: unknown;
  did?: unknown;
  status?: unknown;
  roles?: unknown;
}

export interface PartnerDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  serviceDid: string;
  /** Display name of the service partner. */
  serviceName?: string;
  /** The provider organisation of a tenant: its name and DID (defaults: the tenant id, the service DID, which issues on its behalf). */
  provider?: (tenantId: string) => Promise<{ name?: string; did?: string } | undefined>;
}

export interface PartnerRepo {
  /** Creates the two default partners of a tenant if missing. */
  ensureDefaults(tenantId: string): Promise<void>;
  list(tenantId: string, filter?: { status?: PartnerStatus; role?: PartnerRole }): Promise<Partner[]>;
  /** Throws partner_not_found. */
  get(tenantId: string, id: string): Promise<Partner>;
  findByDid(tenantId: string, did: string): Promise<Partner[]>;
  create(tenantId: string, input: PartnerInput): Promise<Partner>;
  update(tenantId: string, id: string, patch: PartnerInput): Promise<Partner>;
  /** Throws partner_not_found, or conflict for a default partner. */
  remove(tenantId: string, id: string): Promise<void>;
}

type FieldError = { field: string; code: string; message: string };

function check(input: PartnerInput, partial: boolean): { errors: FieldError[]; value: Partial<Pick<Partner, 'name' | 'did' | 'status' | 'roles'>> } {
  const errors: FieldError[] = [];
  const value: Partial<Pick<Partner, 'name' | 'did' | 'status' | 'roles'>> = {};
  if (input.name !== undefined || !partial) {
    if (typeof input.name !== 'string' || input.name.trim() === '' || input.name.length > 200) {
      errors.push({ field: 'body/name', code: 'invalid_value', message: 'must be a non-empty string of at most 200 characters' });
    } else value.name = input.name.trim();
  }
  if (input.did !== undefined || !partial) {
    if (typeof input.did !== 'string' || !isDid(input.did)) errors.push({ field: 'body/did', code: 'invalid_value', message: 'must be a DID' });
    else value.did = input.did;
  }
  if (input.status !== undefined) {
    if (!PARTNER_STATUSES.includes(input.status as PartnerStatus)) errors.push({ field: 'body/status', code: 'invalid_value', message: 'must be Active or Inactive' });
    else value.status = input.status as PartnerStatus;
  }
  if (input.roles !== undefined || !partial) {
    const roles = input.roles;
    if (!Array.isArray(roles) || roles.length === 0 || !roles.every((r) => PARTNER_ROLES.includes(r as PartnerRole))) {
      errors.push({ field: 'body/roles', code: 'invalid_value', message: 'must be a non-empty array of Issuer and/or Verifier' });
    } else value.roles = PARTNER_ROLES.filter((r) => roles.includes(r));
  }
  return { errors, value };
}

function invalid(errors: FieldError[]): IdsyncError {
  return new IdsyncError('invalid_request', errors.map((e) => `${e.field}: ${e.message}`).join('; '), { details: { errors } });
}

// The service first, then the provider, then the rest in creation order.
const rank = (p: Partner) => (p.builtIn === 'service' ? 0 : p.builtIn === 'provider' ? 1 : 2);

export function partnerRepo(deps: PartnerDeps): PartnerRepo {
  const col = deps.store.collection<Partner>(PARTNERS);
  const key = (tenantId: string, id: string) => `${tenantId}/${id}`;
  const now = () => isoNow(deps.clock);
  // Every change reads before it writes (is the id or the DID taken, is the partner still there):
  // one at a time per tenant, so a delete answered 204 is never undone by an update that read
  // before it, and two creates cannot both take one id or DID.
  const lock = keyedLock();

  async function ensureDefaults(tenantId: string): Promise<void> {
    const at = now();
    const provider = (await deps.provider?.(tenantId)) ?? {};
    const defaults: Partner[] = [
      { id: SERVICE_PARTNER_ID, tenantId, name: deps.serviceName ?? 'idsync service', did: deps.serviceDid, status: 'Active', roles: ['Issuer', 'Verifier'], builtIn: 'service', didFollowsService: true, createdAt: at, updatedAt: at },
      {
        id: PROVIDER_PARTNER_ID,
        tenantId,
        name: provider.name ?? tenantId,
        did: provider.did ?? deps.serviceDid,
        status: 'Active',
        roles: ['Issuer', 'Verifier'],
        builtIn: 'provider',
        ...(provider.did ? {} : { didFollowsService: true }),
        createdAt: at,
        updatedAt: at,
      },
    ];
    for (const p of defaults) if (!(await col.get(key(tenantId, p.id)))) await col.put(key(tenantId, p.id), p);
  }

  async function get(tenantId: string, id: string): Promise<Partner> {
    await ensureDefaults(tenantId);
    const p = await col.get(key(tenantId, id));
    if (!p) throw new IdsyncError('partner_not_found', `no partner ${id}`);
    return view(p);
  }

  const view = (p: Partner): Partner => (p.didFollowsService ? { ...p, did: deps.serviceDid } : p);

  async function list(tenantId: string, filter: { status?: PartnerStatus; role?: PartnerRole } = {}): Promise<Partner[]> {
    await ensureDefaults(tenantId);
    return (await col.list({ prefix: `${tenantId}/` }))
      .map((e) => view(e.value))
      .filter((p) => (!filter.status || p.status === filter.status) && (!filter.role || p.roles.includes(filter.role)))
      .sort((a, b) => rank(a) - rank(b) || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  async function create(tenantId: string, input: PartnerInput): Promise<Partner> {
    const { errors, value } = check(input, false);
    const id = input.id === undefined ? deps.ids() : input.id;
    if (typeof id !== 'string' || !/^[A-Za-z0-9._~-]{1,128}$/.test(id)) errors.push({ field: 'body/id', code: 'invalid_value', message: 'must be 1..128 URL-safe characters' });
    if (errors.length) throw invalid(errors);
    await ensureDefaults(tenantId);
    if (await col.get(key(tenantId, id as string))) throw new IdsyncError('already_exists', `partner ${String(id)} exists`);
    const others = (await list(tenantId)).filter((p) => !p.builtIn && p.did === value.did);
    if (others.length) throw new IdsyncError('already_exists', `partner ${others[0].id} already has DID ${value.did}`);
    const at = now();
    const p: Partner = { id: id as string, tenantId, name: value.name!, did: value.did!, status: value.status ?? 'Active', roles: value.roles!, createdAt: at, updatedAt: at };
    await col.put(key(tenantId, p.id), p);
    return p;
  }

  async function update(tenantId: string, id: string, patch: PartnerInput): Promise<Partner> {
    const old = await get(tenantId, id);
    const { errors, value } = check(patch, true);
    if (patch.id !== undefined && patch.id !== id) errors.push({ field: 'body/id', code: 'read_only', message: 'cannot be changed' });
    if (errors.length) throw invalid(errors);
    // A DID names one partner, as at create.
    const others = value.did === undefined ? [] : (await list(tenantId)).filter((p) => !p.builtIn && p.id !== id && p.did === value.did);
    if (others.length) throw new IdsyncError('already_exists', `partner ${others[0].id} already has DID ${value.did}`);
    const next: Partner = { ...old, ...value, updatedAt: now() };
    if (value.did !== undefined) delete next.didFollowsService;
    await col.put(key(tenantId, id), next);
    return next;
  }

  async function remove(tenantId: string, id: string): Promise<void> {
    const p = await get(tenantId, id);
    if (p.builtIn) throw new IdsyncError('conflict', `partner ${id} is a default partner; set its status to Inactive instead`);
    await col.del(key(tenantId, id));
  }

  return {
    ensureDefaults,
    list,
    get,
    async findByDid(tenantId, did) {
      return (await list(tenantId)).filter((p) => p.did === did);
    },
    create: (tenantId, input) => lock(tenantId, () => create(tenantId, input)),
    update: (tenantId, id, patch) => lock(tenantId, () => update(tenantId, id, patch)),
    remove: (tenantId, id) => lock(tenantId, () => remove(tenantId, id)),
  };
}
