import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sequentialIds } from '../../src/clock.js';
import { openStore } from '../../src/store/store.js';
import { createWallet } from '../../src/wallet/wallet.js';
import { connect, setup, WALLET_ENDPOINT } from './setup.js';

const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace' };
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('wallet persistence', () => {
  it('keeps its DID, connections, credentials, pending offers and threads across a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idsync-wallet-'));
    dirs.push(dir);
    const store = await openStore({ path: dir });
    const t = await setup({ store, wallet: { policy: 'manual' } });
    await connect(t);
    const first = await t.service.offer(t.wallet.shortDid, DATAPOINTS);
    await t.wallet.approve((await t.wallet.waitForPending()).id);
    await t.service.next('request-credential');
    await t.service.issue(t.wallet.shortDid, first.id, await t.service.credential(t.wallet.shortDid, DATAPOINTS));
    await t.wallet.waitForCredential({ thid: first.id });
    const second = await t.service.offer(t.wallet.shortDid, DATAPOINTS);
    await t.wallet.waitForPending();
    const did = t.wallet.did;
    const messages = (await t.wallet.messages()).length;
    await t.wallet.close();
    await store.close();

    const reopened = await openStore({ path: dir });
    const wallet = createWallet({
      store: reopened, clock: t.clock, ids: sequentialIds('w2'), policy: 'manual',
      resolver: t.service.resolveForWallet, transports: [(inbound) => t.network.transport({ onInbound: inbound })],
    });
    await wallet.listen({ memory: { network: t.network, url: WALLET_ENDPOINT } });
    try {
      expect(wallet.did).toBe(did);
      expect(wallet.identity.endpoint).toBe(WALLET_ENDPOINT);
      expect(await wallet.connections({ state: 'established' })).toHaveLength(1);
      expect(await wallet.credentials()).toMatchObject([{ thid: first.id, status: 'valid', verified: true }]);
      expect((await wallet.messages()).length).toBe(messages);
      // The flow goes on where it stopped: the pending offer is approved after the restart.
      const [item] = await wallet.pending();
      expect(item.thid).toBe(second.id);
      await wallet.approve(item.id);
      const request = await t.service.next('request-credential', (m) => m.thid === second.id);
      expect(request.from).toBe(wallet.shortDid);
    } finally {
      await wallet.close();
      await reopened.close();
    }
  });
});
