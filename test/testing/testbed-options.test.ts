// startTestbed refuses options it would otherwise replace by a default without a word, and a
// closed testbed refuses new wallets instead of starting one nobody closes.
import { describe, expect, it } from 'vitest';
import { startTestbed, type TestbedOptions } from '../../src/testing/index.js';

const refused = (options: unknown, message: RegExp) =>
  expect(startTestbed(options as TestbedOptions)).rejects.toMatchObject({ code: 'invalid_argument', message: expect.stringMatching(message) });

describe('startTestbed options', () => {
  it('refuses an unknown option, naming the one meant', async () => {
    await refused({ wallet: 2 }, /unknown option 'wallet' \(did you mean 'wallets'\?\)/);
  });

  it('refuses values outside each option’s list', async () => {
    await refused({ transport: 'tcp' }, /transport must be 'memory', 'http': tcp/);
    await refused({ storage: 'disk' }, /storage must be 'memory', 'temp': disk/);
    await refused({ walletMode: 'push' }, /walletMode must be .*'mediated': push/);
    await refused({ envelopeEngine: 'wasm' }, /envelopeEngine must be/);
    await refused({ wallets: -1 }, /wallets must be a whole number/);
    await refused({ wallets: 1.5 }, /wallets must be a whole number/);
  });

  it("refuses a fault rule on a stream the testbed does not have (it would never apply)", async () => {
    await refused({ faults: { seed: 1, rules: [{ fault: 'drop', direction: 'to-server' }] } }, /fault rule 0: direction must be 'to-service' or 'to-wallet'/);
  });

  it('names the service option a bad data profile or issuance setting came from, not a fixtures path', async () => {
    const bad = (service: unknown) => startTestbed({ service } as TestbedOptions).then(() => undefined, (e: unknown) => e as Error);
    const profile = await bad({ dataProfile: { id: 'p', name: 'P', fields: [{ key: 'shoeSize', required: true }] } });
    expect(profile).toMatchObject({ code: 'invalid_config', message: expect.stringMatching(/^invalid service option dataProfile: \/fields\/0\/key must be one of /) });
    expect(profile?.message).not.toMatch(/fixtures|tenants/);
    const issuance = await bad({ validityMs: 0 });
    expect(issuance).toMatchObject({ code: 'invalid_config', message: expect.stringMatching(/^invalid service options \(format, statusList, validityMs\): \/validityMs /) });
  });

  it('refuses addWallet once closed, and an unknown mode', async () => {
    const bed = await startTestbed({ wallets: 0 });
    await expect(bed.addWallet({ mode: 'push' as never })).rejects.toMatchObject({ code: 'invalid_argument' });
    await bed.close();
    await expect(bed.addWallet()).rejects.toMatchObject({ code: 'invalid_state', message: expect.stringMatching(/testbed is closed/) });
    expect(bed.wallets).toEqual([]);
  });
});
