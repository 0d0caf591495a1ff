// Who may see the console. A person signs in on the login page (the console's credentials: a
// service client's id and secret, or a wallet's access code) and gets a session cookie: HttpOnly,
// SameSite=Strict, Path=/console, its id random and kept only hashed (sessions.ts). A script sends
// `Authorization: Bearer` instead. Without either, a page answers 401 with the login page and
// anything else (fragments, streams, data) 401 problem+json: no data either way.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { problem } from '../service/http/problem.js';
import { sendProblem } from '../service/http/problem-handlers.js';
import { html, type Html } from './html.js';
import { page } from './page.js';
import { assertSameOrigin } from './security.js';
import { SESSION_TTL_MS, type Principal, type Sessions } from './sessions.js';

export const SESSION_COOKIE = 'idsync_console';

export interface ConsoleAuth {
  /** The sign-in form: a label for the id field (none: no id asked), one for the secret, and a hint. */
  form: { id?: string; secret: string; hint?: string };
  /** Checks credentials: the principal, or a thrown problem (401 invalid_client, 403, 429). */
  signIn(input: { id?: string; secret: string }, request: FastifyRequest): Promise<Principal>;
  /** The principal of an `Authorization: Bearer` request, or a thrown 401/403 problem. */
  bearer(request: FastifyRequest): Promise<Principal>;
  /** Whether a signed-in principal may still use the console (a deleted client may not). */
  stillAllowed?(principal: Principal): Promise<boolean>;
}

declare module 'fastify' {
  interface FastifyRequest {
    consolePrincipal?: Principal;
  }
}

/** The value of cookie `name` in a Cookie header (RFC 6265 §5.4), or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function sessionCookie(request: FastifyRequest, value: string, maxAgeS: number): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${secure}`;
}

/** A browser asking for a page (not htmx, not a stream, not a script). */
export function wantsPage(request: FastifyRequest): boolean {
  return request.method === 'GET' && request.headers['hx-request'] === undefined && (request.headers.accept ?? '').includes('text/html');
}

/** Only console paths: a sign-in never sends anyone elsewhere. */
function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/console(\/|$|\?)/.test(next) && !next.startsWith('//') ? next : '/console';
}

export function loginPage(auth: ConsoleAuth, kind: string, o: { next?: string; error?: string } = {}): Html {
  return page({
    title: 'Sign in',
    kind,
    nav: [],
    body: html`<section class="login">
<h1>Sign in to the ${kind} console</h1>
${o.error ? html`<p class="error" role="alert">${o.error}</p>` : ''}
<form method="post" action="/console/login">
  <input type="hidden" name="next" value="${o.next ?? '/console'}">
  ${auth.form.id ? html`<label>${auth.form.id}<input name="clientId" autocomplete="username" required></label>` : ''}
  <label>${auth.form.secret}<input name="clientSecret" type="password" autocomplete="current-password" required></label>
  <button type="submit">Sign in</button>
</form>
${auth.form.hint ? html`<p class="hint">${auth.form.hint}</p>` : ''}
</section>`,
  });
}

export interface GuardOptions {
  auth: ConsoleAuth;
  sessions: Sessions;
  kind: string;
  /** Told of every sign-in through the form (the demo starts its flows on the first). */
  onSignIn?: (principal: Principal) => void;
}

/**
 * Registers /console/login and /console/logout on `scope` and a check before every other route of
 * it: the request's principal from a bearer token or a session cookie, or a 401.
 */
export function installAuth(scope: FastifyInstance, o: GuardOptions): void {
  const open = new Set(['/console/login', '/console/logout']);
  scope.decorateRequest('consolePrincipal', undefined);

  scope.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0]!;
    if (open.has(path) || path.startsWith('/console/assets/')) return;
    if (request.headers.authorization !== undefined) {
      request.consolePrincipal = await o.auth.bearer(request);
      return;
    }
    const sid = cookieValue(request.headers.cookie, SESSION_COOKIE);
    const principal = o.sessions.get(sid);
    if (principal && (!o.auth.stillAllowed || (await o.auth.stillAllowed(principal)))) {
      request.consolePrincipal = principal;
      return;
    }
    if (principal) o.sessions.delete(sid);
    if (wantsPage(request)) {
      return reply.code(401).type('text/html; charset=utf-8').send(loginPage(o.auth, o.kind, { next: request.url }).value);
    }
    // htmx follows HX-Redirect to the login page; scripts read the problem.
    reply.header('HX-Redirect', '/console/login');
    return sendProblem(request, reply, problem('unauthorized', 'sign in to the console, or send Authorization: Bearer'));
  });

  scope.get('/console/login', { schema: { hide: true } }, async (request, reply) => {
    const next = safeNext((request.query as Record<string, unknown>).next);
    return reply.type('text/html; charset=utf-8').send(loginPage(o.auth, o.kind, { next }).value);
  });

  scope.post('/console/login', { schema: { hide: true } }, async (request, reply) => {
    assertSameOrigin(request);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const id = typeof body.clientId === 'string' ? body.clientId : undefined;
    const secret = typeof body.clientSecret === 'string' ? body.clientSecret : '';
    const next = safeNext(body.next);
    const form = (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    let principal: Principal;
    try {
      if (secret === '' || (o.auth.form.id && !id)) throw problem('invalid_client', 'give the client id and secret');
      principal = await o.auth.signIn({ ...(id !== undefined ? { id } : {}), secret }, request);
    } catch (err) {
      if (!form) throw err;
      const status = (err as { status?: number }).status ?? 401;
      // An access code (a wallet's, the mediator's) has no client to be unknown.
      const wrong = o.auth.form.id ? 'Unknown client or wrong secret.' : 'Wrong access code.';
      const text = status === 429 ? 'Too many attempts; wait a moment.' : status === 403 ? 'This client may not use the console (it needs the idsync:admin scope).' : wrong;
      return reply.code(status).type('text/html; charset=utf-8').send(loginPage(o.auth, o.kind, { next, error: text }).value);
    }
    const sid = o.sessions.create(principal);
    reply.header('set-cookie', sessionCookie(request, sid, Math.floor(SESSION_TTL_MS / 1000)));
    o.onSignIn?.(principal);
    if (!form) return { signedIn: principal.subject };
    return reply.code(303).header('location', next).send();
  });

  scope.post('/console/logout', { schema: { hide: true } }, async (request, reply) => {
    assertSameOrigin(request);
    o.sessions.delete(cookieValue(request.headers.cookie, SESSION_COOKIE));
    reply.header('set-cookie', sessionCookie(request, '', 0));
    return reply.code(303).header('location', '/console/login').send();
  });
}

/** The principal of a request past the guard. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.consolePrincipal) throw problem('unauthorized', 'sign in to the console');
  return request.consolePrincipal;
}

export function sendHtml(reply: FastifyReply, body: Html, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body.value);
}
