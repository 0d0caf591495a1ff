// The keylist's hold on a recipient DID while a forward queues for it: a removal counts what waits
// for the DID and, finding nothing, lets it go. A forward looks its recipient up and queues under
// `withRecipient`, so it runs wholly before such a removal or wholly after it, never between the
// count and the write (which would leave its message queued for a DID nobody holds).
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { keylist } from '../../src/mediator/keylist.js';
import { openStore } from '../../src/store/store.js';

const PARTY = 'did:example:party';
const DID = 'did:example:alice';

describe('keylist', () => {
  it('runs a lookup under withRecipient after a removal under way, and it sees the removal', async () => {
    const store = await openStore();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let counting!: () => void;
    const counted = new Promise<void>((resolve) => (counting = resolve));
    const k = keylist({
      store,
      clock: systemClock,
      waiting: async () => {
        counting();
        await gate;
        return 0;
      },
    });
    await k.grant(PARTY, '2.0');
    expect(await k.update(PARTY, [{ recipientDid: DID, action: 'add' }])).toEqual([{ recipientDid: DID, action: 'add', result: 'success' }]);
    const removal = k.update(PARTY, [{ recipientDid: DID, action: 'remove' }]);
    await counted;
    // A forward for one of the DID's keys arrives while the removal counts what waits.
    const looked = k.withRecipient(`${DID}#key-2`, () => k.lookup(`${DID}#key-2`));
    open();
    expect(await removal).toEqual([{ recipientDid: DID, action: 'remove', result: 'success' }]);
    expect(await looked).toBeUndefined();
    await store.close();
  });

  it('lets a removed DID with messages waiting stay its owner\'s: holding finds it, lookup does not', async () => {
    const store = await openStore();
    let waiting = 1;
    const k = keylist({ store, clock: systemClock, waiting: async () => waiting });
    await k.grant(PARTY, '2.0');
    await k.update(PARTY, [{ recipientDid: DID, action: 'add' }]);
    await k.update(PARTY, [{ recipientDid: DID, action: 'remove' }]);
    expect(await k.lookup(DID)).toBeUndefined();
    expect(await k.holding(DID)).toMatchObject({ recipientDid: DID, owner: PARTY, removedAt: expect.any(String) });
    expect(await k.recipientsOf(PARTY)).toEqual([]);
    expect(await k.retiredOf(PARTY)).toEqual([DID]);
    expect(await k.update('did:example:other', [{ recipientDid: DID, action: 'add' }])).toEqual([{ recipientDid: DID, action: 'add', result: 'client_error' }]);
    // Its messages collected: the owner's next pickup lets it go.
    waiting = 0;
    expect(await k.retiredOf(PARTY)).toEqual([]);
    expect(await k.holding(DID)).toBeUndefined();
    expect(await k.update('did:example:other', [{ recipientDid: DID, action: 'add' }])).toEqual([{ recipientDid: DID, action: 'add', result: 'success' }]);
    await store.close();
  });

  it('routes a key id its owner removed, messages still waiting, by the registration of its DID', async () => {
    const store = await openStore();
    const k = keylist({ store, clock: systemClock, waiting: async () => 1 });
    const KID = `${DID}#key-2`;
    await k.grant(PARTY, '2.0');
    await k.update(PARTY, [
      { recipientDid: DID, action: 'add' },
      { recipientDid: KID, action: 'add' },
    ]);
    expect(await k.lookup(KID)).toMatchObject({ recipientDid: KID });
    await k.update(PARTY, [{ recipientDid: KID, action: 'remove' }]);
    // The key id's claim holds what waits for it; new forwards to it go by the DID.
    expect(await k.holding(KID)).toMatchObject({ recipientDid: KID, removedAt: expect.any(String) });
    expect(await k.lookup(KID)).toMatchObject({ recipientDid: DID, owner: PARTY });
    expect((await k.lookup(KID))?.removedAt).toBeUndefined();
    // With the DID removed as well, nothing routes it.
    await k.update(PARTY, [{ recipientDid: DID, action: 'remove' }]);
    expect(await k.lookup(KID)).toBeUndefined();
    expect(await k.lookup(DID)).toBeUndefined();
    await store.close();
  });
});
