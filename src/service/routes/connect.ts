// GET /connect?_oob=…: where invitation URLs point (vendor-facts). JSON clients get the decoded
// out-of-band invitation (DIDComm v2 §9.5.2); browsers get a page with the URL and a QR code, and
// when the invitation is expired or not ours, a page saying so (clients get problem JSON).
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../http/app-types.js';
import type { ServiceDeps } from '../deps.js';
import { findInvitation } from '../users/invitations.js';
import { findWorkflowByInvitation } from '../issuance/invitation.js';
import { problem } from '../http/problem.js';
import { problemFor, sendProblem } from '../http/problem-handlers.js';
import { problemResponses } from '../http/schemas.js';
import { b64uDecodeText, jcs } from '../../encoding.js';
import { isIdsyncError } from '../../errors.js';
import { JSON_TOO_DEEP, parseJsonBounded } from '../../json-depth.js';
import { invitationPage, problemPage, wantsHtml, wantsJson } from '../../protocols/out-of-band-page.js';

const Query = Type.Object({ _oob: Type.Optional(Type.String({ maxLength: 65536, description: 'base64url JSON out-of-band invitation' })) });

const Invitation = Type.Object(
  {
    type: Type.String(),
    id: Type.String(),
    from: Type.Optional(Type.String()),
    body: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true, title: 'OutOfBandInvitation' },
);

export function decodeOob(oob: string | undefined): Record<string, unknown> {
  if (!oob) throw problem('invalid_invitation', 'the _oob query parameter is missing');
  let parsed: unknown;
  try {
    parsed = parseJsonBounded(b64uDecodeText(oob));
  } catch (err) {
    if (isIdsyncError(err) && err.code === JSON_TOO_DEEP) throw problem(JSON_TOO_DEEP, `_oob: ${err.message}`);
    throw problem('invalid_invitation', '_oob is not base64url-encoded JSON');
  }
  const inv = parsed as Record<string, unknown>;
  if (typeof inv !== 'object' || inv === null || Array.isArray(inv) || typeof inv.type !== 'string' || typeof inv.id !== 'string') {
    throw problem('invalid_invitation', '_oob is not an out-of-band invitation');
  }
  return inv;
}

/** What a person who opened a bad invitation link can do about it, by problem code. */
const ERROR_ADVICE: Record<string, { heading: string; advice: string }> = {
  invitation_expired: { heading: 'This invitation has expired', advice: 'Ask whoever sent it for a new invitation.' },
  foreign_invitation: { heading: 'This is not an invitation from this service', advice: 'Open the link exactly as you received it, or ask the sender for a new one.' },
  invalid_invitation: { heading: 'This invitation link is damaged', advice: 'Open the link exactly as you received it (nothing cut off or changed), or ask the sender for a new one.' },
};

/** The page a browser gets instead of problem JSON: the same status, code and detail, for a person. */
function errorPage(problem: { status: number; title: string; detail: string; code: string }): string {
  const { heading, advice } = ERROR_ADVICE[problem.code] ?? { heading: problem.title, advice: 'Ask whoever sent the invitation for a new one.' };
  return problemPage({ status: problem.status, code: problem.code, detail: problem.detail, heading, advice });
}

/** The page an invitation URL opens in a browser (protocols/out-of-band-page.ts). */
const page = (url: string, invitation: Record<string, unknown>): Promise<string> =>
  invitationPage({ heading: 'Connect your wallet', lead: 'Scan the code with your wallet, or paste the invitation URL into it.', url, invitation });

/** The latest instant a JavaScript Date can hold (ECMA-262 §21.4.1.1), in epoch seconds. */
const MAX_EPOCH_SECONDS = 8.64e12;

/**
 * DIDComm v2 §Message Headers: `expires_time` is an integer of UTC epoch seconds. Anything else
 * (a string, a fraction, a value no date can hold) is refused rather than read.
 */
export function checkExpiresTime(invitation: Record<string, unknown>): number | undefined {
  const t = invitation.expires_time;
  if (t === undefined) return undefined;
  if (typeof t !== 'number' || !Number.isSafeInteger(t) || t < 0 || t > MAX_EPOCH_SECONDS) {
    throw problem('invalid_invitation', 'expires_time must be an integer of epoch seconds between 0 and 8.64e12');
  }
  return t;
}

function sendErrorPage(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const { status, body, headers } = problemFor(request, err);
  return reply.code(status).headers(headers).header('Cache-Control', 'no-store').header('Vary', 'Accept').type('text/html; charset=utf-8').send(errorPage(body));
}

/**
 * The invitation as this service issued it (a user's Data Pipe invitation or an issuance
 * workflow's), or a 400: /connect renders only what the service itself made, so its page
 * cannot be used to dress up someone else's invitation (or edited text) as ours.
 */
async function ownInvitation(deps: Pick<ServiceDeps, 'serviceDid' | 'store'>, invitation: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (invitation.from !== deps.serviceDid) {
    throw problem('foreign_invitation', 'this invitation is not from this service; only invitations it issued are shown here');
  }
  const id = invitation.id as string;
  const issued = ((await findInvitation(deps, id))?.invitation ?? (await findWorkflowByInvitation(deps, id))?.invitation) as Record<string, unknown> | undefined;
  if (!issued) throw problem('foreign_invitation', 'this service issued no invitation with that id');
  let same = false;
  try {
    same = jcs(issued) === jcs(invitation);
  } catch {
    same = false;
  }
  if (!same) throw problem('invalid_invitation', 'the invitation differs from the one this service issued');
  return issued;
}

export async function connectRoutes(app: App, deps: Pick<ServiceDeps, 'publicUrl' | 'clock' | 'serviceDid' | 'store'>): Promise<void> {
  app.get(
    '/connect',
    {
      schema: {
        tags: ['Data Sync'],
        summary: 'The page an invitation URL opens',
        description:
          'Accept: application/json → the decoded invitation; otherwise an HTML page with the URL and a QR code. No token needed. ' +
          'Only invitations this service issued (unchanged) are shown: another issuer\'s → 400 foreign_invitation, an edited one → 400 invalid_invitation. ' +
          '410 invitation_expired once the invitation\'s expires_time has passed. ' +
          'Failures are problem JSON, or an HTML page with the same status when Accept names text/html (browsers).',
        querystring: Query,
        produces: ['application/json', 'text/html'],
        response: {
          200: {
            description: 'The invitation',
            content: { 'application/json': { schema: Invitation }, 'text/html': { schema: Type.String() } },
          },
          ...problemResponses([400, 410]),
        },
      },
      // Someone who opened a link in a browser gets a page saying what went wrong, not JSON.
      errorHandler: (err, request, reply) => (wantsHtml(request.headers.accept) ? sendErrorPage(request, reply, err) : sendProblem(request, reply, err)),
    },
    async (request, reply) => {
      const decoded = decodeOob(request.query._oob);
      // DIDComm v2 §Message Headers expires_time (seconds): Data Pipe invitations carry one (docs/service.md).
      const expires = checkExpiresTime(decoded);
      const invitation = await ownInvitation(deps, decoded);
      if (expires !== undefined && expires * 1000 <= deps.clock.now()) {
        throw problem('invitation_expired', `the invitation expired at ${new Date(expires * 1000).toISOString()}; ask for a new one`);
      }
      reply.header('Cache-Control', 'no-store').header('Vary', 'Accept');
      if (wantsJson(request.headers.accept)) return reply.type('application/json').send(JSON.stringify(invitation));
      const url = `${deps.publicUrl}/connect?_oob=${request.query._oob}`;
      return reply.type('text/html; charset=utf-8').send(await page(url, invitation));
    },
  );
}
