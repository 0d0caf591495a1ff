// A store written when only did:ion long forms were shortened: the DID registry, the secrets and
// the connections' index kept a did:peer:4 under its long form as given. Opened now, everything is
// keyed by the short form (DID Peer §Method 4: the long and short forms are one DID), and what the
// store held is found by either form, once, after a crash at any write of the move too. did:ion
// and did:peer:2 keys are left as they were.
import { afterEach, describe, expect, it } from 'vitest';
import { createIonDid } from '../../src/did/ion.js';
import { createPeerDid } from '../../src/did/peer.js';
import { createPeerDid4 } from '../../src/did/peer4.js';
import { CONNECTIONS_BY_DID_COLLECTION, CONNECTIONS_COLLECTION, connections } from '../../src/store/connections.js';
import type { BatchOp, Store } from '../../src/store/contract.js';
import { DIDS_COLLECTION, OWN_DIDS_COLLECTION, didRegistry } from '../../src/store/dids.js';
import { SECRETS_COLLECTION, storeSecrets } from '../../src/store/secrets.js';
import { openStore } from '../../src/store/store.js';
import { crashingStore } from './crashing-store.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const AT = '2025-01-01T00:00:00.000Z';
const COLLECTIONS = [DIDS_COLLECTION, OWN_DIDS_COLLECTION, SECRETS_COLLECTION, CONNECTIONS_COLLECTION, CONNECTIONS_BY_DID_COLLECTION];

/**
 * As the earlier code wrote them: our own did:peer:4 (its record, its long form and its secrets
 * under the long form), a peer's did:peer:4 long form learnt, a connection to that peer indexed
 * under its long form; beside them a did:ion and a did:peer:2 of ours, which stay as they are.
 */
function oldStore() {
  const mine = createPeerDid4();
  const peer = createPeerDid4();
  const ion = createIonDid();
  const peer2 = createPeerDid();
  const secret = (s: { id: string; type: string; privateKeyJwk: unknown }, key = s.id): BatchOp => ({ type: 'put', collection: SECRETS_COLLECTION, key, value: s });
  const connection = { id: 'conn-1', theirDid: peer.did, myDid: mine.did, state: 'established', createdAt: AT, updatedAt: AT };
  const ops: BatchOp[] = [
    { type: 'put', collection: OWN_DIDS_COLLECTION, key: mine.did, value: { did: mine.did, createdAt: AT, purpose: 'wallet' } },
    { type: 'put', collection: DIDS_COLLECTION, key: mine.did, value: mine.did },
    ...mine.secrets.map((s) => secret(s)),
    { type: 'put', collection: DIDS_COLLECTION, key: peer.did, value: peer.did },
    { type: 'put', collection: CONNECTIONS_COLLECTION, key: connection.id, value: connection },
    { type: 'put', collection: CONNECTIONS_BY_DID_COLLECTION, key: `${peer.did}\u0000${connection.id}`, value: connection.id },
    { type: 'put', collection: OWN_DIDS_COLLECTION, key: ion.shortDid!, value: { did: ion.did, shortDid: ion.shortDid, createdAt: AT } },
    { type: 'put', collection: DIDS_COLLECTION, key: ion.shortDid!, value: ion.did },
    ...ion.secrets.map((s) => secret(s, s.id.replace(ion.did, ion.shortDid!))),
    { type: 'put', collection: OWN_DIDS_COLLECTION, key: peer2.did, value: { did: peer2.did, createdAt: AT } },
    { type: 'put', collection: DIDS_COLLECTION, key: peer2.did, value: peer2.did },
    ...peer2.secrets.map((s) => secret(s)),
  ];
  return { mine, peer, ion, peer2, ops };
}

type Old = ReturnType<typeof oldStore>;

async function dump(store: Store): Promise<Record<string, Record<string, unknown>>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const name of COLLECTIONS) out[name] = Object.fromEntries((await store.collection(name).list()).map((e) => [e.key, e.value]));
  return out;
}

