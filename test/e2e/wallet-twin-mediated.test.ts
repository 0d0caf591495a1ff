// The service twin mounts idsync's mediator on its own DID: a wallet may sit behind the twin
// itself (its DID names the twin's DID as its endpoint). The twin then queues what it sends the
// wallet in the same queue the wallet collects from, without a forward to itself.
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { startServiceTwin, type ServiceTwin } from '../../src/testing/index.js';
import { connectUser, syncDatapoints } from '../../src/testing/flows.js';
import { createWallet, type Wallet } from '../../src/wallet/wallet.js';

let twin: ServiceTwin | undefined;
const stores: Store[] = [];
const wallets: Wallet[] = [];
afterEach(async () => {
  for (const w of wallets.splice(0)) await w.close();
  await twin?.close();
  twin = undefined;
  for (const s of stores.splice(0)) await s.close();
});

describe('a wallet behind the service twin as its mediator', () => {
  it('gets a grant from the twin, and the Data Pipe and a sync complete with live pickup from it', async () => {
    const store = await openStore();
    stores.push(store);
    twin = await startServiceTwin({ store, transport: 'http' });
    const walletStore = await openStore();
    stores.push(walletStore);
    const wallet = createWallet({ store: walletStore, mediator: twin.did });
    wallets.push(wallet);
    await wallet.init();
    expect(wallet.identity.endpoint).toBe(twin.did);
    expect(wallet.mediation).toMatchObject({ state: 'registered', mediator: twin.did });
    expect(wallet.collecting).toBe('live');
    await connectUser({ client: twin.client }, 'ada', wallet);
    const { credential } = await syncDatapoints({ client: twin.client }, 'ada', wallet, { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' });
    expect(credential.claims).toMatchObject({ firstName: 'Ada' });
    // Pushed on the live socket, not forwarded: the twin queues for its own party directly.
    const pushed = (await wallet.messages({ direction: 'in' })).filter((m) => m.transport === 'ws-live' || m.transport === 'pickup').map((m) => m.type.split('/').pop());
    expect(pushed).toEqual(expect.arrayContaining(['established', 'request-presentation', 'offer-credential', 'issue-credential']));
  });
});
