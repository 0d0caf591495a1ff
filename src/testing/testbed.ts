// startTestbed: the service twin and N holder wallets in this process, wired to each other over
// an in-memory network or real sockets on 127.0.0.1, with a webhook receiver subscribed to every
// event. What QA tests start from (see test/testing/example.test.ts).
import type { Clock } from '../clock.js';
import { memoryNetwork, type MemoryNetwork } from '../didcomm/transport/memory.js';
import type { EnvelopeEngine, InboundHandler, Transport } from '../didcomm/types.js';
import { shortForm } from '../did/short-form.js';
import { IdsyncError } from '../errors.js';
import type { ServiceDeps } from '../service/deps.js';
import type { ServiceDidcommAgent } from '../service/didcomm/agent.js';
import type { Outbox } from '../service/issuance/invitation-outbox.js';
import { openStore, type Store } from '../store/store.js';
import { openTemporaryStore } from '../store/temporary.js';
import type { WalletPolicy } from '../wallet/policies.js';
import type { WalletDidMethod } from '../wallet/identity.js';
import type { StepRetryOptions } from '../wallet/options.js';
import type { Wallet } from '../wallet/wallet.js';
import type { ChangeFeed } from './changes.js';
import { faultInjector, type FaultInjector, type FaultPlan } from './fault-plan.js';
import { faultyInbound, faultyTransport } from './faulty-transport.js';
import type { ServiceClient } from './rest-client.js';
import type { ServiceTwin, TwinServiceOptions } from './service-twin.js';
import { startServiceParty } from './testbed-service.js';
import { startWalletParty, type WalletMode, type WalletParty } from './testbed-wallets.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhooks.js';
import { startTestbedMediator, type TestbedMediator } from './testbed-mediator.js';
import { checkTestbedOptions, checkWalletMode } from './testbed-options.js';
import { trace, type TraceOptions, type TraceResult } from './trace.js';
import { registerTracer } from './trace-registry.js';

export type { WalletMode } from './testbed-wallets.js';

export interface TestbedOptions {
  /** Holder wallets to create (default 1); more with addWallet(). */
  wallets?: number;
  /**
   * 'memory' (default) or 'temp': LevelDB folders in the OS temp dir, removed by close() (or, if
   * it never runs, when the process exits: store/temporary.ts).
   */
  storage?: 'memory' | 'temp';
  /** 'memory' (default): no sockets; 'http': real HTTP on 127.0.0.1, port 0. */
  transport?: 'memory' | 'http';
  /**
   * How wallets receive: 'endpoint' (default) an inbound endpoint named in their DID; 'pickup' no
   * endpoint, Message Pickup collects what the service queues (the testbed pumps it whenever the
   * service queues something for the wallet); 'live' no endpoint, a WebSocket with live delivery
   * (http transport only); 'mediated' behind the testbed's own mediator (testbed-mediator.ts):
   * their DIDs name it, the service forwards to it, they collect live (http) or by polling (memory).
   */
  walletMode?: WalletMode;
  /** The method of the wallets' DIDs: 'ion' (default) or 'peer' (did:peer:2). */
  walletDidMethod?: WalletDidMethod;
  /** Wallet policy for offers and proof requests (default 'auto'). */
  policy?: WalletPolicy;
  /** Client credentials, project, issuance format, data profile… of the service. */
  service?: TwinServiceOptions;
  clock?: Clock;
  /** Subscribe a local receiver to every webhook (default true). */
  webhooks?: boolean;
  /**
   * Faults on the DIDComm messages between the service and the wallets (fault-plan.ts; README
   * "Testing flows under faults"). Rules' `direction` is 'to-service' or 'to-wallet'. One seeded
   * injector serves the whole testbed: `testbed.faults` records every fault applied. An injector
   * may be given instead, e.g. a faultSwitch (fault-switch.ts) to turn faults on and off while it runs.
   */
  faults?: FaultPlan | FaultInjector;
  /** Envelope engine of the service and every wallet: 'native' (default) or 'didcomm-node'. */
  envelopeEngine?: EnvelopeEngine;
  /**
   * Retries of unanswered protocol messages for the service and every wallet (router/steps);
   * default theirs (2 s doubling to 60 s, 10 minutes). Soaks use shorter ones.
   */
  retry?: StepRetryOptions;
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
  /** The mediator of 'mediated' wallets, once one was added. */
  readonly mediator?: TestbedMediator;
  addWallet(options?: AddWalletOptions): Promise<Wallet>;
  /** Failures of background work the testbed does for wallets (pickup pumping). */
  errors: IdsyncError[];
  /** With `faults`: every fault applied so far (`applied`, `counts()`). */
  faults?: FaultInjector;
  /**
   * Crashes the service (default) or one wallet as a kill -9 would: its store handle is cut off
   * at once (nothing in flight is written after), its endpoints close and it sends nothing more.
   * The store itself survives.
   */
  crash(party?: 'service' | Wallet): Promise<void>;
  /**
   * Starts a crashed party again (a running one is crashed first) on the same store and address:
   * its agent is rebuilt and resumes from what the store holds. A wallet comes back as a new
   * Wallet object, also put in its place in `wallets`.
   */
  restart(party?: 'service' | Wallet): Promise<Wallet | undefined>;
  /**
   * Crash tests: the party crashes (as crash() does) the first time it reaches crash point `step`
   * (crash-point.ts: `send:<message>` after the step's state is stored and before the message goes
   * out, `sent:<message>` after); resolves when it has crashed. Restart it with restart().
   */
  crashAt(party: 'service' | Wallet, step: string): Promise<void>;
  /** Every message of the service and the wallets as one sequence diagram, written to an HTML file (trace.ts). */
  trace(options?: TraceOptions): Promise<TraceResult>;
  close(): Promise<void>;
}

