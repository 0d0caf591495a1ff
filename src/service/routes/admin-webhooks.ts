// /admin/webhooks: a tenant's webhook subscriptions and their deliveries. The signing secret
// is returned when a subscription is created and from GET …/secret, never in lists.
import { Type } from '@fastify/type-provider-typebox';
import type { App } from '../http/app-types.js';
import { authOf, requireScope } from '../auth/route-auth.js';
import { problem } from '../http/problem.js';
import { ID_PATTERN, responses } from '../http/schemas.js';
import { ADMIN_SCOPE } from '../auth/scopes.js';
import type { WebhookDispatcher } from '../webhooks/dispatcher.js';
import type { WebhookSubscription } from '../webhooks/subscriptions.js';

const admin = requireScope(ADMIN_SCOPE);
const tags = ['Admin'];

export const WebhookSchema = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    events: Type.Optional(Type.Array(Type.String())),
    enabled: Type.Boolean(),
    description: Type.Optional(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'WebhookSubscription' },
);
/** A subscription as created (the only answer that carries its secret). */
export const WithSecret = Type.Object({ ...WebhookSchema.properties, secret: Type.String({ description: 'whsec_… (Standard Webhooks)' }) });

const WebhookInput = Type.Object(
  {
    url: Type.String({ maxLength: 2048, description: 'http(s) URL receiving POSTs' }),
    secret: Type.Optional(Type.String({ maxLength: 200, description: 'whsec_ + base64 of 24..64 bytes; generated when omitted' })),
    events: Type.Optional(Type.Array(Type.String({ maxLength: 128 }), { maxItems: 100, description: 'Event names (DATA_SYNC_COMPLETED), types (DATA_SYNC), actions or *; omitted: all' })),
    enabled: Type.Optional(Type.Boolean()),
    description: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
);

// Spelled out rather than Type.Partial(WebhookInput): Partial does not carry additionalProperties
// over, and a PATCH naming anything else (e.g. tenantId) must be refused, not applied.
const WebhookPatch = Type.Object(
  {
    url: Type.Optional(WebhookInput.properties.url),
    secret: WebhookInput.properties.secret,
    events: WebhookInput.properties.events,
    enabled: WebhookInput.properties.enabled,
    description: WebhookInput.properties.description,
  },
  { additionalProperties: false },
);

const DeliverySchema = Type.Object({
  id: Type.String(),
  eventId: Type.String({ description: 'Also the webhook-id header: stable across retries' }),
  subscriptionId: Type.String(),
  url: Type.String(),
  state: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('dead')]),
  attempts: Type.Array(
    Type.Object({ n: Type.Integer(), at: Type.String(), status: Type.Optional(Type.Integer()), error: Type.Optional(Type.String()), durationMs: Type.Integer() }),
  ),
  nextAttemptAt: Type.Optional(Type.Integer({ description: 'Epoch ms' })),
  createdAt: Type.String(),
  deliveredAt: Type.Optional(Type.String()),
  deadAt: Type.Optional(Type.String()),
  lastError: Type.Optional(Type.String()),
  event: Type.Optional(Type.Object({ type: Type.String(), action: Type.Union([Type.String(), Type.Null()]), event: Type.String(), params: Type.Record(Type.String(), Type.Unknown()) })),
});

const Params = Type.Object({ webhookId: Type.String({ pattern: ID_PATTERN }) });

const view = ({ secret: _s, tenantId: _t, ...rest }: WebhookSubscription) => rest;

