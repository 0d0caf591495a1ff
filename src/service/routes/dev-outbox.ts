// GET /dev/outbox: what the service sent (e-mail, SMS, DIDComm invitations) for the caller's
// tenant, oldest first, so a test can pick an invitation URL up. Needs the admin scope
// (scopes.ts ADMIN_SCOPE), like the rest of the configuration and dev API.
import { Type } from '@fastify/type-provider-typebox';
import { literalUnion } from '../http/literal-union.js';
import type { App } from '../http/app-types.js';
import { authOf, requireScope } from '../auth/route-auth.js';
import type { ServiceDeps } from '../deps.js';
import { parseChannel } from '../issuance/delivery/targets.js';
import type { OutboxEntry } from '../issuance/invitation-outbox.js';
import { problem } from '../http/problem.js';
import { responses } from '../http/schemas.js';
import { ADMIN_SCOPE } from '../auth/scopes.js';
import { issuanceServicesOf } from '../issuance/wiring.js';

export const OutboxEntrySchema = Type.Object(
  {
    id: Type.String(),
    channel: Type.Union([Type.Literal('DIDCOMM'), Type.Literal('EMAIL'), Type.Literal('SMS')]),
    to: Type.String(),
    subject: Type.Optional(Type.String()),
    text: Type.String(),
    invitationUrl: Type.String(),
    workflowId: Type.Optional(Type.String()),
    sentAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    status: literalUnion(['pending', 'sent', 'queued', 'recorded', 'failed'], {
      description: 'recorded: no transport configured (outbox only); sent: accepted by SMTP / SMS gateway / DIDComm endpoint; queued: DIDComm pickup; failed: see error',
    }),
    error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
    messageId: Type.Optional(Type.String()),
  },
  { title: 'OutboxEntry' },
);

const OutboxQuery = Type.Object({
  to: Type.Optional(Type.String({ maxLength: 8192, description: 'DID, e-mail address (any case) or phone number' })),
  channel: Type.Optional(Type.String({ description: 'DIDCOMM, EMAIL (Email) or SMS' })),
  workflowId: Type.Optional(Type.String({ maxLength: 256 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'The latest N entries' })),
});

export function outboxView(e: OutboxEntry): Omit<OutboxEntry, 'tenantId'> {
  const { tenantId: _t, ...rest } = e;
  return rest;
}

export async function devOutboxRoutes(app: App, deps: ServiceDeps): Promise<void> {
  app.get(
    '/dev/outbox',
    {
      preHandler: requireScope(ADMIN_SCOPE),
      schema: {
        tags: ['Admin'],
        summary: 'Messages the service sent (dev outbox)',
        description: 'Every invitation sent by e-mail, SMS or DIDComm, oldest first; `?to=` picks one recipient. Entries are recorded whether or not SMTP or an SMS gateway is configured.',
        querystring: OutboxQuery,
        response: responses({ 200: Type.Object({ entries: Type.Array(OutboxEntrySchema) }) }),
      },
    },
    async (request) => {
      const { tenantId } = authOf(request);
      const { to, channel, workflowId, limit } = request.query;
      const ch = channel === undefined ? undefined : parseChannel(channel);
      if (channel !== undefined && !ch) {
        throw problem('invalid_request', 'channel must be DIDCOMM, EMAIL or SMS', {
          errors: [{ field: 'querystring/channel', code: 'invalid_channel', message: 'must be DIDCOMM, EMAIL or SMS' }],
        });
      }
      const entries = await issuanceServicesOf(deps).outbox.list({
        tenantId,
        ...(to !== undefined ? { to } : {}),
        ...(ch ? { channel: ch } : {}),
        ...(workflowId !== undefined ? { workflowId } : {}),
        ...(limit !== undefined ? { limit } : {}),
      });
      return { entries: entries.map(outboxView) };
    },
  );
}
