// GET /contexts/kyc/v1: the KYC JSON-LD context every issued credential names
// (credentials/contexts.ts KYC_CONTEXT, `@context` URL KYC_CONTEXT_URL). Verifiers have it
// bundled (no fetch during verification, VC Data Integrity §4.4); served here so that people and
// tools can read the vocabulary the twin issues with. Public, like the DID document.
import type { FastifyReply } from 'fastify';
import type { App } from '../http/app-types.js';
import { KYC_CONTEXT, KYC_CONTEXT_URL } from '../../credentials/contexts.js';

/** The path of a context URL under the service (https://idsync.dev/contexts/kyc/v1 → /contexts/kyc/v1). */
export const KYC_CONTEXT_PATH = new URL(KYC_CONTEXT_URL).pathname;

export async function contextRoutes(app: App): Promise<void> {
  const body = JSON.stringify(KYC_CONTEXT);
  app.get(
    KYC_CONTEXT_PATH,
    {
      schema: {
        tags: ['Credentials'],
        summary: 'The KYC JSON-LD context of issued credentials',
        description: `The context document of \`${KYC_CONTEXT_URL}\` (JSON-LD 1.1, @protected terms). No token needed.`,
        response: { 200: { description: 'JSON-LD context', type: 'object', additionalProperties: true } },
      },
    },
    async (_request, reply) =>
      (reply as unknown as FastifyReply).header('Cache-Control', 'public, max-age=86400').type('application/ld+json').send(body),
  );
}
