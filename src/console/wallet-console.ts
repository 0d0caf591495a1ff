// A wallet's console on a port of its own (`idsync wallet serve --console`): the wallet's flows,
// its messages live with their verdicts, and its threads as sequence diagrams, the same views as
// the service twin's where they apply. Access is an access code made at start and printed to the
// person who started the wallet (kept only hashed here); a script sends it as a bearer token.
import { timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyRequest } from 'fastify';
import { systemClock, type Clock } from '../clock.js';
import { createResolver, documentResolver } from '../did/resolver.js';
import { randomId, sha256 } from '../encoding.js';
import { listenError } from '../listen.js';
import { bearerChallenge } from '../service/http/bearer-challenge.js';
import { problem } from '../service/http/problem.js';
import { installProblemHandlers } from '../service/http/problem-handlers.js';
import type { Wallet, WalletEventMap } from '../wallet/wallet.js';
import type { ConsoleAuth } from './auth.js';
import type { ConsoleContext } from './context.js';
import { liveHub, type LiveOptions } from './live.js';
import { messageFeed } from './message-feed.js';
import { installConsoleBasics } from './scope.js';
import { createSessions } from './sessions.js';
import { registerConformanceViews } from './conformance/register.js';
import { conformanceRunner } from './conformance/runner.js';
import { registerWalletOverview } from './views/wallet-overview.js';

export interface WalletConsoleOptions {
  port?: number;
  host?: string;
  /** The access code (default: 24 random bytes, base64url). */
  accessCode?: string;
  clock?: Clock;
  live?: LiveOptions;
}

export interface WalletConsole {
  /** Base URL of the console, e.g. http://127.0.0.1:5300/console. */
  url: string;
  /** What a person signs in with: show it to them once. */
  accessCode: string;
  close(): Promise<void>;
}

/** Wallet events after which the overview may have changed. */
const WALLET_EVENTS: (keyof WalletEventMap)[] = [
  'connection-established', 'credential-received', 'credential-status-changed', 'credential-refused', 'offer-received', 'offer-pending',
  'proof-request-pending', 'invitation-received', 'thread-ended', 'problem-received', 'presentation-sent', 'collecting-changed',
];

const BEARER = /^Bearer +(\S+) *$/i;

function walletAuth(code: string): ConsoleAuth {
  const expected = Buffer.from(sha256(code));
  const matches = (given: string) => timingSafeEqual(Buffer.from(sha256(given)), expected);
  return {
    form: { secret: 'Access code', hint: 'Printed by idsync wallet serve --console when it started.' },
    async signIn({ secret }) {
      if (!matches(secret)) throw problem('invalid_client', 'wrong access code');
      return { subject: 'wallet' };
    },
    async bearer(request: FastifyRequest) {
      const m = BEARER.exec(request.headers.authorization ?? '');
      if (!m || !matches(m[1]!)) throw problem('invalid_token', 'send Authorization: Bearer <access code>', undefined, { 'WWW-Authenticate': bearerChallenge('invalid_token') });
      return { subject: 'wallet' };
    },
  };
}

export async function startWalletConsole(wallet: Wallet, o: WalletConsoleOptions = {}): Promise<WalletConsole> {
  await wallet.init();
  const clock = o.clock ?? wallet.options.clock ?? systemClock;
  const accessCode = o.accessCode ?? randomId(24);
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  installProblemHandlers(app);
  const hub = liveHub(o.live);
  const feed = messageFeed({
    store: wallet.options.store,
    clock,
    packedSource: (listener) => {
      const on = (e: WalletEventMap['message']) => {
        if (e.packed !== undefined) listener({ direction: e.direction, ...(typeof e.message?.id === 'string' ? { id: e.message.id } : {}), packed: e.packed });
      };
      wallet.on('message', on);
      return () => void wallet.off('message', on);
    },
  });
  const runner = conformanceRunner({ store: wallet.options.store, clock, resolve: documentResolver(createResolver({})) });
  const ctx: ConsoleContext = {
    kind: 'wallet',
    label: 'wallet',
    nav: [
      { key: 'overview', href: '/console/overview', label: 'Flows' },
      { key: 'messages', href: '/console/messages', label: 'Messages' },
      { key: 'threads', href: '/console/threads', label: 'Threads' },
      { key: 'conformance', href: '/console/conformance', label: 'Conformance' },
    ],
    hub,
    feed,
    clock,
    self: { name: 'wallet', dids: () => [wallet.did, wallet.shortDid] },
    conformance: { runner, targets: async () => [{ key: 'wallet', label: 'this wallet', target: async () => wallet.did }] },
  };
  const changed = () => hub.changed();
  feed.watch(changed);
  for (const name of WALLET_EVENTS) wallet.on(name, changed);
  const sessions = createSessions({ clock });
  await app.register(async (scope) => {
    installConsoleBasics(scope, ctx, { auth: walletAuth(accessCode), sessions, kind: ctx.label }, '/console/overview');
    registerWalletOverview(scope, ctx, wallet);
    registerConformanceViews(scope, ctx);
  });
  app.addHook('preClose', async () => {
    hub.close();
    await runner.close();
  });
  const host = o.host ?? '127.0.0.1';
  const port = o.port ?? 0;
  await app.listen({ port, host }).catch((err: unknown) => {
    throw listenError(err, host, port);
  });
  const addr = app.server.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}/console`,
    accessCode,
    async close() {
      for (const name of WALLET_EVENTS) wallet.off(name, changed);
      feed.close();
      await app.close();
    },
  };
}