export async function adminWebhookRoutes(app: App, webhooks: WebhookDispatcher): Promise<void> {
  async function own(tenantId: string, id: string): Promise<WebhookSubscription> {
    const sub = await webhooks.subscriptions.get(id);
    if (!sub || sub.tenantId !== tenantId) throw problem('webhook_not_found', `no webhook subscription ${id}`);
    return sub;
  }

  app.get('/admin/webhooks', { preHandler: admin, schema: { tags, summary: 'List webhook subscriptions', response: responses({ 200: Type.Object({ webhooks: Type.Array(WebhookSchema) }) }) } }, async (request) => {
    const { tenantId } = authOf(request);
    return { webhooks: (await webhooks.list()).filter((s) => s.tenantId === tenantId).map(view) };
  });

  app.post(
    '/admin/webhooks',
    {
      preHandler: admin,
      schema: {
        tags,
        summary: 'Subscribe a URL to webhook events',
        description: 'Events are POSTed as {type, action, event, params}, signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature). Retried with back-off; webhook-id is stable across retries.',
        body: WebhookInput,
        response: responses({ 201: WithSecret }),
      },
    },
    async (request, reply) => {
      const sub = await webhooks.subscribe({ ...request.body, tenantId: authOf(request).tenantId });
      reply.code(201);
      return { ...view(sub), secret: sub.secret };
    },
  );

  app.get('/admin/webhooks/:webhookId', { preHandler: admin, schema: { tags, summary: 'Get a webhook subscription', params: Params, response: responses({ 200: WebhookSchema }, [404]) } }, async (request) =>
    view(await own(authOf(request).tenantId, request.params.webhookId)),
  );

  app.get('/admin/webhooks/:webhookId/secret', { preHandler: admin, schema: { tags, summary: 'Get the signing secret', params: Params, response: responses({ 200: Type.Object({ secret: Type.String() }) }, [404]) } }, async (request) => ({
    secret: (await own(authOf(request).tenantId, request.params.webhookId)).secret,
  }));

  app.patch(
    '/admin/webhooks/:webhookId',
    { preHandler: admin, schema: { tags, summary: 'Update a webhook subscription', description: 'url, secret, events, enabled, description; other members are refused (400).', params: Params, body: WebhookPatch, response: responses({ 200: WebhookSchema }, [400, 404]) } },
    async (request) => {
      await own(authOf(request).tenantId, request.params.webhookId);
      // Only the fields a tenant may change, whatever else the body carried.
      const { url, secret, events, enabled, description } = request.body ?? {};
      const patch = { url, secret, events, enabled, description };
      return view(await webhooks.subscriptions.update(request.params.webhookId, patch));
    },
  );

  app.delete('/admin/webhooks/:webhookId', { preHandler: admin, schema: { tags, summary: 'Delete a webhook subscription', description: 'Pending deliveries to it are dead-lettered.', params: Params, response: responses({ 204: { description: 'Deleted' } }, [404]) } }, async (request, reply) => {
    await own(authOf(request).tenantId, request.params.webhookId);
    await webhooks.unsubscribe(request.params.webhookId);
    return reply.code(204).send();
  });

  app.get(
    '/admin/webhooks/:webhookId/deliveries',
    {
      preHandler: admin,
      schema: {
        tags,
        summary: 'Deliveries to a subscription',
        params: Params,
        querystring: Type.Object({ state: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('dead')])) }),
        response: responses({ 200: Type.Object({ deliveries: Type.Array(DeliverySchema) }) }, [404]),
      },
    },
    async (request) => {
      const sub = await own(authOf(request).tenantId, request.params.webhookId);
      const list = (await webhooks.deliveries(request.query.state ? { state: request.query.state } : {})).filter((d) => d.subscriptionId === sub.id);
      const out = [];
      for (const d of list) {
        const ev = await webhooks.getEvent(d.eventId);
        out.push(ev ? { ...d, event: ev.envelope } : d);
      }
      return { deliveries: out };
    },
  );

  app.post(
    '/admin/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    {
      preHandler: admin,
      schema: {
        tags,
        summary: 'Queue a dead (or delivered) delivery again',
        params: Type.Object({ webhookId: Type.String({ pattern: ID_PATTERN }), deliveryId: Type.String({ maxLength: 600 }) }),
        response: responses({ 200: DeliverySchema }, [404]),
      },
    },
    async (request) => {
      const sub = await own(authOf(request).tenantId, request.params.webhookId);
      const mine = (await webhooks.deliveries()).find((d) => d.id === request.params.deliveryId && d.subscriptionId === sub.id);
      if (!mine) throw problem('not_found', `no delivery ${request.params.deliveryId}`);
      return webhooks.redeliver(mine.id);
    },
  );
}
