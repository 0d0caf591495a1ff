// Idle wallets as pages (src/fleet/wallet-pages.ts, the wallet pool's prepare): a wallet made
// ahead of its flow is kept as its store's content only, in memory up to a budget and on disk
// beyond it, and comes back as the same holder (same DID and keys) that runs its flow.
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { startWalletPool } from '../../src/fleet/wallet-pool.js';
import { pageOf, pageStore, recordingStore, storeOfPage } from '../../src/fleet/wallet-pages.js';
import { startEmbeddedTarget, clientFor } from '../../src/fleet/target.js';
import { connectFlow } from '../../src/fleet/scenarios.js';
import { openLightStore } from '../../src/store/light-store.js';
import { createWallet } from '../../src/wallet/wallet.js';
import { openTemporaryStore } from '../../src/store/temporary.js';

const pagesDirs = async () => (await readdir(tmpdir())).filter((d) => d.startsWith('idsync-fleet-pages-'));

describe('wallet pages', () => {
  it("keep a store's collections and entries; a wallet on the page read back loads the same DID", async () => {
    const store = recordingStore(openLightStore());
    const w = createWallet({ store });
    const identity = await w.init();
    await w.close();
    const page = await pageOf(store);
    expect(JSON.parse(page).map(([name]: [string]) => name)).toEqual(expect.arrayContaining(['secrets', 'own-dids']));
    const again = createWallet({ store: await storeOfPage(page) });
    expect((await again.init()).did).toBe(identity.did);
    expect(await pageOf((again.options.store as ReturnType<typeof recordingStore>))).toBe(page);
    await again.close();
  });

  it('are the same text whether taken from a light store as kept or listed from any other store', async () => {
    const light = recordingStore(openLightStore());
    const w = createWallet({ store: light });
    await w.init();
    await w.close();
    const page = await pageOf(light);
    // A LevelDB-backed store with the same content: its page is made by listing and encoding.
    const temporary = await openTemporaryStore('idsync-page-generic-');
    try {
      const other = recordingStore(temporary.store);
      const content = JSON.parse(page) as [string, [string, string][]][];
      await other.batch(content.flatMap(([collection, entries]) => entries.map(([key, text]) => ({ type: 'put' as const, collection, key, value: JSON.parse(text) as unknown }))));
      expect(await pageOf(other)).toBe(page);
    } finally {
      await temporary.close();
    }
    // Each value is its JSON text in the page, and reads back as the value.
    const read = await storeOfPage(page);
    const [name, entries] = (JSON.parse(page) as [string, [string, string][]][])[0]!;
    expect(await read.collection(name).get(entries[0]![0])).toEqual(JSON.parse(entries[0]![1]));
  });

  it('are kept in memory up to the budget, then on disk in a folder removed at close', async () => {
    const before = await pagesDirs();
    const pages = pageStore({ memoryChars: 10 });
    await pages.put(1, '"012345"');
    await pages.put(2, '"abcdefgh"');
    expect(pages.counts).toEqual({ inMemory: 1, onDisk: 1, memoryChars: 8 });
    expect((await pagesDirs()).length).toBe(before.length + 1);
    expect(await pages.take(2)).toBe('"abcdefgh"');
    expect(await pages.take(1)).toBe('"012345"');
    expect(pages.has(1) || pages.has(2)).toBe(false);
    expect(await pages.take(2)).toBeUndefined();
    await pages.close();
    expect(await pagesDirs()).toEqual(before);
  });
});

describe('the wallet pool keeps prepared wallets as pages', () => {
  it('runs the flow of a wallet paged in from memory and of one paged in from disk', async () => {
    const target = await startEmbeddedTarget({ link: true });
    // A budget of one page: the first wallet's page stays in memory, the second goes to disk.
    const pool = await startWalletPool({ serviceUrl: target.url, serviceLink: target.link!.serve, pageMemoryChars: 12_000 });
    const unlink = target.link!.wallets.add(pool.endpointPrefix, pool.deliver);
    try {
      await pool.prepare(0);
      await pool.prepare(1);
      expect(pool.size).toBe(0);
      expect(pool.idle).toEqual({ inMemory: 1, onDisk: 1 });
      const client = clientFor(target, pool.fetch);
      for (const index of [0, 1]) {
        const wallet = await pool.wallet(index);
        const ctx = { index, userId: `paged-${index}`, wallet, client, serviceDid: target.did, timeoutMs: 30_000, signal: new AbortController().signal, step: <T>(_: string, fn: () => Promise<T>) => fn() };
        await connectFlow(ctx);
        expect((await wallet.connections({ state: 'established' })).length).toBe(1);
        await pool.release(index);
      }
      expect(pool.idle).toEqual({ inMemory: 0, onDisk: 0 });
    } finally {
      unlink();
      await pool.close();
      await target.close();
    }
  }, 60_000);
});
