// Two (or more) agents with real DIDs, real envelopes (didcomm/envelope.ts) and an in-memory
// network (didcomm/transport/memory.ts), each with its own store and message log.
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { createIonDid } from '../../src/did/ion.js';
import { createPeerDid } from '../../src/did/peer.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import type { CreatedDid } from '../../src/did/types.js';
import { createRouter, transportOutbound, type Router, type RouterOptions } from '../../src/router/router.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import { memoryNetwork, type MemoryNetwork } from '../../src/didcomm/transport/memory.js';
import { messageLog, type MessageLog } from '../../src/store/messages.js';
import { openStore, type Store } from '../../src/store/store.js';

export interface Party {
  name: string;
  did: string;
  created: CreatedDid;
  router: Router;
  log: MessageLog;
  store: Store;
}

export interface Network {
  network: MemoryNetwork;
  clock: ManualClock;
  party(name: string, options?: { method?: 'peer' | 'ion'; router?: Partial<RouterOptions> }): Promise<Party>;
  close(): Promise<void>;
}

export function testNetwork(): Network {
  const network = memoryNetwork();
  const clock = new ManualClock();
  const resolve = documentResolver(createResolver({ cache: false }));
  const parties: Party[] = [];
  return {
    network,
    clock,
    async party(name, options = {}) {
      const endpoint = `memory://${name}`;
      const created = options.method === 'ion' ? createIonDid({ endpoint }) : createPeerDid({ endpoint });
      const store = await openStore();
      const log = messageLog(store, clock);
      const router = createRouter({
        envelope: { resolve, secrets: memorySecrets(created.secrets) },
        clock,
        ids: sequentialIds(name),
        myDids: [created.did],
        seen: store.collection('seen'),
        log,
        send: transportOutbound(network.transport()),
        ...options.router,
      });
      network.endpoint(endpoint, (packed, info) => router.inbound(packed, info));
      const party = { name, did: created.did, created, router, log, store };
      parties.push(party);
      return party;
    },
    async close() {
      await Promise.all(parties.map((p) => p.store.close()));
    },
  };
}
