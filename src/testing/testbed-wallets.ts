// The testbed's wallets as restartable parties: each runs on a fenced handle (fenced-store.ts)
// over a store that outlives it, so crash() cuts it off at once and restart() builds a new
// Wallet on the same data, listening where its DID says (same memory URL, same port), collecting
// by pickup or going live again as before.
import type { MemoryNetwork } from '../didcomm/transport/memory.js';
import type { Transport, InboundHandler } from '../didcomm/types.js';
import { IdsyncError, toIdsyncError } from '../errors.js';
import type { Store } from '../store/store.js';
import type { WalletPolicy } from '../wallet/policies.js';
import { createWallet, type Wallet } from '../wallet/wallet.js';
import type { WalletOptions } from '../wallet/options.js';
import { fencedStore, type FencedStore } from './fenced-store.js';
import { fencedNetwork, fencedTransport } from './fenced-transport.js';
import { startOnRestartablePort } from './restartable-port.js';

export type WalletMode = 'endpoint' | 'pickup' | 'live' | 'mediated';

/** What a wallet of the testbed needs from the rest of it. */
export interface WalletHost {
  network?: MemoryNetwork;
  serviceDid(): string;
  memoryEndpoint?(): string | undefined;
  /** Memory transport: a fetch reaching the current service. */
  fetch?: typeof fetch;
  clock?: WalletOptions['clock'];
  envelopeEngine?: WalletOptions['envelopeEngine'];
  retry?: WalletOptions['retry'];
  didMethod?: WalletOptions['didMethod'];
  /** Wraps each outbound transport (faults, the crash fence). */
  wrapTransport?: (t: Transport, inbound: InboundHandler) => Transport;
  errors: IdsyncError[];
  /** Mode 'mediated': the testbed's mediator (started on first use). */
  mediator?(): Promise<{ invitationUrl: string; live: boolean }>;
}

export interface WalletParty {
  readonly index: number;
  readonly mode: WalletMode;
  wallet: Wallet;
  /** Kicks a pickup (pickup mode). */
  kick(): void;
  crash(): Promise<void>;
  restart(): Promise<Wallet>;
  /** Crashes the first time the wallet reaches crash point `step`; resolves then. */
  crashAt(step: string): Promise<void>;
  readonly crashed: boolean;
  close(): Promise<void>;
}

export async function startWalletParty(host: WalletHost, store: Store, index: number, mode: WalletMode, policy?: WalletPolicy): Promise<WalletParty> {
  let fence: FencedStore;
  let wallet: Wallet;
  let pump: Pump | undefined;
  let crashed = false;
  let port: number | undefined;
  let generation = 0;
  let armed: { step: string; crashed: () => void } | undefined;
  const crashPoint = (step: string) => {
    if (!armed || armed.step !== step || crashed) return;
    const a = armed;
    armed = undefined;
    void party.crash().finally(a.crashed);
    throw new IdsyncError('store_closed', `crashed at ${step} (testbed crashAt)`, { details: { processGone: true } });
  };

  async function boot(): Promise<Wallet> {
    fence = fencedStore(store);
    const mine = ++generation;
    const alive = (t: Transport): Transport => fencedTransport(t, () => mine === generation && !crashed);
    // Its endpoint answers like a killed process once it crashed (fenced-transport.ts).
    const network = host.network ? fencedNetwork(host.network, () => mine === generation && !crashed) : undefined;
    if (mode === 'mediated' && !host.mediator) throw new IdsyncError('invalid_argument', "walletMode 'mediated' needs the testbed's mediator");
    // A restarted wallet finds its grant in its store; the option only matters the first time.
    const m = mode === 'mediated' ? await host.mediator!() : undefined;
    const w = createWallet({
      store: fence,
      ...(m ? { mediator: m.invitationUrl, mediation: { live: m.live, pollIntervalMs: 25 } } : {}),
      ...(host.clock ? { clock: host.clock } : {}),
      ...(host.envelopeEngine ? { envelopeEngine: host.envelopeEngine } : {}),
      ...(host.retry ? { retry: host.retry } : {}),
      ...(host.didMethod ? { didMethod: host.didMethod } : {}),
      crashPoint,
      ...(policy ? { policy } : {}),
      // A crashed wallet sends nothing more, whatever it still had in flight.
      wrapTransport: (t: Transport, inbound: InboundHandler) => alive(host.wrapTransport ? host.wrapTransport(t, inbound) : t),
      ...(network
        ? {
            transports: [(inbound: InboundHandler) => network.transport({ onInbound: inbound })],
            routes: { [host.serviceDid()]: host.memoryEndpoint!()! },
            ...(host.fetch ? { fetch: host.fetch } : {}),
          }
        : {}),
    });
    if (mode === 'endpoint') {
      // The DID names this port: a restart listens on it again, so the first start picks one it can.
      const listening = network
        ? await w.listen({ memory: { network, url: `memory://wallet-${index}` } })
        : port
          ? await w.listen({ http: { host: '127.0.0.1', port } })
          : await startOnRestartablePort((p) => w.listen({ http: { host: '127.0.0.1', port: p } }));
      if (listening.http) port = Number(new URL(listening.http).port);
    } else {
      await w.init();
    }
    if (mode === 'pickup') pump = pickupPump(w, host.serviceDid(), host.errors);
    if (mode === 'live') await w.goLive(host.serviceDid());
    return w;
  }

  wallet = await boot();
  const party: WalletParty = {
    index,
    mode,
    get wallet() {
      return wallet;
    },
    set wallet(w) {
      wallet = w;
    },
    get crashed() {
      return crashed;
    },
    kick: () => pump?.kick(),
    async crash() {
      if (crashed) return;
      crashed = true;
      // Cut off first: nothing in flight may write after the "process" died.
      fence.kill();
      await pump?.stop();
      pump = undefined;
      await wallet.close().catch(() => undefined);
    },
    async restart() {
      if (!crashed) await party.crash();
      wallet = await boot();
      crashed = false;
      return wallet;
    },
    crashAt(step) {
      return new Promise<void>((resolve) => (armed = { step, crashed: resolve }));
    },
    async close() {
      await pump?.stop();
      if (!crashed) await wallet.close();
    },
  };
  return party;
}

/**
 * Message Pickup on demand: a kick starts a pickup, or, while one runs, asks for one more round
 * after it (a message queued during a pickup may have missed it).
 */
interface Pump {
  kick(): void;
  /** No more pickups; resolves when the running one ended. */
  stop(): Promise<void>;
}

function pickupPump(wallet: Wallet, serviceDid: string, errors: IdsyncError[]): Pump {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const run = async () => {
    do {
      again = false;
      await wallet.pickup(serviceDid).catch((err) => void errors.push(toIdsyncError(err)));
    } while (again && !stopped);
  };
  return {
    kick() {
      if (stopped) return;
      if (running) again = true;
      else running = run().finally(() => (running = undefined));
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}
