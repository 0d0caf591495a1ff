// A wallet and a scripted fake service on one in-memory network, with a ManualClock.
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { memoryNetwork, type MemoryNetwork } from '../../src/didcomm/transport/memory.js';
import { openStore, type Store } from '../../src/store/store.js';
import { createWallet, type Wallet } from '../../src/wallet/wallet.js';
import type { WalletOptions } from '../../src/wallet/options.js';
import { fakeService, type FakeService } from './fake-service.js';

export const WALLET_ENDPOINT = 'memory://wallet';

export interface TestSetup {
  wallet: Wallet;
  service: FakeService;
  network: MemoryNetwork;
  clock: ManualClock;
  store: Store;
  close(): Promise<void>;
}

export async function setup(options: { listen?: boolean; autoEstablish?: boolean; store?: Store; wallet?: Partial<WalletOptions> } = {}): Promise<TestSetup> {
  const network = memoryNetwork();
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const service = fakeService(network, clock, { autoEstablish: options.autoEstablish });
  const store = options.store ?? (await openStore());
  const wallet = createWallet({
    store,
    clock,
    ids: sequentialIds('w'),
    resolver: service.resolveForWallet,
    transports: [(inbound) => network.transport({ onInbound: inbound })],
    ...options.wallet,
  });
  if (options.listen !== false) await wallet.listen({ memory: { network, url: WALLET_ENDPOINT } });
  else await wallet.init();
  return {
    wallet, service, network, clock, store,
    async close() {
      await wallet.close();
      if (!options.store) await store.close();
    },
  };
}

/** Accepts a Data Pipe invitation from the fake service and has it answer `established`. */
export async function connect(t: TestSetup) {
  const { url } = t.service.invitationUrl();
  const accepting = t.wallet.acceptInvitation(url);
  const request = await t.service.next('request');
  await t.service.establish(request);
  const acceptance = await accepting;
  return { acceptance, request };
}
