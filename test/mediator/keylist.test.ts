// The keylist's hold on a recipient DID while a forward queues for it: a removal counts what waits
// for the DID and, finding nothing, lets it go. A forward looks its recipient up and queues under
// `withRecipient`, so it runs wholly before such a removal or wholly after it, never between the
// count and the write (which would leave its message queued for a DID nobody holds).
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { KEYLIST_COLLECTIONS, keylist } from '../../src/mediator/keylist.js';
import { encodePeerDid4 } from '../../src/did/peer4.js';
import { openStore } from '../../src/store/store.js';

const PARTY = 'did:example:party';
const DID = 'did:example:alice';

const OTHER = 'did:example:other';

/** A keylist with PARTY and OTHER granted mediation, and an add that gives its result. */
async function twoParties() {
  const store = await openStore();
  const k = keylist({ store, clock: systemClock });
  const add = (party: string, recipientDid: string) => k.update(party, [{ recipientDid, action: 'add' }]).then((r) => r[0]!.result);
  await k.grant(PARTY, '2.0');
  await k.grant(OTHER, '2.0');
  return { store, k, add };
}

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

  it('keeps a DID and its key ids with one party: a key id of another\'s DID, or a DID another holds a key id of, is refused', async () => {
    const { store, k, add } = await twoParties();
    // The other party holds the DID: none of its keys may be added by this one.
    expect(await add(OTHER, DID)).toBe('success');
    expect(await add(PARTY, `${DID}#key-2`)).toBe('client_error');
    expect(await k.lookup(`${DID}#key-2`)).toMatchObject({ recipientDid: DID, owner: OTHER });
    // The other party holds only a key id of a DID: neither the DID nor another of its keys may be added.
    const BOB = 'did:example:bob';
    expect(await add(OTHER, `${BOB}#key-1`)).toBe('success');
    expect(await add(PARTY, BOB)).toBe('client_error');
    expect(await add(PARTY, `${BOB}#key-3`)).toBe('client_error');
    expect(await k.lookup(`${BOB}#key-3`)).toBeUndefined();
    // The party holding them adds the rest of the DID.
    expect(await add(OTHER, BOB)).toBe('success');
    expect(await add(OTHER, `${DID}#key-2`)).toBe('success');
    expect(await k.recipientsOf(PARTY)).toEqual([]);
    await store.close();
  });

  it('keeps a granted party\'s own DID its own: another may not add it or its keys, and a grant ends what another added first', async () => {
    const { store, k, add } = await twoParties();
    expect(await add(OTHER, PARTY)).toBe('client_error');
    expect(await add(OTHER, `${PARTY}#key-1`)).toBe('client_error');
    expect(await add(PARTY, PARTY)).toBe('success');
    // Registered before its owner asked for mediation: the grant lets it go.
    const LATE = 'did:example:late';
    expect(await add(OTHER, LATE)).toBe('success');
    expect(await add(OTHER, `${LATE}#key-1`)).toBe('success');
    await k.grant(LATE, '2.0');
    expect(await k.recipientsOf(OTHER)).toEqual([]);
    expect(await k.holding(LATE)).toBeUndefined();
    expect(await k.lookup(`${LATE}#key-1`)).toBeUndefined();
    expect(await add(LATE, LATE)).toBe('success');
    expect(await add(LATE, `${LATE}#key-1`)).toBe('success');
    await store.close();
  });

  it('gives a granted party what already waits for its key ids under another party\'s registration', async () => {
    const store = await openStore();
    const LATE = 'did:example:late';
    const KEY = `${LATE}#key-1`;
    const k = keylist({ store, clock: systemClock, waiting: async (did) => (did === KEY ? 1 : 0) });
    await k.grant(OTHER, '2.0');
    expect((await k.update(OTHER, [{ recipientDid: KEY, action: 'add' }]))[0]!.result).toBe('success');
    await k.grant(LATE, '2.0');
    // The message waiting for the key is the party's to collect; nothing is routed by the claim.
    expect(await k.holding(KEY)).toMatchObject({ recipientDid: KEY, owner: LATE, removedAt: expect.any(String) });
    expect(await k.retiredOf(LATE)).toEqual([KEY]);
    expect(await k.retiredOf(OTHER)).toEqual([]);
    expect(await k.recipientsOf(OTHER)).toEqual([]);
    expect(await k.lookup(KEY)).toBeUndefined();
    // Registered by the party itself, it routes again.
    expect((await k.update(LATE, [{ recipientDid: KEY, action: 'add' }]))[0]!.result).toBe('success');
    expect(await k.lookup(KEY)).toMatchObject({ recipientDid: KEY, owner: LATE });
    await store.close();
  });

  it('keeps a party\'s own registration when it asks for mediation again under the other form of its did:peer:4', async () => {
    const store = await openStore();
    const k = keylist({ store, clock: systemClock });
    const { long, short } = encodePeerDid4({ '@context': ['https://www.w3.org/ns/did/v1'], verificationMethod: [] });
    await k.grant(long, '2.0');
    expect((await k.update(long, [{ recipientDid: short, action: 'add' }]))[0]!.result).toBe('success');
    // DID Peer 4: the long form first, the short form after it; the same party either way.
    await k.grant(short, '2.0');
    expect(await k.lookup(short)).toMatchObject({ recipientDid: short, owner: long });
    await store.close();
  });

  it('routes no forward by another party\'s registration of a granted party\'s own DID kept from an older store', async () => {
    const store = await openStore();
    const OWNER = 'did:example:owner';
    // As a store written before such adds were refused holds it: OWNER's DID registered by OTHER.
    await store.batch([
      { type: 'put', collection: KEYLIST_COLLECTIONS.grants, key: OWNER, value: { did: OWNER, version: '2.0', grantedAt: new Date(0).toISOString() } },
      { type: 'put', collection: KEYLIST_COLLECTIONS.recipients, key: OWNER, value: { recipientDid: OWNER, owner: OTHER, addedAt: new Date(0).toISOString() } },
      { type: 'put', collection: KEYLIST_COLLECTIONS.owned, key: `${OTHER} ${OWNER}`, value: { recipientDid: OWNER } },
    ]);
    const k = keylist({ store, clock: systemClock });
    expect(await k.lookup(OWNER)).toBeUndefined();
    expect(await k.lookup(`${OWNER}#key-1`)).toBeUndefined();
    await store.close();
  });
});
