// The service twin's console at /console: a plugin for createService (`plugins: [serviceConsole()]`)
// that mounts the views on the service's own server. It reads the twin's state through the
// service's modules and follows it live through their events: the message log, the DIDComm
// agent's router and events, the webhook dispatcher, the outbox, and every API call that changes
// something. Given a fault switch, faults are turned on and off from the browser; given a wallet
// (or not: one is made in this process on first use), e-mailed invitations are accepted from it.
import type { FastifyInstance } from 'fastify';
import { createResolver, documentResolver } from '../did/resolver.js';
import type { RouterResult } from '../router/router.js';
import type { ServicePlugin } from '../service/app.js';
import type { ServiceDeps } from '../service/deps.js';
import type { ServiceDidcommAgent } from '../service/didcomm/agent.js';
import { openStore } from '../store/store.js';
import type { FaultSwitch } from '../testing/fault-switch.js';
import { createWallet, type Wallet } from '../wallet/wallet.js';
import type { Principal } from './sessions.js';
import { createSessions } from './sessions.js';
import { registerConformanceViews } from './conformance/register.js';
import { conformanceRunner } from './conformance/runner.js';
import { MESSAGE_NAV } from './context.js';
import { liveHub, type LiveOptions } from './live.js';
import { messageFeed, type PackedSighting } from './message-feed.js';
import { installConsoleBasics } from './scope.js';
import { serviceAuth } from './service-auth.js';
import { serviceKnowsThread, userMessagePredicate, userOfDid, type ServiceConsoleContext } from './service-context.js';
import { registerFaultsView } from './views/faults.js';
import { registerOutboxView } from './views/outbox.js';
import { registerUserView } from './views/user.js';
import { registerUsersView } from './views/users.js';
import { registerWebhooksView } from './views/webhooks.js';
import { registerWorkflowsView } from './views/workflows.js';

export interface ServiceConsoleOptions {
  /** The twin's fault switch (testing/fault-switch.ts): with it, the faults view turns faults on and off. */
  faults?: FaultSwitch;
  /** The wallet that accepts invitations from the outbox view; default one made in this process (memory store, HTTP on 127.0.0.1) on first use. */
  wallet?: () => Wallet | Promise<Wallet>;
  /** Told of every sign-in through the login form. */
  onSignIn?: (principal: Principal) => void;
  live?: LiveOptions;
  sessionTtlMs?: number;
}

/** Agent events after which what the console shows may have changed (didcomm/agent.ts lists them). */
const AGENT_EVENTS = [
  'data-pipe-established', 'data-pipe-closed', 'sync-requested', 'sync-started', 'sync-completed', 'sync-failed', 'sync-aborted',
  'credential-issued', 'credential-status-changed', 'workflow-in-progress', 'workflow-completed', 'workflow-failed',
  'message-queued', 'message-delivered', 'message-dropped', 'pickup-delivered',
];

function packedSource(agent: Partial<ServiceDidcommAgent>) {
  const router = agent.router;
  if (!router) return undefined;
  return (listener: (p: PackedSighting) => void) => {
    const onResult = (r: RouterResult, packed?: string) => {
      if (packed !== undefined) listener({ direction: 'in', ...(typeof r.message?.id === 'string' ? { id: r.message.id } : {}), packed });
    };
    const onSent = (e: { message: { id: string }; packed: string }) => listener({ direction: 'out', id: e.message.id, packed: e.packed });
    router.events.on('result', onResult);
    router.events.on('sent', onSent);
    return () => {
      router.events.off('result', onResult);
      router.events.off('sent', onSent);
    };
  };
}

/** A wallet in this process, made on first use: a memory store and an HTTP endpoint on 127.0.0.1. */
function inProcessWallet() {
  let made: Promise<{ wallet: Wallet; close(): Promise<void> }> | undefined;
  return {
    get: async () => {
      made ??= (async () => {
        const store = await openStore();
        const wallet = createWallet({ store });
        await wallet.listen({ http: { port: 0, host: '127.0.0.1' } });
        return { wallet, close: async () => (await wallet.close(), await store.close()) };
      })();
      made.catch(() => (made = undefined));
      return (await made).wallet;
    },
    close: async () => {
      const m = await made?.catch(() => undefined);
      await m?.close();
    },
  };
}

