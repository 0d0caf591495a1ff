// What every console's route scope gets, whichever party it shows: form bodies, the security
// headers, its static files, problems as an error page for a person and as problem+json for
// anything else, sign-in, and the message, thread and stream routes.
import type { FastifyInstance } from 'fastify';
import { problemFor } from '../service/http/problem-handlers.js';
import { problem } from '../service/http/problem.js';
import { installAuth, sendHtml, wantsPage, type GuardOptions } from './auth.js';
import { readAsset } from './assets.js';
import { renderPage, type ConsoleContext } from './context.js';
import { html } from './html.js';
import { SECURITY_HEADERS } from './security.js';
import { registerMessageView } from './views/message.js';
import { registerMessagesView } from './views/messages.js';
import { registerThreadsView } from './views/threads.js';

const FORM_LIMIT = 64 * 1024;

export function installConsoleBasics(scope: FastifyInstance, ctx: ConsoleContext, guard: GuardOptions, home: string): void {
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  scope.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(SECURITY_HEADERS);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
  scope.setErrorHandler((err, request, reply) => {
    const { status, body, headers } = problemFor(request, err);
    if (wantsPage(request)) {
      const text = html`<h1>${body.title}</h1><p class="error" role="alert">${body.detail}</p><p><a href="${home}">Back to the console</a></p>`;
      return sendHtml(reply.headers(headers), renderPage(ctx, request, { title: body.title, body: text }), status);
    }
    return reply.code(status).headers(headers).type('application/problem+json').send(JSON.stringify(body));
  });
  installAuth(scope, guard);

  scope.get('/console/assets/:name', { schema: { hide: true } }, async (request, reply) => {
    const asset = await readAsset((request.params as { name: string }).name);
    if (!asset) throw problem('not_found', 'no such asset');
    return reply.header('cache-control', 'no-cache').type(asset.type).send(asset.body);
  });
  scope.get('/console', { schema: { hide: true } }, async (_request, reply) => reply.code(303).header('location', home).send());
  // The stream of pages that show no message rows: only `changed`.
  scope.get('/console/stream/changes', { schema: { hide: true } }, async (request, reply) => ctx.hub.open(request, reply, () => undefined));

  registerMessagesView(scope, ctx);
  registerMessageView(scope, ctx);
  registerThreadsView(scope, ctx);
}