interface Closer {
  (): Promise<void>;
}

export async function startTestbed(options: TestbedOptions = {}): Promise<Testbed> {
  checkTestbedOptions(options as Record<string, unknown>);
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
    const temporary = await openTemporaryStore(`idsync-testbed-${label}-`);
    closers.push(() => temporary.close());
    return temporary.store;
  };

  try {
    const given = options.faults;
    const injector = given ? ('decide' in given ? given : faultInjector(given)) : undefined;
    const faulty = (labels: { out: string; in: string }) =>
      injector ? (t: Transport, late: (packed: string) => Promise<unknown>) => faultyTransport(t, injector, { labels, lateReplies: late }) : undefined;

    // Pickup-mode wallets collect whenever the service queues something for them.
    const parties: WalletParty[] = [];
    const onTwin = (twin: ServiceTwin) =>
      twin.agent.events.on('message-queued', (e: { to: string }) => {
        for (const p of parties) if (!p.crashed && p.wallet.shortDid === shortForm(e.to)) p.kick();
      });
    const service = await startServiceParty(
      await openOne('service'),
      {
        ...(options.envelopeEngine ? { envelopeEngine: options.envelopeEngine } : {}),
        ...options.service,
        ...(options.retry ? { agent: { retry: options.retry, ...options.service?.agent } } : {}),
        transport, ...(network ? { network } : {}), ...(options.clock ? { clock: options.clock } : {}) },
      { onTwin, ...(injector ? { wrapTransport: faulty({ out: 'to-wallet', in: 'to-service' }) } : {}) },
    );
    closers.push(() => service.close());
    const twin = () => service.twin;

    const webhooks = await startWebhookReceiver(options.clock ? { clock: options.clock } : {});
    closers.push(() => webhooks.close());
    if (options.webhooks !== false) {
      await twin().service.deps.webhooks!.subscribe({ url: webhooks.url, secret: webhooks.secret, tenantId: twin().credentials.tenantId, description: 'testbed' });
    }

    // Started when the first 'mediated' wallet is added; closed after the wallets (closers run newest first).
    let mediator: Promise<TestbedMediator> | undefined;
    let started: TestbedMediator | undefined;
    const mediatorFor = async () => {
      mediator ??= (async () => {
        const store = await openOne('mediator');
        const m = await startTestbedMediator({ store, ...(network ? { network } : {}), ...(options.clock ? { clock: options.clock } : {}), ...(options.envelopeEngine ? { engine: options.envelopeEngine } : {}) });
        closers.push(() => m.close());
        started = m;
        return m;
      })();
      return mediator;
    };

    const wallets: Wallet[] = [];
    const toService = faulty({ out: 'to-service', in: 'to-wallet' });
    const walletHost = {
      ...(network ? { network } : {}),
      serviceDid: () => twin().did,
      memoryEndpoint: () => twin().memoryEndpoint,
      // Reaches whichever twin runs now (the service may have restarted).
      ...(network ? { fetch: ((input, init) => twin().fetch(input, init)) as typeof fetch } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.envelopeEngine ? { envelopeEngine: options.envelopeEngine } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.walletDidMethod ? { didMethod: options.walletDidMethod } : {}),
      ...(toService
        ? {
            // Pushes and late replies reaching the wallet are 'to-wallet' too.
            wrapTransport: (t: Transport, inbound: InboundHandler) => toService(t, (p) => faultyInbound(inbound, injector!, { label: 'to-wallet' })(p, { transport: 'memory' })),
          }
        : {}),
      errors,
      mediator: mediatorFor,
    };
    let n = 0;
    let closed = false;
    const addWallet = async (o: AddWalletOptions = {}): Promise<Wallet> => {
      // A wallet added now would listen and hold its store with nothing left to close them.
      if (closed) throw new IdsyncError('invalid_state', 'the testbed is closed: start another one');
      checkWalletMode(o.mode);
      const mode = o.mode ?? defaultMode;
      if (mode === 'live' && transport !== 'http') throw new IdsyncError('invalid_argument', "walletMode 'live' needs transport 'http'");
      const index = ++n;
      const policy = o.policy ?? options.policy;
      const party = await startWalletParty(walletHost, await openOne(`wallet-${index}`), index, mode, policy);
      closers.push(() => party.close());
      parties.push(party);
      wallets.push(party.wallet);
      return party.wallet;
    };
    // Sequential: each wallet creates a DID and opens a store; concurrency would not buy much here.
    for (let i = 0; i < (options.wallets ?? 1); i++) await addWallet();

    const partyOf = (w: Wallet): WalletParty => {
      const p = parties.find((x) => x.wallet === w);
      if (!p) throw new IdsyncError('invalid_argument', 'not a wallet of this testbed (after a restart, use the Wallet restart() returned)');
      return p;
    };

    const bed: Testbed = {
      service: {
        get url() {
          return twin().url;
        },
        get did() {
          return twin().did;
        },
        get client() {
          return twin().client;
        },
        get credentials() {
          return twin().credentials;
        },
        get deps() {
          return twin().service.deps;
        },
        get agent() {
          return twin().agent;
        },
        get outbox() {
          return twin().service.deps.issuance!.outbox;
        },
        get tenantId() {
          return twin().credentials.tenantId;
        },
        get changes() {
          return twin().changes;
        },
      },
      wallets,
      webhooks,
      get mediator() {
        return started;
      },
      ...(network ? { network } : {}),
      ...(injector ? { faults: injector } : {}),
      addWallet,
      errors,
      async crash(party = 'service') {
        if (party === 'service') return service.crash();
        await partyOf(party).crash();
      },
      async restart(party = 'service') {
        if (party === 'service') {
          await service.restart();
          return undefined;
        }
        const p = partyOf(party);
        const i = wallets.indexOf(p.wallet);
        const w = await p.restart();
        if (i >= 0) wallets[i] = w;
        return w;
      },
      crashAt(party, step) {
        if (party === 'service') return service.crashAt(step);
        return partyOf(party).crashAt(step);
      },
      trace: (o) => trace({ service: { did: twin().did, deps: twin().service.deps }, wallets }, o),
      async close() {
        if (closed) return;
        closed = true;
        await closeAll(closers);
      },
    };
    // A wait that times out while this testbed runs writes its trace and names the file (wait.ts).
    const untrace = registerTracer(async () => (await bed.trace({ title: 'what happened before a wait timed out' })).file);
    closers.push(async () => untrace());
    return bed;
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