/** Reads through the registry, the secrets and the connections (each moves its keys at its first use). */
async function readAll(store: Store, old: Old) {
  const registry = didRegistry(store);
  const secrets = storeSecrets(store);
  const conns = connections(store);
  return {
    mine: await registry.getOwn(old.mine.shortDid!),
    mineLong: await registry.get(old.mine.shortDid!),
    peerLong: await registry.get(old.peer.shortDid!),
    knowsPeer: await registry.has(old.peer.did),
    key: (await secrets.get(`${old.mine.shortDid}#key-2`))?.privateKeyJwk,
    keyByLong: (await secrets.get(`${old.mine.did}#key-2`))?.privateKeyJwk,
    kids: (await secrets.kids(old.mine.did)).length,
    byShort: (await conns.findByTheirDid(old.peer.shortDid!))?.id,
    byLong: (await conns.listByTheirDid(old.peer.did)).map((c) => c.id),
    ion: await registry.getOwn(old.ion.did),
    peer2: await registry.getOwn(old.peer2.did),
  };
}

function expectFound(found: Awaited<ReturnType<typeof readAll>>, old: Old): void {
  expect(found.mine).toEqual({ did: old.mine.did, shortDid: old.mine.shortDid, createdAt: AT, purpose: 'wallet' });
  expect([found.mineLong, found.peerLong, found.knowsPeer]).toEqual([old.mine.did, old.peer.did, true]);
  const jwk = old.mine.secrets.find((s) => s.id.endsWith('#key-2'))!.privateKeyJwk;
  expect([found.key, found.keyByLong, found.kids]).toEqual([jwk, jwk, 2]);
  expect([found.byShort, found.byLong]).toEqual(['conn-1', ['conn-1']]);
  expect(found.ion).toMatchObject({ did: old.ion.did });
  expect(found.peer2).toMatchObject({ did: old.peer2.did });
}

describe('a store keyed by did:peer:4 long forms (registry, secrets, connections)', () => {
  it('is moved to short-form keys once, and did:ion and did:peer:2 keys stay', async () => {
    const old = oldStore();
    const store = await openStore();
    cleanup.push(() => store.close());
    await store.batch(old.ops);
    const before = await dump(store);

    expectFound(await readAll(store, old), old);
    const after = await dump(store);
    const { mine, peer, ion, peer2 } = old;
    expect(Object.keys(after[DIDS_COLLECTION]!).sort()).toEqual([mine.shortDid, peer.shortDid, ion.shortDid, peer2.did].sort());
    expect(Object.keys(after[OWN_DIDS_COLLECTION]!).sort()).toEqual([mine.shortDid, ion.shortDid, peer2.did].sort());
    expect(Object.keys(after[SECRETS_COLLECTION]!).sort()).toEqual(
      [...mine.secrets.map((s) => s.id.replace(mine.did, mine.shortDid!)), ...Object.keys(before[SECRETS_COLLECTION]!).filter((k) => !k.startsWith('did:peer:4'))].sort(),
    );
    expect(Object.keys(after[CONNECTIONS_BY_DID_COLLECTION]!)).toEqual([`${peer.shortDid}\u0000conn-1`]);
    for (const name of [DIDS_COLLECTION, SECRETS_COLLECTION]) {
      for (const [key, value] of Object.entries(before[name]!)) if (!key.startsWith('did:peer:4')) expect(after[name]![key]).toEqual(value);
    }

    // Opened again: nothing left to move, nothing changes.
    expectFound(await readAll(store, old), old);
    expect(await dump(store)).toEqual(after);
  });

  it('finds everything once whatever write a crash stops the move at', async () => {
    const old = oldStore();
    const probe = await openStore();
    cleanup.push(() => probe.close());
    await probe.batch(old.ops);
    const counting = crashingStore(probe, Infinity);
    await readAll(counting.store, old);
    const writes = counting.batches();
    const expected = await dump(probe);
    expect(writes).toBe(6);

    for (let failAt = 0; failAt < writes; failAt++) {
      const store = await openStore();
      cleanup.push(() => store.close());
      await store.batch(old.ops);
      await expect(readAll(crashingStore(store, failAt).store, old), `stopped at write ${failAt}`).rejects.toThrow();
      // Each record under one key or the other, none twice.
      const midway = await dump(store);
      expect(Object.keys(midway[SECRETS_COLLECTION]!).length, `stopped at write ${failAt}`).toBe(Object.keys(expected[SECRETS_COLLECTION]!).length);
      expect(Object.keys(midway[CONNECTIONS_BY_DID_COLLECTION]!).length, `stopped at write ${failAt}`).toBe(1);
      // The next start finishes the move.
      expectFound(await readAll(store, old), old);
      expect(await dump(store), `stopped at write ${failAt}`).toEqual(expected);
    }
  });
});
