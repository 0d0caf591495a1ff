// Webhook subscriptions, kept in the store (collection `webhook-subscriptions`).
import { isoNow } from '../../clock.js';
import { keyedLock } from '../../keyed-lock.js';
import type { Clock, IdGenerator } from '../../clock.js';
import { IdsyncError } from '../../errors.js';
import type { Store } from '../../store/store.js';
import type { HostResolver } from '../../net/connect-guard.js';
import { endpointRefusal, resolvedEndpointRefusal, WEBHOOK_ENDPOINT_POLICY } from '../net/endpoint-policy.js';
import { generateWebhookSecret, isValidWebhookSecret } from './signature.js';

export const SUBSCRIPTIONS = 'webhook-subscriptions';

export interface WebhookSubscription {
  id: string;
  url: string;
  /** `whsec_` + base64 (Standard Webhooks). */
  secret: string;
  /** Event names, types or actions to receive; absent or empty: all. */
  events?: string[];
  enabled: boolean;
  /** Only events of this tenant; absent: every tenant's events. */
  tenantId?: string;
  description?: string;
  createdAt: string;
  updatedAt: string;
}

export interface SubscriptionInput {
  id?: string;
  url: string;
  secret?: string;
  events?: string[];
  enabled?: boolean;
  tenantId?: string;
  description?: string;
}

/** What an update may change. The tenant is not among it: a subscription never moves to another tenant. */
export type SubscriptionPatch = Partial<Pick<SubscriptionInput, 'url' | 'secret' | 'events' | 'enabled' | 'description'>>;

function fieldError(field: string, message: string): IdsyncError {
  return new IdsyncError('invalid_request', `${field}: ${message}`, { details: { errors: [{ field: `body/${field}`, code: 'invalid_value', message }] } });
}

/**
 * An http(s) URL whose host is not refused by the webhook policy: an IP literal or a name that
 * says what it is (metadata names, `169.254.169.254.nip.io`) at once, any other name by what it
 * resolves to now (every address; NAT64 and 6to4 forms included). Every delivery checks again
 * when it connects (dispatcher.ts), so a name that changes later is still caught.
 */
async function checkUrl(url: unknown, resolver?: HostResolver): Promise<string> {
  if (typeof url !== 'string') throw fieldError('url', 'must be a string');
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw fieldError('url', 'must be an absolute URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw fieldError('url', 'must be http or https');
  // fetch refuses a URL with a user name or password: every delivery would fail at once.
  if (u.username !== '' || u.password !== '') throw fieldError('url', 'must not carry a user name or password (deliveries are signed: Standard Webhooks)');
  // Link-local (169.254/16, fe80::/10) and cloud metadata hosts: never a subscriber (SSRF).
  const refused = endpointRefusal(u.toString(), WEBHOOK_ENDPOINT_POLICY) ?? (await resolvedEndpointRefusal(u.toString(), WEBHOOK_ENDPOINT_POLICY, resolver));
  if (refused) throw fieldError('url', refused);
  return u.toString();
}

function checkEvents(events: unknown): string[] | undefined {
  if (events === undefined) return undefined;
  if (!Array.isArray(events) || !events.every((e) => typeof e === 'string' && e.length > 0)) {
    throw fieldError('events', 'must be an array of event names');
  }
  return [...new Set(events as string[])];
}

export interface SubscriptionRepo {
  create(input: SubscriptionInput): Promise<WebhookSubscription>;
  get(id: string): Promise<WebhookSubscription | undefined>;
  update(id: string, patch: SubscriptionPatch): Promise<WebhookSubscription>;
  remove(id: string): Promise<boolean>;
  list(): Promise<WebhookSubscription[]>;
}

export function subscriptionRepo(deps: { store: Store; clock: Clock; ids: IdGenerator; resolveHost?: HostResolver }): SubscriptionRepo {
  const col = deps.store.collection<WebhookSubscription>(SUBSCRIPTIONS);
  const now = () => isoNow(deps.clock);
  // Each change reads the subscription, then writes: one at a time per id, so an update never
  // writes back one a delete answered 204 for, and two creates of one id cannot both succeed.
  const lock = keyedLock();

  function checkSecret(secret: unknown): string {
    if (typeof secret !== 'string' || !isValidWebhookSecret(secret)) {
      throw fieldError('secret', 'must be whsec_ followed by base64 of 24..64 bytes');
    }
    return secret;
  }

  async function create(id: string, input: SubscriptionInput): Promise<WebhookSubscription> {
    if (await col.get(id)) throw new IdsyncError('already_exists', `webhook subscription ${id} exists`);
    const at = now();
    const sub: WebhookSubscription = {
      id,
      url: await checkUrl(input.url, deps.resolveHost),
      secret: input.secret === undefined ? generateWebhookSecret() : checkSecret(input.secret),
      enabled: input.enabled ?? true,
      createdAt: at,
      updatedAt: at,
    };
    const events = checkEvents(input.events);
    if (events) sub.events = events;
    if (input.tenantId !== undefined) sub.tenantId = input.tenantId;
    if (input.description !== undefined) sub.description = input.description;
    await col.put(id, sub);
    return sub;
  }

  async function update(id: string, patch: SubscriptionPatch): Promise<WebhookSubscription> {
    const sub = await col.get(id);
    if (!sub) throw new IdsyncError('webhook_not_found', `no webhook subscription ${id}`);
    const next: WebhookSubscription = { ...sub, updatedAt: now() };
    if (patch.url !== undefined) next.url = await checkUrl(patch.url, deps.resolveHost);
    if (patch.secret !== undefined) next.secret = checkSecret(patch.secret);
    if (patch.events !== undefined) next.events = checkEvents(patch.events);
    if (patch.enabled !== undefined) next.enabled = patch.enabled;
    if (patch.description !== undefined) next.description = patch.description;
    await col.put(id, next);
    return next;
  }

  async function remove(id: string): Promise<boolean> {
    if (!(await col.get(id))) return false;
    await col.del(id);
    return true;
  }

  return {
    create: (input) => {
      const id = input.id ?? deps.ids();
      return lock(id, () => create(id, input));
    },
    get: (id) => col.get(id),
    update: (id, patch) => lock(id, () => update(id, patch)),
    remove: (id) => lock(id, () => remove(id)),
    async list() {
      return (await col.list()).map((e) => e.value).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    },
  };
}