export function serviceConsole(o: ServiceConsoleOptions = {}): ServicePlugin {
  return async (app, deps) => {
    const agent = deps.agent as Partial<ServiceDidcommAgent>;
    const hub = liveHub(o.live);
    const feed = messageFeed({
      store: deps.store,
      clock: deps.clock,
      packedSource: packedSource(agent),
      ...(o.faults ? { faultSource: (l) => o.faults!.watch(l) } : {}),
      outboundLabel: 'to-wallet',
    });
    const own = o.wallet ? undefined : inProcessWallet();
    const runner = conformanceRunner({ store: deps.store, clock: deps.clock, resolve: documentResolver(createResolver({})) });
    const wallet = async () => (o.wallet ? o.wallet() : own!.get());
    const ctx: ServiceConsoleContext = {
      kind: 'service',
      label: 'service twin',
      nav: [
        { key: 'users', href: '/console/users', label: 'Users' },
        { key: 'workflows', href: '/console/workflows', label: 'Workflows' },
        ...MESSAGE_NAV,
        { key: 'outbox', href: '/console/outbox', label: 'Outbox' },
        { key: 'webhooks', href: '/console/webhooks', label: 'Webhooks' },
        { key: 'faults', href: '/console/faults', label: 'Faults' },
        { key: 'conformance', href: '/console/conformance', label: 'Conformance' },
      ],
      hub,
      feed,
      clock: deps.clock,
      self: { name: 'service', dids: () => [deps.serviceDid] },
      deps,
      ...(o.faults ? { faults: o.faults } : {}),
      wallet,
      userMessages: (tenantId, userId) => userMessagePredicate(deps, tenantId, userId),
      peerName: (tenantId, did) => userOfDid(deps, tenantId, did),
      knowsThread: (tenantId, thid) => serviceKnowsThread(deps, tenantId, thid),
      conformance: {
        runner,
        targets: async () => [
          { key: 'service', label: 'the twin’s own agent', target: async () => deps.serviceDid },
          { key: 'wallet', label: 'the console’s wallet', target: async () => (await wallet()).did },
        ],
      },
    };
    followChanges(app, deps, agent, ctx);
    app.addHook('preClose', async () => {
      hub.close();
      // Runs under way end (after their current case) before the store closes under them.
      await runner.close();
    });
    app.addHook('onClose', async () => {
      feed.close();
      await own?.close();
    });
    const sessions = createSessions({ clock: deps.clock, ...(o.sessionTtlMs !== undefined ? { ttlMs: o.sessionTtlMs } : {}) });
    const auth = serviceAuth(app, deps);
    await app.register(async (scope) => {
      installConsoleBasics(scope, ctx, { auth, sessions, kind: ctx.label, ...(o.onSignIn ? { onSignIn: o.onSignIn } : {}) }, '/console/users');
      registerUsersView(scope, ctx);
      registerUserView(scope, ctx);
      registerWorkflowsView(scope, ctx);
      registerOutboxView(scope, ctx);
      registerWebhooksView(scope, ctx);
      registerFaultsView(scope, ctx);
      registerConformanceViews(scope, ctx);
    });
  };
}

/** Whatever may change what a page shows tells the live hub (it throttles). */
function followChanges(app: FastifyInstance, deps: ServiceDeps, agent: Partial<ServiceDidcommAgent>, ctx: ServiceConsoleContext): void {
  const changed = () => ctx.hub.changed();
  ctx.feed.watch(changed);
  for (const name of AGENT_EVENTS) agent.events?.on(name, changed);
  for (const name of ['delivered', 'retry', 'dead'] as const) deps.webhooks?.on(name, changed);
  deps.issuance?.outbox.on('entry', changed);
  deps.issuance?.outbox.on('update', changed);
  // A REST call that changes something (a user's datapoints, a new workflow) changes what pages show.
  app.addHook('onResponse', async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && !request.url.startsWith('/console')) changed();
  });
}
