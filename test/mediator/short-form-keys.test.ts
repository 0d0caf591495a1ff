// A store the mediator wrote when it keyed did:peer:4 DIDs as they came (only did:ion long forms
// were shortened), opened by a mediator that keys every DID by its short form (DID Peer §Method 4:
// the long and short forms are one DID). The old layout is written here as that code wrote it:
// grants and registrations under the DID or key id as given, `<party> <recipient>` in the party's
// index and its retired claims, `<recipient>/<queue id>` in the queue. What it held must be found,
// every queued message exactly once, after a crash at any point of the move too.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds, systemClock } from '../../src/clock.js';
import { createPeerDid4 } from '../../src/did/peer4.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { pack } from '../../src/didcomm/envelope/index.js';
import { httpTransport } from '../../src/didcomm/transport/http.js';
import { KEYLIST_COLLECTIONS, keylist } from '../../src/mediator/keylist.js';
import { DEFAULT_QUEUE_COLLECTION, messageQueue, type QueuedMessage } from '../../src/mediator/queue.js';
import { startMediator } from '../../src/mediator/server.js';
import { requestMediation, updateRecipients } from '../../src/protocols/coordinate-mediation.js';
import { wrapForMediator } from '../../src/protocols/routing.js';
import { TRUST_PING } from '../../src/protocols/trust-ping.js';
import type { BatchOp, Store } from '../../src/store/contract.js';
import { openStore } from '../../src/store/store.js';
import { timeKey } from '../../src/store/time-key.js';
import { crashingStore } from '../store/crashing-store.js';
import { deliveryRequest, messagesReceived, open, party, status, type Delivered } from './parties.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

// An hour ago: the e2e test reads the queue with the system clock, within the TTL.
const T0 = Date.now() - 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** A queue entry as the queue wrote it: key `<recipient>/<id>`, the recipient as keyed. */
function queued(recipient: string, n: number, packed: string, messageId: string): BatchOp {
  const id = `${timeKey(T0 + n)}-0000-old${n}`;
  const value: QueuedMessage = { id, recipient, packed, queuedAt: iso(T0 + n), messageId, type: 'forwarded' };
  return { type: 'put', collection: DEFAULT_QUEUE_COLLECTION, key: `${recipient}/${id}`, value };
}

/**
 * What the mediator kept before for `long` (a did:peer:4 long form): granted mediation, its own
 * DID registered, its key id `#key-1` registered and removed while a message for it waited (a
 * retired claim), two messages for the DID and one for the key id. Beside it, a did:peer:2
 * party's grant, registration and message, which the move leaves as they are.
 */
function oldStore(long: string, packed: (n: number) => string): BatchOp[] {
  const kid = `${long}#key-1`;
  const peer2 = 'did:peer:2.Vz6MkexampleOnly.Ez6LSexampleOnly';
  return [
    { type: 'put', collection: KEYLIST_COLLECTIONS.grants, key: long, value: { did: long, version: '2.0', grantedAt: iso(T0) } },
    { type: 'put', collection: KEYLIST_COLLECTIONS.recipients, key: long, value: { recipientDid: long, owner: long, addedAt: iso(T0) } },
    { type: 'put', collection: KEYLIST_COLLECTIONS.owned, key: `${long} ${long}`, value: { recipientDid: long } },
    { type: 'put', collection: KEYLIST_COLLECTIONS.recipients, key: kid, value: { recipientDid: kid, owner: long, addedAt: iso(T0), removedAt: iso(T0 + 5) } },
    { type: 'put', collection: KEYLIST_COLLECTIONS.retired, key: `${long} ${kid}`, value: { recipientDid: kid } },
    queued(long, 1, packed(1), 'sha256:one'),
    queued(long, 2, packed(2), 'sha256:two'),
    queued(kid, 3, packed(3), 'sha256:three'),
    { type: 'put', collection: KEYLIST_COLLECTIONS.grants, key: peer2, value: { did: peer2, version: '3.0', grantedAt: iso(T0) } },
    { type: 'put', collection: KEYLIST_COLLECTIONS.recipients, key: peer2, value: { recipientDid: peer2, owner: peer2, addedAt: iso(T0) } },
    { type: 'put', collection: KEYLIST_COLLECTIONS.owned, key: `${peer2} ${peer2}`, value: { recipientDid: peer2 } },
    queued(peer2, 4, packed(4), 'sha256:four'),
  ];
}

const COLLECTIONS = [...Object.values(KEYLIST_COLLECTIONS), DEFAULT_QUEUE_COLLECTION];

/** Every key and value of the mediator's collections. */
async function dump(store: Store): Promise<Record<string, Record<string, unknown>>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const name of COLLECTIONS) out[name] = Object.fromEntries((await store.collection(name).list()).map((e) => [e.key, e.value]));
  return out;
}

/** Opens a keylist and a queue over `store` and reads through both (each moves its records at its first use). */
async function openBoth(store: Store, did: string) {
  const deps = { store, clock: new ManualClock(T0 + 1000), ids: sequentialIds('new') };
  const queue = messageQueue(deps);
  const k = keylist({ ...deps, waiting: (d) => queue.kept(d) });
  return { k, queue, recipients: await k.recipientsOf(did), retired: await k.retiredOf(did), count: await queue.count(did) };
}

