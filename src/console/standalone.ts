// A console on a port of its own, for a party that has no HTTP API to mount it on (a wallet, the
// standalone mediator): its own fastify instance on 127.0.0.1, the common routes (sign-in,
// messages, threads, streams) and the party's views. Access is an access code made at start and
// printed to the person who started the party (kept only hashed here); a script sends it as a
// bearer token.
import { timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { randomId, sha256 } from '../encoding.js';
import { listenError, reachableUrlHost } from '../listen.js';
import { bearerChallenge } from '../service/http/bearer-challenge.js';
import { problem } from '../service/http/problem.js';
import { installProblemHandlers } from '../service/http/problem-handlers.js';
import type { ConsoleAuth } from './auth.js';
import type { ConsoleContext } from './context.js';
import { installConsoleBasics } from './scope.js';
import { createSessions } from './sessions.js';

export interface StandaloneConsoleOptions {
  port?: number;
  host?: string;
  /** The access code (default: 24 random bytes, base64url). */
  accessCode?: string;
}

export interface StandaloneConsole {
  /** Base URL of the console, e.g. http://127.0.0.1:5300/console. */
  url: string;
  /** What a person signs in with: show it to them once. */
  accessCode: string;
  close(): Promise<void>;
}

const BEARER = /^Bearer +(\S+) *$/i;

/** Sign-in with an access code; `subject` names the party in sessions ('wallet', 'mediator'). */
function accessCodeAuth(code: string, subject: string, hint: string): ConsoleAuth {
  const expected = Buffer.from(sha256(code));
  const matches = (given: string) => timingSafeEqual(Buffer.from(sha256(given)), expected);
  return {
    form: { secret: 'Access code', hint },
    async signIn({ secret }) {
      if (!matches(secret)) throw problem('invalid_client', 'wrong access code');
      return { subject };
    },
    async bearer(request: FastifyRequest) {
      const m = BEARER.exec(request.headers.authorization ?? '');
      if (!m || !matches(m[1]!)) throw problem('invalid_token', 'send Authorization: Bearer <access code>', undefined, { 'WWW-Authenticate': bearerChallenge('invalid_token') });
      return { subject };
    },
  };
}

export interface StandaloneParts {
  ctx: ConsoleContext;
  /** Where sign-in and the console's root lead. */
  home: string;
  /** Shown under the access code field: where the code was printed. */
  hint: string;
  /** The party's own views. */
  register(scope: FastifyInstance): void;
  /** As the server closes, after the live streams: what the party's views subscribed to, runners. */
  onClose?(): Promise<void> | void;
}

export async function startStandaloneConsole(parts: StandaloneParts, o: StandaloneConsoleOptions = {}): Promise<StandaloneConsole> {
  const accessCode = o.accessCode ?? randomId(24);
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  installProblemHandlers(app);
  const sessions = createSessions({ clock: parts.ctx.clock });
  await app.register(async (scope) => {
    installConsoleBasics(scope, parts.ctx, { auth: accessCodeAuth(accessCode, parts.ctx.kind, parts.hint), sessions, kind: parts.ctx.label }, parts.home);
    parts.register(scope);
  });
  app.addHook('preClose', async () => {
    parts.ctx.hub.close();
    await parts.onClose?.();
  });
  const host = o.host ?? '127.0.0.1';
  const port = o.port ?? 0;
  await app.listen({ port, host }).catch((err: unknown) => {
    throw listenError(err, host, port);
  });
  const addr = app.server.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  return { url: `http://${reachableUrlHost(host)}:${bound}/console`, accessCode, close: () => app.close() };
}
