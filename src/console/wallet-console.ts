// A wallet's console on a port of its own (`idsync wallet serve --console`): the wallet's flows,
// its messages live with their verdicts, and its threads as sequence diagrams, the same views as
// the service twin's where they apply. Access is an access code made at start and printed to the
// person who started the wallet (kept only hashed here); a script sends it as a bearer token.
import { systemClock, type Clock } from '../clock.js';
import { createResolver, documentResolver } from '../did/resolver.js';
import type { Wallet, WalletEventMap } from '../wallet/wallet.js';
import { MESSAGE_NAV, type ConsoleContext } from './context.js';
import { liveHub, type LiveOptions } from './live.js';
import { messageFeed } from './message-feed.js';
import { registerConformanceViews } from './conformance/register.js';
import { conformanceRunner } from './conformance/runner.js';
import { startStandaloneConsole, type StandaloneConsole, type StandaloneConsoleOptions } from './standalone.js';
import { registerWalletOverview } from './views/wallet-overview.js';

export interface WalletConsoleOptions extends StandaloneConsoleOptions {
  clock?: Clock;
  live?: LiveOptions;
}

export type WalletConsole = StandaloneConsole;

/** Wallet events after which the overview may have changed. */
const WALLET_EVENTS: (keyof WalletEventMap)[] = [
  'connection-established', 'credential-received', 'credential-status-changed', 'credential-refused', 'offer-received', 'offer-pending',
  'proof-request-pending', 'invitation-received', 'thread-ended', 'problem-received', 'presentation-sent', 'collecting-changed',
];

/** Whether the wallet keeps a thread: a protocol thread, a Data Pipe, or an item waiting for approval. */
async function walletKnowsThread(wallet: Wallet, thid: string): Promise<boolean> {
  const [threads, connections, pending] = await Promise.all([wallet.threads(), wallet.connections(), wallet.pending()]);
  return threads.some((t) => t.thid === thid) || connections.some((c) => c.id === thid) || pending.some((p) => p.thid === thid);
}

export async function startWalletConsole(wallet: Wallet, o: WalletConsoleOptions = {}): Promise<WalletConsole> {
  await wallet.init();
  const clock = o.clock ?? wallet.options.clock ?? systemClock;
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
      ...MESSAGE_NAV,
      { key: 'conformance', href: '/console/conformance', label: 'Conformance' },
    ],
    hub,
    feed,
    clock,
    self: { name: 'wallet', dids: () => [wallet.did, wallet.shortDid] },
    knowsThread: (_, thid) => walletKnowsThread(wallet, thid),
    conformance: { runner, targets: async () => [{ key: 'wallet', label: 'this wallet', target: async () => wallet.did }] },
  };
  const changed = () => hub.changed();
  feed.watch(changed);
  for (const name of WALLET_EVENTS) wallet.on(name, changed);
  return startStandaloneConsole(
    {
      ctx,
      home: '/console/overview',
      hint: 'Printed by idsync wallet serve --console when it started.',
      register: (scope) => {
        registerWalletOverview(scope, ctx, wallet);
        registerConformanceViews(scope, ctx);
      },
      onClose: async () => {
        for (const name of WALLET_EVENTS) wallet.off(name, changed);
        feed.close();
        await runner.close();
      },
    },
    o,
  );
}
