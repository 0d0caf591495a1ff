// The service (createService, not listening) with the DIDComm agent wired, on an in-memory
// network, plus test holders. Webhook events are captured in order; a ManualClock drives time.
import { ManualClock, type Clock } from '../../../src/clock.js';
import { memoryNetwork, type MemoryNetwork } from '../../../src/didcomm/transport/memory.js';
import type { InboundInfo } from '../../../src/service/didcomm-seam.js';
import type { UserRef } from '../../../src/service/users/users.js';
import { createService, type Service } from '../../../src/service/app.js';
import type { ServiceEvent } from '../../../src/service/context.js';
import { createServiceAgent, type ServiceDidcommAgent } from '../../../src/service/didcomm/agent.js';
import type { AgentOptions } from '../../../src/service/didcomm/core.js';
import { deferredServiceAgent } from '../../../src/service/didcomm/deferred.js';
import { createUserInvitation } from '../../../src/service/users/invitations.js';
import type { FlatDatapoints } from '../../../src/credentials/datapoints.js';
import { openStore, type Store } from '../../../src/store/store.js';
import { createHolder, type Holder } from './holder.js';

export const TENANT = 'default';
export const PROJECT = 'qa-project';
export const CLIENT = { clientId: 'qa-client', clientSecret: 'qa-secret-123', projectId: PROJECT };
export const DATAPOINTS: FlatDatapoints = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  birthDate: '1815-12-10',
  nationality: 'GB',
  residentialAddressStreetAddress: '12 St James Square',
  residentialAddressLocality: 'London',
  residentialAddressPostalCode: 'SW1Y 4JH',
  residentialAddressCountry: 'GB',
};

export interface MemoryHarness {
  store: Store;
  clock: ManualClock;
  service: Service;
  agent: ServiceDidcommAgent;
  network: MemoryNetwork;
  webhooks: ServiceEvent[];
  /** A user with consent (isSyncOn) and datapoints stored without a sync. */
  user(userId: string, datapoints?: FlatDatapoints): Promise<UserRef>;
  invitation(ref: UserRef): Promise<Record<string, unknown> & { id: string; from: string }>;
  holder(options?: { offline?: boolean; name?: string; peer4?: boolean }): Holder;
  /** Replaces the agent with a fresh one on the same store (a restart). */
  restart(options?: AgentOptions): Promise<ServiceDidcommAgent>;
  close(): Promise<void>;
}

export const SERVICE_ENDPOINT = 'memory://service';

export interface MemoryHarnessOptions {
  clock?: ManualClock;
  /** A store to use (e.g. one whose batches a test watches); closed by close(). */
  store?: Store;
  /** Webhook events go to the service's own dispatcher (stored, outbox-capable) instead of `webhooks`. */
  dispatcherEvents?: boolean;
}

export async function memoryHarness(options: MemoryHarnessOptions = {}): Promise<MemoryHarness> {
  const store = options.store ?? (await openStore());
  const clock = options.clock ?? new ManualClock();
  const webhooks: ServiceEvent[] = [];
  // Deferred: a restart binds a new agent behind the same seam (routes, DIDCOMM invitation delivery).
  const deferred = deferredServiceAgent();
  const service = await createService({
    store,
    clock,
    agent: deferred.agent,
    publicUrl: 'http://127.0.0.1:9',
    env: CLIENT,
    rateLimit: false,
    ...(options.dispatcherEvents ? {} : { events: { emit: async (e: ServiceEvent) => void webhooks.push(e) } }),
  });
  const network = memoryNetwork();
  const holders: Holder[] = [];
  let n = 0;

  const makeAgent = (o: AgentOptions = {}) => {
    let agent: ServiceDidcommAgent | undefined;
    const transport = network.transport({ onInbound: (p, i) => agent!.receive(p, i as InboundInfo) });
    agent = deferred.bind(createServiceAgent(service.deps, { transports: [transport], ...o }));
    network.endpoint(SERVICE_ENDPOINT, (packed, info) => agent!.receive(packed, { transport: 'memory', reply: info.reply, bind: info.bind } as unknown as InboundInfo));
    return agent;
  };

  const h: MemoryHarness = {
    store,
    clock,
    service,
    agent: makeAgent(),
    network,
    webhooks,
    async user(userId, datapoints = DATAPOINTS) {
      const ref = { tenantId: TENANT, userId };
      await service.deps.users.upsert(ref, { settings: { isSyncOn: true } });
      await service.deps.users.updateDatapoints(ref, datapoints, { autoSync: false });
      return ref;
    },
    async invitation(ref) {
      const record = await createUserInvitation(service.deps, ref);
      return record.invitation as unknown as Record<string, unknown> & { id: string; from: string };
    },
    holder(o = {}) {
      const name = o.name ?? `wallet-${++n}`;
      let holder: Holder | undefined;
      const endpoint = o.offline ? undefined : `memory://${name}`;
      holder = createHolder({
        clock: clock as Clock,
        name,
        transport: network.transport({ onInbound: (p, i) => holder!.router.inbound(p, i) }),
        serviceEndpoint: SERVICE_ENDPOINT,
        ...(endpoint ? { endpoint } : {}),
        serviceDid: () => service.deps.serviceDid,
        serviceDocument: () => service.deps.identity.document,
        ...(o.peer4 ? { peer4: true } : {}),
      });
      if (endpoint) network.endpoint(endpoint, (p, i) => holder!.router.inbound(p, i));
      holders.push(holder);
      return holder;
    },
    async restart(o) {
      await h.agent.close();
      h.agent = makeAgent(o);
      return h.agent;
    },
    async close() {
      await h.agent.close();
      await service.close();
      await store.close();
    },
  };
  return h;
}

/** Webhook events by name, in order. */
export const named = (events: ServiceEvent[], ...names: string[]): ServiceEvent[] => events.filter((e) => names.includes(e.event));
