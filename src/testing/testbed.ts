// startTestbed: the service twin and N holder wallets in this process, wired to each other over
// an in-memory network or real sockets on 127.0.0.1, with a webhook receiver subscribed to every
// event. What QA tests start from (see test/testing/example.test.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../clock.js';
import { memoryNetwork, type MemoryNetwork } from '../didcomm/transport/memory.js';
import type { EnvelopeEngine } from '../didcomm/types.js';
import { ionShortForm } from '../did/ion-form.js';
import { IdsyncError, toIdsyncError } from '../errors.js';
import type { ServiceDeps } from '../service/deps.js';
import type { ServiceDidcommAgent } from '../service/didcomm/agent.js';
import type { Outbox } from '../service/issuance/invitation-outbox.js';
import { openStore, type Store } from '../store/store.js';
import type { WalletPolicy } from '../wallet/policies.js';
import { createWallet, type Wallet } from '../wallet/wallet.js';
import type { ChangeFeed } from './changes.js';
import type { ServiceClient } from './rest-client.js';
import { startServiceTwin, type ServiceTwin, type TwinServiceOptions } from './service-twin.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhooks.js';

export type WalletMode = 'endpoint' | 'pickup' | 'live';

export interface TestbedOptions {
  /** Holder wallets to create (default 1); more with addWallet(). */
  wallets?: number;
  /** 'memory' (default) or 'temp': LevelDB folders in the OS temp dir, removed by close(). */
  storage?: 'memory' | 'temp';
  /** 'memory' (default): no sockets; 'http': real HTTP on 127.0.0.1, port 0. */
  transport?: 'memory' | 'http';
  /**
   * How wallets receive: 'endpoint' (default) an inbound endpoint named in their DID; 'pickup' no
   * endpoint, Message Pickup collects what the service queues (the testbed pumps it whenever the
   * service queues something for the wallet); 'live' no endpoint, a WebSocket with live delivery
   * (http transport only).
   */
  walletMode?: WalletMode;
  /** Wallet policy for offers and proof requests (default 'auto'). */
  policy?: WalletPolicy;
  /** Client credentials, project, issuance format, data profile… of the service. */
  service?: TwinServiceOptions;
  clock?: Clock;
  /** Subscribe a local receiver to every webhook (default true). */
  webhooks?: boolean;
  /** Envelope engine of the service and every wallet: 'native' (default) or 'didcomm-node'. */
  envelopeEngine?: EnvelopeEngine;
}

export interface TestbedService {
  /** Base URL (memory transport: a name served without sockets). */
  url: string;
  did: string;
  client: ServiceClient;
  credentials: ServiceTwin['credentials'];
  /** The service's internals, for assertions the API does not offer. */
  deps: ServiceDeps;
  agent: ServiceDidcommAgent;
  /** nextOutboxEntry(testbed.service, …) reads these. */
  outbox: Outbox;
  tenantId: string;
  changes: ChangeFeed;
}

export interface AddWalletOptions {
  mode?: WalletMode;
  policy?: WalletPolicy;
}

export interface Testbed {
  service: TestbedService;
  wallets: Wallet[];
  webhooks: WebhookReceiver;
  /** The in-memory network (memory transport). */
  network?: MemoryNetwork;
  addWallet(options?: AddWalletOptions): Promise<Wallet>;
  /** Failures of background work the testbed does for wallets (pickup pumping). */
  errors: IdsyncError[];
  close(): Promise<void>;
}

interface Closer {
  (): Promise<void>;
}

