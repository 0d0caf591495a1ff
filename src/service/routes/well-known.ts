// GET /.well-known/did.json: the service's did:web document (did:web method spec §Read).
// Public keys only; the service's secrets never leave the store.
import type { FastifyReply } from 'fastify';
import type { App } from '../http/app-types.js';
import type { ServiceDeps } from '../deps.js';

export async function wellKnownRoutes(app: App, deps: ServiceDeps): Promise<void> {
  app.get(
    '/.well-known/did.json',
    {
      schema: {
        tags: ['DIDComm'],
        summary: 'The service\'s DID document (did:web)',
        response: { 200: { description: 'DID document', type: 'object', additionalProperties: true } },
      },
    },
    async (_request, reply) => (reply as unknown as FastifyReply).type('application/did+json').send(JSON.stringify(deps.identity.document)),
  );
}