describe('a store keyed by did:peer:4 long forms', () => {
  it('is moved to short-form keys once: each record under one key, each message once, the rest untouched', async () => {
    const { did: long, shortDid } = createPeerDid4();
    const short = shortDid!;
    const store = await openStore();
    cleanup.push(() => store.close());
    await store.batch(oldStore(long, (n) => `packed-${n}`));
    const before = await dump(store);

    const { k, queue, recipients, retired, count } = await openBoth(store, short);
    expect(recipients).toEqual([long]);
    expect(retired).toEqual([`${long}#key-1`]);
    expect(count).toBe(2);
    expect(await queue.count(`${short}#key-1`)).toBe(1);
    expect(await k.granted(short)).toMatchObject({ did: long, grantedAt: iso(T0) });
    expect(await k.lookup(short)).toMatchObject({ recipientDid: long, owner: long });
    expect(await k.holding(`${long}#key-1`)).toMatchObject({ removedAt: iso(T0 + 5) });

    const after = await dump(store);
    const kid = `${short}#key-1`;
    expect(Object.keys(after[KEYLIST_COLLECTIONS.grants]!).sort()).toEqual([short, 'did:peer:2.Vz6MkexampleOnly.Ez6LSexampleOnly'].sort());
    expect(Object.keys(after[KEYLIST_COLLECTIONS.recipients]!).sort()).toEqual([short, kid, 'did:peer:2.Vz6MkexampleOnly.Ez6LSexampleOnly'].sort());
    expect(Object.keys(after[KEYLIST_COLLECTIONS.owned]!).sort()).toEqual([`${short} ${short}`, 'did:peer:2.Vz6MkexampleOnly.Ez6LSexampleOnly did:peer:2.Vz6MkexampleOnly.Ez6LSexampleOnly'].sort());
    expect(Object.keys(after[KEYLIST_COLLECTIONS.retired]!)).toEqual([`${short} ${kid}`]);
    // Each message once, under its recipient's short form, as it was but for that.
    const messages = Object.values(after[DEFAULT_QUEUE_COLLECTION]!) as QueuedMessage[];
    expect(messages.map((m) => m.messageId).sort()).toEqual(['sha256:four', 'sha256:one', 'sha256:three', 'sha256:two']);
    for (const [key, value] of Object.entries(before[DEFAULT_QUEUE_COLLECTION]!) as Array<[string, QueuedMessage]>) {
      const moved = value.recipient.startsWith('did:peer:4') ? { ...value, recipient: value.recipient.replace(long, short) } : value;
      expect(after[DEFAULT_QUEUE_COLLECTION]![`${moved.recipient}/${value.id}`], key).toEqual(moved);
    }

    // Opened again: nothing left to move, nothing changes.
    await openBoth(store, short);
    expect(await dump(store)).toEqual(after);
  });

  it('keeps every record and every message exactly once whatever write a crash stops the move at', async () => {
    const { did: long, shortDid } = createPeerDid4();
    const short = shortDid!;
    // How many writes the whole move takes, counted on a store that never fails.
    const probe = await openStore();
    cleanup.push(() => probe.close());
    await probe.batch(oldStore(long, (n) => `packed-${n}`));
    const counting = crashingStore(probe, Infinity);
    await openBoth(counting.store, short);
    const writes = counting.batches();
    const expected = await dump(probe);
    expect(writes).toBeGreaterThan(6);

    for (let failAt = 0; failAt < writes; failAt++) {
      const store = await openStore();
      cleanup.push(() => store.close());
      await store.batch(oldStore(long, (n) => `packed-${n}`));
      const crashing = crashingStore(store, failAt);
      await expect(openBoth(crashing.store, short), `stopped at write ${failAt}`).rejects.toThrow();
      // Every message is under one key or the other: none lost, none twice.
      const midway = Object.values((await dump(store))[DEFAULT_QUEUE_COLLECTION]!) as QueuedMessage[];
      expect(midway.map((m) => m.messageId).sort(), `stopped at write ${failAt}`).toEqual(['sha256:four', 'sha256:one', 'sha256:three', 'sha256:two']);
      // The next open (the process started again) finishes the move.
      const again = await openBoth(store, short);
      expect([again.recipients, again.retired, again.count], `stopped at write ${failAt}`).toEqual([[long], [`${long}#key-1`], 2]);
      expect(await dump(store), `stopped at write ${failAt}`).toEqual(expected);
    }
  });

  it('keeps one registration of a DID registered in both forms by two parties: its own party\'s, and every message for it', async () => {
    const { did: long, shortDid } = createPeerDid4();
    const short = shortDid!;
    const other = 'did:peer:2.Vz6MkotherOnly.Ez6LSotherOnly';
    const store = await openStore();
    cleanup.push(() => store.close());
    // The party registered its own DID in its long form; another party, earlier, its short form
    // (the mediator took them for two DIDs). Each form has a message waiting.
    await store.batch([
      { type: 'put', collection: KEYLIST_COLLECTIONS.grants, key: long, value: { did: long, version: '2.0', grantedAt: iso(T0) } },
      { type: 'put', collection: KEYLIST_COLLECTIONS.recipients, key: long, value: { recipientDid: long, owner: long, addedAt: iso(T0 + 10) } },
      { type: 'put', collection: KEYLIST_COLLECTIONS.owned, key: `${long} ${long}`, value: { recipientDid: long } },
      { type: 'put', collection: KEYLIST_COLLECTIONS.grants, key: other, value: { did: other, version: '2.0', grantedAt: iso(T0) } },
      { type: 'put', collection: KEYLIST_COLLECTIONS.recipients, key: short, value: { recipientDid: short, owner: other, addedAt: iso(T0 + 1) } },
      { type: 'put', collection: KEYLIST_COLLECTIONS.owned, key: `${other} ${short}`, value: { recipientDid: short } },
      queued(long, 1, 'packed-1', 'sha256:one'),
      queued(short, 2, 'packed-2', 'sha256:two'),
    ]);
    const { k, queue, recipients, count } = await openBoth(store, long);
    expect(recipients).toEqual([long]);
    expect(count).toBe(2);
    expect(await k.recipientsOf(other)).toEqual([]);
    expect(await k.lookup(short)).toMatchObject({ owner: long });
    expect((await queue.list(short)).map((m) => m.messageId)).toEqual(['sha256:one', 'sha256:two']);
    expect(Object.keys((await dump(store))[KEYLIST_COLLECTIONS.owned]!)).toEqual([`${short} ${short}`]);
  });
});

