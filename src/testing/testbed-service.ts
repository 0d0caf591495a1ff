// The testbed's service as a restartable party: the twin runs on a fenced handle over a store
// that outlives it. crash() cuts the handle off at once (work in flight can no longer write),
// stops its endpoints and silences its outbound transports; restart() starts a new twin on the
// same store at the same address (so its did:web stays the same) and the agent resumes from
// what the store holds.
import type { Transport } from '../didcomm/types.js';
import { IdsyncError } from '../errors.js';
import type { Store } from '../store/store.js';
import { fencedStore, type FencedStore } from './fenced-store.js';
import { fencedNetwork, fencedTransport } from './fenced-transport.js';
import { claimMemoryServiceUrl } from './memory-service-names.js';
import { startOnRestartablePort } from './restartable-port.js';
import { startServiceTwin, type ServiceTwin, type StartTwinOptions } from './service-twin.js';

export interface ServiceParty {
  /** The running twin (a new one after each restart). */
  readonly twin: ServiceTwin;
  readonly crashed: boolean;
  crash(): Promise<void>;
  restart(): Promise<ServiceTwin>;
  /** Crashes the first time the agent reaches crash point `step` (crash-point.ts); resolves then. */
  crashAt(step: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * `wrapTransport` wraps each outbound transport of every agent generation (faults); `onTwin` is
 * called with each new twin (to re-attach listeners).
 */
export async function startServiceParty(
  store: Store,
  options: Omit<StartTwinOptions, 'store'>,
  hooks: { wrapTransport?: (t: Transport, receive: (packed: string) => Promise<unknown>) => Transport; onTwin?: (twin: ServiceTwin) => void } = {},
): Promise<ServiceParty> {
  let fence: FencedStore;
  let twin: ServiceTwin;
  let crashed = false;
  let generation = 0;
  let port = options.port;
  let armed: { step: string; crashed: () => void } | undefined;
  // The agent calls this at every named step; an armed step crashes this generation there, at once.
  const crashPoint = (step: string) => {
    if (!armed || armed.step !== step || crashed) return;
    const a = armed;
    armed = undefined;
    crashed = true;
    fence.kill();
    void killed(twin).finally(a.crashed);
    throw new IdsyncError('store_closed', `crashed at ${step} (testbed crashAt)`, { details: { processGone: true } });
  };

  async function boot(): Promise<ServiceTwin> {
    // Over HTTP without a port given, the first start picks one a restart can listen on again.
    if (options.transport === 'http' && !port) return startOnRestartablePort((p) => bootOn(p));
    return bootOn(port);
  }

  async function bootOn(at: number | undefined): Promise<ServiceTwin> {
    fence = fencedStore(store);
    const mine = ++generation;
    // A crashed generation sends nothing more, whatever it still had in flight.
    const alive = (t: Transport): Transport => fencedTransport(t, () => mine === generation && !crashed);
    const wrap = hooks.wrapTransport;
    const mineFence = fence;
    const t = await startServiceTwin({
      ...options,
      // Its endpoint answers like a killed process once it crashed (fenced-transport.ts).
      ...(options.network ? { network: fencedNetwork(options.network, () => mine === generation && !crashed) } : {}),
      store: fence,
      ...(at !== undefined ? { port: at } : {}),
      agent: {
        ...options.agent,
        crashPoint,
        wrapTransport: (inner, receive) => alive(wrap ? wrap(inner, receive) : inner),
      },
    }).catch((err: unknown) => {
      // A refused start (e.g. its port taken) leaves nothing that can still write.
      mineFence.kill();
      throw err;
    });
    if (options.transport === 'http') port = Number(new URL(t.url).port);
    hooks.onTwin?.(t);
    return t;
  }

  // In memory, the party holds the service's name across restarts (its did:web stays the same);
  // left to each twin, a restart could come back under another testbed's freed name.
  const name = options.transport === 'memory' && !options.publicUrl ? claimMemoryServiceUrl() : undefined;
  if (name) options = { ...options, publicUrl: name.url };
  try {
    twin = await boot();
  } catch (err) {
    name?.release();
    throw err;
  }
  const party: ServiceParty = {
    get twin() {
      return twin;
    },
    get crashed() {
      return crashed;
    },
    async crash() {
      if (crashed) return;
      crashed = true;
      fence.kill();
      // Endpoints, webhook delivery and the agent stop; with the store cut off, nothing they
      // still do is kept.
      await killed(twin);
    },
    async restart() {
      if (!crashed) await party.crash();
      twin = await boot();
      crashed = false;
      return twin;
    },
    crashAt(step) {
      return new Promise<void>((resolve) => (armed = { step, crashed: resolve }));
    },
    async close() {
      try {
        if (!crashed) await twin.close();
      } finally {
        name?.release();
      }
    },
  };
  return party;
}

/**
 * Stops a twin as kill -9 would: its connections are cut at once, the request in flight
 * included. A graceful close would wait for every open connection to go idle, and a peer
 * retrying on its kept-alive connection never lets it: the crash then took as long as the test.
 */
async function killed(twin: ServiceTwin): Promise<void> {
  const closing = twin.close().catch(() => undefined);
  twin.service.app.server.closeAllConnections();
  await closing;
}