export async function startTestbed(options: TestbedOptions = {}): Promise<Testbed> {
  const transport = options.transport ?? 'memory';
  const storage = options.storage ?? 'memory';
  const defaultMode = options.walletMode ?? 'endpoint';
  if (defaultMode === 'live' && transport !== 'http') throw new IdsyncError('invalid_argument', "walletMode 'live' needs transport 'http' (live delivery runs on a WebSocket)");
  const closers: Closer[] = [];
  const errors: IdsyncError[] = [];
  const network = transport === 'memory' ? memoryNetwork() : undefined;

  const openOne = async (label: string): Promise<Store> => {
    if (storage === 'memory') {
      const store = await openStore();
      closers.push(() => store.close());
      return store;
    }
    const dir = await mkdtemp(join(tmpdir(), `idsync-testbed-${label}-`));
    // Registered before opening: the folder goes even if opening fails.
    closers.push(() => rm(dir, { recursive: true, force: true }));
    const store = await openStore({ path: dir });
    closers.push(() => store.close());
    return store;
  };

  try {
    const twin = await startServiceTwin({
      ...(options.envelopeEngine ? { envelopeEngine: options.envelopeEngine } : {}),
      ...options.service,
      store: await openOne('service'),
      transport,
      ...(network ? { network } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
    closers.push(() => twin.close());

    const webhooks = await startWebhookReceiver(options.clock ? { clock: options.clock } : {});
    closers.push(() => webhooks.close());
    if (options.webhooks !== false) {
      await twin.service.deps.webhooks!.subscribe({ url: webhooks.url, secret: webhooks.secret, tenantId: twin.credentials.tenantId, description: 'testbed' });
    }

    // Pickup-mode wallets collect whenever the service queues something for them.
    const pumps = new Map<string, Pump>();
    twin.agent.events.on('message-queued', (e: { to: string }) => pumps.get(ionShortForm(e.to))?.kick());

    const wallets: Wallet[] = [];
    let n = 0;
    const addWallet = async (o: AddWalletOptions = {}): Promise<Wallet> => {
      const mode = o.mode ?? defaultMode;
      if (mode === 'live' && transport !== 'http') throw new IdsyncError('invalid_argument', "walletMode 'live' needs transport 'http'");
      const index = ++n;
      const store = await openOne(`wallet-${index}`);
      const wallet = createWallet({
        store,
        ...(options.clock ? { clock: options.clock } : {}),
        ...(options.envelopeEngine ? { envelopeEngine: options.envelopeEngine } : {}),
        ...(o.policy ?? options.policy ? { policy: o.policy ?? options.policy } : {}),
        ...(network
          ? {
              transports: [(inbound) => network.transport({ onInbound: inbound })],
              routes: { [twin.did]: twin.memoryEndpoint! },
              fetch: twin.fetch,
            }
          : {}),
      });
      closers.push(() => wallet.close());
      if (mode === 'endpoint') {
        await wallet.listen(network ? { memory: { network, url: `memory://wallet-${index}` } } : { http: { host: '127.0.0.1', port: 0 } });
      } else {
        await wallet.init();
      }
      if (mode === 'pickup') {
        const pump = pickupPump(wallet, twin.did, errors);
        pumps.set(wallet.shortDid, pump);
        // Runs before wallet.close() (closers run newest first).
        closers.push(() => pump.stop());
      }
      if (mode === 'live') await wallet.goLive(twin.did);
      wallets.push(wallet);
      return wallet;
    };
    // Sequential: each wallet creates a DID and opens a store; concurrency would not buy much here.
    for (let i = 0; i < (options.wallets ?? 1); i++) await addWallet();

    let closed = false;
    return {
      service: {
        url: twin.url,
        did: twin.did,
        client: twin.client,
        credentials: twin.credentials,
        deps: twin.service.deps,
        agent: twin.agent,
        outbox: twin.service.deps.issuance!.outbox,
        tenantId: twin.credentials.tenantId,
        changes: twin.changes,
      },
      wallets,
      webhooks,
      ...(network ? { network } : {}),
      addWallet,
      errors,
      async close() {
        if (closed) return;
        closed = true;
        await closeAll(closers);
      },
    };
  } catch (err) {
    await closeAll(closers);
    throw err;
  }
}

/** Runs closers newest first (wallets, then the service, then stores, then folders); all of them run. */
async function closeAll(closers: Closer[]): Promise<void> {
  let first: unknown;
  for (const c of closers.splice(0).reverse()) {
    try {
      await c();
    } catch (err) {
      first ??= err;
    }
  }
  if (first) throw first;
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
