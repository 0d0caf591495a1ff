// A service store written when only did:ion long forms were shortened: a user linked to a
// did:peer:4 wallet holds its long form as `shortUserDID`, and the wallet DID index keys it by the
// long form. Opened now, the wallet is found by either form (DID Peer §Method 4: one DID), its
// index entry moved once, after a crash at any write of the move too; a did:ion link stays.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createIonDid } from '../../src/did/ion.js';
import { createPeerDid4 } from '../../src/did/peer4.js';
import { createUserStore, USER_DIDS, USERS, type UserRecord } from '../../src/service/users/users.js';
import type { BatchOp, Store } from '../../src/store/contract.js';
import { openStore } from '../../src/store/store.js';
import { crashingStore } from '../store/crashing-store.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const AT = '2026-01-01T00:00:00.000Z';
const silent = { debug() {}, info() {}, warn() {}, error() {} };

function user(userId: string, long: string, short: string): UserRecord {
  return {
    tenantId: 't1', userId, userStatus: 'Registered', userDID: long, shortUserDID: short, userLogins: 0, settings: { isSyncOn: true },
    datapoints: {}, datapointsSynced: {}, isSessionEstablished: true, isLinked: true, pendingSync: false, createdAt: AT, updatedAt: AT,
  };
}

/** u1 linked to a did:peer:4 (keyed by its long form, as then), u2 to a did:ion (keyed by its short form). */
function oldStore() {
  const peer4 = createPeerDid4();
  const ion = createIonDid();
  const ops: BatchOp[] = [
    { type: 'put', collection: USERS, key: 't1/u1', value: user('u1', peer4.did, peer4.did) },
    { type: 'put', collection: USER_DIDS, key: `t1/${peer4.did}`, value: 'u1' },
    { type: 'put', collection: USERS, key: 't1/u2', value: user('u2', ion.did, ion.shortDid!) },
    { type: 'put', collection: USER_DIDS, key: `t1/${ion.shortDid}`, value: 'u2' },
  ];
  return { peer4, ion, ops };
}

function users(store: Store) {
  return createUserStore({ store, clock: new ManualClock(Date.parse(AT)), events: { emit: async () => {} }, logger: silent as never, agent: { requestSync: async () => ({ operationId: 'op' }) } });
}

async function found(store: Store, old: ReturnType<typeof oldStore>) {
  const u = users(store);
  return [
    (await u.findByDid('t1', old.peer4.shortDid!))?.userId,
    (await u.findByDid('t1', old.peer4.did))?.userId,
    (await u.findByDid('t1', old.ion.did))?.userId,
    (await u.findByDid('t1', old.ion.shortDid!))?.userId,
  ];
}

const keys = async (store: Store) => (await store.collection(USER_DIDS).list()).map((e) => e.key).sort();

describe('wallet DIDs kept under a did:peer:4 long form', () => {
  it('are found by either form once moved, and a session ended in the short form ends', async () => {
    const old = oldStore();
    const store = await openStore();
    cleanup.push(() => store.close());
    await store.batch(old.ops);
    expect(await found(store, old)).toEqual(['u1', 'u1', 'u2', 'u2']);
    expect(await keys(store)).toEqual([`t1/${old.peer4.shortDid}`, `t1/${old.ion.shortDid}`].sort());
    // The user's record still names the long form as shortUserDID: compared through shortForm.
    const u = users(store);
    await u.endSession({ tenantId: 't1', userId: 'u1' }, old.peer4.shortDid!);
    expect((await u.require({ tenantId: 't1', userId: 'u1' })).isSessionEstablished).toBe(false);
  });

  it('are found once whatever write a crash stops the move at', async () => {
    const old = oldStore();
    const probe = await openStore();
    cleanup.push(() => probe.close());
    await probe.batch(old.ops);
    const counting = crashingStore(probe, Infinity);
    await found(counting.store, old);
    expect(counting.batches()).toBe(1);
    const expected = await keys(probe);
    const store = await openStore();
    cleanup.push(() => store.close());
    await store.batch(old.ops);
    await expect(found(crashingStore(store, 0).store, old)).rejects.toThrow();
    expect((await keys(store)).length).toBe(2);
    expect(await found(store, old)).toEqual(['u1', 'u1', 'u2', 'u2']);
    expect(await keys(store)).toEqual(expected);
  });
});