describe('the mediator over a store keyed by did:peer:4 long forms', () => {
  const isDelivery = (d: unknown): d is Delivered => Array.isArray((d as Delivered).messages);

  it('delivers, after the upgrade, each message the store held once, with new forwards to either form, and keeps the grant', async () => {
    const store = await openStore();
    const r = party({ peer4: true });
    const s = party({ knows: [r.created.did] });
    const long = r.created.did;
    const short = r.created.shortDid!;
    cleanup.push(() => store.close(), () => r.close(), () => s.close());
    // Messages the mediator acknowledged before the upgrade: pings for the party, packed by the sender.
    const pings: string[] = [];
    const packedPing = async (to: string) => {
      const message = { id: `ping-${pings.length}`, type: TRUST_PING.ping, from: s.did, to: [to], body: { response_requested: false } };
      pings.push(message.id);
      return (await pack(message, { mode: 'authcrypt' }, s.envelope)).packed;
    };
    const packed = [await packedPing(long), await packedPing(long), await packedPing(long)];
    await store.batch(oldStore(long, (n) => packed[n - 1] ?? `packed-${n}`));

    // The mediator holds the party's long form, so it resolves the short one (§Method 4 "Short form").
    const resolve = documentResolver(createResolver({ cache: false, registry: { get: async (did) => (did === short ? long : undefined) } }));
    const m = await startMediator({ store, resolve });
    cleanup.push(() => m.close());
    // The party asks in either form; the message for its removed key id is still its own.
    const asShort = party({ created: r.created, as: short });
    cleanup.push(() => asShort.close());
    expect((await status(r, m.did)).status.messageCount).toBe(3);
    expect((await status(asShort, m.did)).status.messageCount).toBe(3);
    expect(await updateRecipients(r.router, m.did, [{ recipientDid: short, action: 'add' }])).toEqual([{ recipientDid: short, action: 'add', result: 'no_change' }]);

    // A new forward to the short form is queued for the party's registration of its long form.
    const fresh = { id: 'ping-new', type: TRUST_PING.ping, from: s.did, to: [short], body: { response_requested: false } };
    const inner = (await pack(fresh, { mode: 'authcrypt' }, s.envelope)).packed;
    const forward = await wrapForMediator(inner, { next: short, mediator: m.did }, s.envelope, { clock: systemClock });
    await httpTransport().send(`${m.url}/didcomm`, forward.packed);
    expect((await status(r, m.did)).status.messageCount).toBe(4);

    // Another party cannot take the DID in its short form.
    const other = party();
    cleanup.push(() => other.close());
    expect((await requestMediation(other.router, m.did, '2.0')).granted).toBe(true);
    await expect(updateRecipients(other.router, m.did, [{ recipientDid: short, action: 'add' }])).rejects.toMatchObject({ code: 'mediation_update_failed' });

    const d = await deliveryRequest(r, m.did, 10);
    if (!isDelivery(d)) throw new Error('expected a delivery');
    const ids = await Promise.all(d.messages.map(async (x) => (await open(r, x.packed)).id));
    expect(ids.sort()).toEqual([...pings, 'ping-new'].sort());
    expect(await messagesReceived(r, m.did, d.messages.map((x) => x.id))).toMatchObject({ messageCount: 0 });
    expect((await status(asShort, m.did)).status.messageCount).toBe(0);
  });
});
