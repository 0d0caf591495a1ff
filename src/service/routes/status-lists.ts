// GET /status-lists/:name: the service's Bitstring Status List credentials (Bitstring Status
// List v1.0 §2.2; the `statusListCredential` URL of every issued credential's entry). Public,
// like the DID document: verifiers fetch it without a token.
import type { FastifyReply } from 'fastify';
import { Type } from '@fastify/type-provider-typebox';
import type { App } from '../http/app-types.js';
import type { ServiceDeps } from '../deps.js';
import { problem } from '../http/problem.js';
import { problemResponses } from '../http/schemas.js';
import type { ServiceDidcommAgent } from '../didcomm/agent.js';

const Params = Type.Object({ name: Type.String({ pattern: '^[a-z0-9-]{1,64}$', description: 'e.g. revocation-1, suspension-1' }) });

export async function statusListRoutes(app: App, deps: ServiceDeps): Promise<void> {
  app.get(
    '/status-lists/:name',
    {
      schema: {
        tags: ['Credentials'],
        summary: 'A status list credential (revocation or suspension)',
        description:
          'The BitstringStatusListCredential every issued credential\'s `credentialStatus.statusListCredential` names ' +
          '(Bitstring Status List v1.0). Public: verifiers and wallets fetch it without a token. Re-issued after every ' +
          'status change (statusChangeTerms, revocation, suspension). `revocation-1`, `suspension-1`.',
        params: Params,
        response: { 200: { description: 'BitstringStatusListCredential', type: 'object', additionalProperties: true }, ...problemResponses([404]) },
      },
    },
    async (request, reply) => {
      // Read at request time: the agent is wired after the routes are registered.
      const agent = deps.agent as Partial<ServiceDidcommAgent>;
      const credential = agent.statusListCredential ? await agent.statusListCredential(request.params.name) : undefined;
      if (!credential) throw problem('status_list_not_found', `no status list ${request.params.name}`);
      return (reply as unknown as FastifyReply).type('application/vc+ld+json').send(JSON.stringify(credential));
    },
  );
}
