// A closed wallet still tells who it was: its DID getters do not ask for an init() that
// already happened.
import { expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { createWallet } from '../../src/wallet/wallet.js';
import { startTestbed } from '../../src/testing/index.js';

it('keeps its DID readable after close()', async () => {
  const store = await openStore();
  const wallet = createWallet({ store });
  expect(() => wallet.did).toThrow(expect.objectContaining({ code: 'wallet_not_initialized' }));
  const identity = await wallet.init();
  await wallet.close();
  expect(wallet.did).toBe(identity.did);
  expect(wallet.shortDid).toBe(identity.shortDid);
  expect(wallet.identity).toEqual(identity);
  await store.close();
});

it("leaves a testbed wallet's DID readable on the object a restart replaced", async () => {
  const bed = await startTestbed();
  try {
    const [before] = bed.wallets;
    const after = (await bed.restart(before))!;
    expect(after).not.toBe(before);
    expect(before.did).toBe(after.did);
  } finally {
    await bed.close();
  }
});
