// The testbed's wallets behind its mediator (walletMode 'mediated'): in process and over real
// sockets, both flows; a crashed and restarted wallet keeps its grant; and faults between a wallet
// and its mediator (dropped and duplicated pickup messages) lose nothing and duplicate nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { connectUser, startTestbed, syncDatapoints, type Testbed } from '../../src/testing/index.js';

let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const ADA = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' };

describe('testbed: wallets behind a mediator', () => {
  for (const transport of ['memory', 'http'] as const) {
    it(`${transport}: the Data Pipe and a sync run through the mediator`, async () => {
      bed = await startTestbed({ transport, walletMode: 'mediated' });
      const [wallet] = bed.wallets;
      expect(wallet.identity.endpoint).toBe(bed.mediator!.did);
      expect(wallet.collecting).toBe(transport === 'http' ? 'live' : 'polling');
      await connectUser(bed, 'ada', wallet);
      const { credential } = await syncDatapoints(bed, 'ada', wallet, ADA);
      expect(credential.claims).toMatchObject({ firstName: 'Ada' });
      await wallet.pickup(); // what came after the credential (polling: not yet collected)
      expect(await bed.mediator!.agent.mediator.queue.count(wallet.did)).toBe(0);
    });
  }

  for (const transport of ['memory', 'http'] as const) {
    it(`${transport}: a wallet behind the mediator collects from the twin too, its answers return-routed unwrapped`, async () => {
      bed = await startTestbed({ transport, walletMode: 'mediated' });
      const [wallet] = bed.wallets;
      await connectUser(bed, 'ada', wallet);
      // The twin's status answers on the request's own connection: wrapped in a forward to the
      // mediator (the wallet's DID names it), it was one the wallet could not open.
      const collected = await wallet.pickup(bed.service.did);
      expect(collected.status).toMatchObject({ messageCount: 0 });
    });
  }

  it('did:peer:2 wallets (walletDidMethod) run the Data Pipe and a sync through the mediator, and keep their DID across a restart', async () => {
    bed = await startTestbed({ walletMode: 'mediated', walletDidMethod: 'peer' });
    const [wallet] = bed.wallets;
    expect(wallet.did).toMatch(/^did:peer:2\./);
    await connectUser(bed, 'ada', wallet);
    const { credential } = await syncDatapoints(bed, 'ada', wallet, ADA);
    expect(credential).toMatchObject({ subject: wallet.did, verified: true });
    const did = wallet.did;
    await bed.crash(wallet);
    expect((await bed.restart(wallet))!.did).toBe(did);
  });

  it('a crashed wallet restarts behind the same mediator and collects the sync queued meanwhile', async () => {
    bed = await startTestbed({ walletMode: 'mediated' });
    const [wallet] = bed.wallets;
    await connectUser(bed, 'ada', wallet);
    await bed.crash(wallet);
    const queued = new Promise<void>((resolve) => bed!.mediator!.agent.mediator.events.once('forward-queued', () => resolve()));
    await bed.service.client.putDatapoints('ada', ADA);
    await queued;
    const again = (await bed.restart(wallet))!;
    expect(again.mediation).toMatchObject({ state: 'registered', mediator: bed.mediator!.did });
    const credential = await again.waitForCredential({ timeoutMs: 15_000 });
    expect(credential.claims).toMatchObject({ firstName: 'Ada' });
  });

  it('dropped and duplicated pickup messages between wallet and mediator lose nothing and duplicate nothing', async () => {
    bed = await startTestbed({
      walletMode: 'mediated',
      retry: { baseDelayMs: 100, maxDelayMs: 400 },
      faults: {
        seed: 3,
        rules: [
          { fault: 'duplicate', direction: 'to-service', type: 'messagepickup/3.0/delivery-request' },
          { fault: 'drop', direction: 'to-service', type: 'messagepickup/3.0/messages-received', nth: [1, 3] },
          { fault: 'drop', direction: 'to-service', type: 'messagepickup/3.0/delivery-request', nth: 2 },
          { fault: 'drop', direction: 'to-wallet', nth: [3, 6] },
        ],
      },
    });
    const [wallet] = bed.wallets;
    await connectUser(bed, 'ada', wallet);
    const { credential } = await syncDatapoints(bed, 'ada', wallet, ADA);
    const counts = bed.faults!.counts();
    expect(counts.duplicate).toBeGreaterThan(0);
    expect(counts.drop).toBeGreaterThanOrEqual(3);
    // Nothing lost: the sync completed; nothing duplicated: one credential, one of each message handled.
    expect(await wallet.credentials()).toEqual([expect.objectContaining({ id: credential.id })]);
    const handled = (await wallet.messages({ direction: 'in' })).filter((m) => m.result === 'handled' || m.result === 'accepted').map((m) => m.id);
    expect(new Set(handled).size).toBe(handled.length);
    // What was delivered again (its messages-received dropped, or the request duplicated) was recognised, not handled twice.
    expect((await wallet.messages({ direction: 'in' })).some((m) => m.result === 'duplicate')).toBe(true);
    // Every delivery was eventually confirmed.
    await wallet.pickup();
    expect(await bed.mediator!.agent.mediator.queue.count(wallet.did)).toBe(0);
  });
});
