// The testbed's mediator, for wallets in mode 'mediated': idsync's standalone mediator on the
// memory network (`memory://mediator`) or on a real socket on 127.0.0.1, port 0. Wallets sit
// behind it (their DIDs name its DID as their endpoint), the twin forwards to it, and the faults
// of the testbed's plan apply on the way between a wallet and it as between a wallet and the service.
import type { Clock } from '../clock.js';
import type { MemoryNetwork } from '../didcomm/transport/memory.js';
import type { EnvelopeEngine } from '../didcomm/types.js';
import { createMediatorAgent, type MediatorAgent } from '../mediator/agent.js';
import type { MediatorPolicy } from '../mediator/policy.js';
import { startMediator } from '../mediator/server.js';
import type { Store } from '../store/store.js';

export interface TestbedMediator {
  did: string;
  /** The out-of-band invitation to mediate (what `wallet create --mediator` takes). */
  invitationUrl: string;
  /** The mediator's agent: its queue, keylist and events for assertions. */
  agent: MediatorAgent;
  /** Its store (its queues, keylists and message log): what startMediatorConsole reads. */
  store: Store;
  /** Whether its wallets can go live (a WebSocket: http transport only). */
  live: boolean;
  close(): Promise<void>;
}

export async function startTestbedMediator(o: {
  store: Store;
  network?: MemoryNetwork;
  clock?: Clock;
  engine?: EnvelopeEngine;
  policy?: Partial<MediatorPolicy>;
}): Promise<TestbedMediator> {
  const common = { store: o.store, ...(o.clock ? { clock: o.clock } : {}), ...(o.engine ? { engine: o.engine } : {}), ...(o.policy ? { policy: o.policy } : {}) };
  if (!o.network) {
    const running = await startMediator(common);
    return { did: running.did, invitationUrl: running.invitationUrl, agent: running.agent, store: o.store, live: true, close: () => running.close() };
  }
  const network = o.network;
  const transport = network.transport();
  const agent = await createMediatorAgent({ ...common, publicUrl: 'memory://mediator', transports: [transport] });
  const endpoint = network.endpoint('memory://mediator/didcomm', (packed, info) => agent.receive(packed, { transport: 'memory', reply: info.reply, bind: info.bind }));
  return {
    did: agent.did,
    invitationUrl: agent.invitationUrl,
    agent,
    store: o.store,
    live: false,
    async close() {
      endpoint.close();
      await agent.close();
      await transport.close();
    },
  };
}
