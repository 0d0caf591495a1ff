// The testbed's `faults` option and crash()/restart(): faults are applied to the DIDComm messages
// between the service and the wallets (both directions, recorded, replayable by seed), and a
// crashed party comes back on its store with its state.
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { fencedStore } from '../../src/testing/fenced-store.js';
import { connectUser, startTestbed, syncDatapoints, waitForWebhook, type Testbed } from '../../src/testing/index.js';

let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const ADA = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' };

describe('testbed faults', () => {
  it('completes a sync with every message duplicated both ways, and records each fault with its direction and type', async () => {
    bed = await startTestbed({ faults: { seed: 5, rules: [{ fault: 'duplicate' }] } });
    const [wallet] = bed.wallets;
    await connectUser(bed, 'ada', wallet);
    const { credential } = await syncDatapoints(bed, 'ada', wallet, ADA);
    expect(credential.claims).toMatchObject({ firstName: 'Ada' });
    const applied = bed.faults!.applied;
    expect(bed.faults!.counts().duplicate).toBe(applied.length);
    expect(new Set(applied.map((f) => f.direction))).toEqual(new Set(['to-service', 'to-wallet']));
    // The sender's type is known for what it sends, encrypted or not.
    expect(applied.map((f) => f.type)).toContain('https://didcomm.org/issue-credential/3.0/ack');
    expect(applied.every((f) => f.mediaType === 'encrypted')).toBe(true);
  });

  it('replays the same faults for the same seed', async () => {
    const run = async (seed: number) => {
      const b = await startTestbed({ faults: { seed, rules: [{ fault: 'duplicate', probability: 0.5 }, { fault: 'delay', probability: 0.3, delayMs: 0 }] } });
      try {
        await connectUser(b, 'ada', b.wallets[0]);
        await syncDatapoints(b, 'ada', b.wallets[0], ADA);
        return b.faults!.applied.map((f) => `${f.fault} ${f.direction} ${f.type ?? '?'}`);
      } finally {
        await b.close();
      }
    };
    const a = await run(11);
    expect(a.length).toBeGreaterThan(0);
    expect(await run(11)).toEqual(a);
    expect(await run(12)).not.toEqual(a);
  });

  it('drops exactly the message a rule names (the wallet\'s first ack to the service)', async () => {
    bed = await startTestbed({ faults: { rules: [{ fault: 'drop', direction: 'to-service', type: 'issue-credential/3.0/ack', nth: 1 }] } });
    const [wallet] = bed.wallets;
    await connectUser(bed, 'ada', wallet);
    await bed.service.client.putDatapoints('ada', ADA);
    await wallet.waitForCredential();
    const [drop] = bed.faults!.applied;
    expect(drop).toMatchObject({ fault: 'drop', direction: 'to-service', type: 'https://didcomm.org/issue-credential/3.0/ack', endpoint: 'memory://service' });
    expect(bed.faults!.applied).toHaveLength(1);
  });
});

describe('testbed crash and restart', () => {
  it('restarts a crashed service on its store: the Data Pipe survives and a later sync completes', async () => {
    bed = await startTestbed();
    const [wallet] = bed.wallets;
    await connectUser(bed, 'ada', wallet);
    const didBefore = bed.service.did;
    await bed.crash();
    await expect(bed.service.client.getUser('ada')).rejects.toBeDefined();
    await bed.restart();
    expect(bed.service.did).toBe(didBefore);
    expect((await bed.service.client.syncContext('ada')).isSessionEstablished).toBe(true);
    const { credential } = await syncDatapoints(bed, 'ada', wallet, ADA);
    expect(credential.verified).toBe(true);
    await waitForWebhook(bed.webhooks, { event: 'DATA_SYNC_COMPLETED' });
  });

  it('restarts a crashed wallet as a new Wallet on its store: same DID, its credentials, and it takes the next sync', async () => {
    bed = await startTestbed();
    const [wallet] = bed.wallets;
    await connectUser(bed, 'ada', wallet);
    const first = await syncDatapoints(bed, 'ada', wallet, ADA);
    const did = wallet.did;
    await bed.crash(wallet);
    const again = (await bed.restart(wallet))!;
    expect(again).not.toBe(wallet);
    expect(bed.wallets[0]).toBe(again);
    expect(again.did).toBe(did);
    expect((await again.credentials()).map((c) => c.id)).toContain(first.credential.id);
    const second = await syncDatapoints(bed, 'ada', again, { ...ADA, firstName: 'Augusta' });
    expect(second.credential.claims.firstName).toBe('Augusta');
  });

  it('over real sockets: the service comes back on the same port (same did:web), a wallet on its endpoint port, with faults on', async () => {
    bed = await startTestbed({ transport: 'http', faults: { seed: 2, rules: [{ fault: 'duplicate', probability: 0.5 }] } });
    const [wallet] = bed.wallets;
    await connectUser(bed, 'ada', wallet);
    const url = bed.service.url;
    await bed.restart();
    expect(bed.service.url).toBe(url);
    const again = (await bed.restart(wallet))!;
    const { credential } = await syncDatapoints(bed, 'ada', again, ADA);
    expect(credential.verified).toBe(true);
    expect(bed.faults!.counts().duplicate).toBeGreaterThan(0);
  });

  it('restarts wallets that collect by pickup too', async () => {
    bed = await startTestbed({ walletMode: 'pickup' });
    const [wallet] = bed.wallets;
    await connectUser(bed, 'ada', wallet);
    const again = (await bed.restart(wallet))!;
    const { credential } = await syncDatapoints(bed, 'ada', again, ADA);
    expect(credential.claims.firstName).toBe('Ada');
  });
});

describe('fenced store', () => {
  it('refuses every read and write through a killed handle; the store underneath keeps what was written', async () => {
    const store = await openStore();
    const fence = fencedStore(store);
    await fence.collection<number>('c').put('a', 1);
    fence.kill();
    await expect(fence.collection<number>('c').get('a')).rejects.toMatchObject({ code: 'store_closed' });
    await expect(fence.collection<number>('c').put('b', 2)).rejects.toMatchObject({ code: 'store_closed' });
    await expect(fence.batch([{ type: 'put', collection: 'c', key: 'b', value: 2 }])).rejects.toMatchObject({ code: 'store_closed' });
    expect(await store.collection<number>('c').list()).toEqual([{ key: 'a', value: 1 }]);
    await store.close();
  });
});
