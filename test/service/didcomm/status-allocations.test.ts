// Status list allocation (status.ts): an issuance writes one small record for its index, not the
// whole list record, and the allocations survive a restart and fold into the next whole write.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import { getStatus, type StatusList } from '../../../src/credentials/status-list.js';
import { COLLECTIONS } from '../../../src/service/didcomm/collections.js';
import type { AgentCore } from '../../../src/service/didcomm/core.js';
import { statusService, type StatusListRecord } from '../../../src/service/didcomm/status.js';
import { generateKeyPair } from '../../../src/keys.js';
import { openStore, type Store } from '../../../src/store/store.js';

const assertionKey = generateKeyPair('Ed25519', new Uint8Array(32).fill(3));

function core(store: Store, did = 'did:web:svc.example'): AgentCore {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const identity = { did, assertionKid: '#key-3', assertionKey };
  return {
    deps: { store, publicUrl: 'https://svc.example', serviceDid: did, identity, clock },
    // Always the same random index: allocation must probe past every index taken.
    options: { statusIndex: () => 0 },
    lock: <T>(_key: string, fn: () => Promise<T>) => fn(),
    now: () => new Date(clock.now()).toISOString(),
    events: new EventEmitter(),
  } as unknown as AgentCore;
}

const allocated = (list: StatusList, n: number) => {
  const bits = Buffer.from(list.allocated, 'base64url');
  return Array.from({ length: n }, (_, i) => (bits[i >> 3]! & (0x80 >> (i & 7))) !== 0);
};

describe('status list allocation', () => {
  it('writes the list record once and one small record per later index; a restart sees every index taken', async () => {
    const store = await openStore();
    try {
      const lists = store.collection<StatusListRecord>(COLLECTIONS.statusLists);
      const first = statusService(core(store));
      expect((await first.allocate('revocation')).index).toBe(0);
      const written = await lists.get('revocation-1');
      expect(written?.credential).toBeDefined();
      expect((await first.allocate('revocation')).index).toBe(1);
      expect((await first.allocate('revocation')).index).toBe(2);
      // The whole record was not written again…
      expect(await lists.get('revocation-1')).toEqual(written);
      // …the two later indexes are records of their own.
      expect((await store.collection(COLLECTIONS.statusAllocations).list()).map((e) => e.key)).toEqual(['revocation-1/000000001', 'revocation-1/000000002']);

      const restarted = statusService(core(store));
      const next = await restarted.allocate('revocation');
      expect(next.index).toBe(3);
      expect(next.entry.statusListIndex).toBe('3');
      // The published list is the one issued at first: allocation changes no status bit.
      expect(await restarted.listCredential('revocation-1')).toEqual(written?.credential);
    } finally {
      await store.close();
    }
  });

  it('the next whole write of the record folds the allocation records into it and deletes them', async () => {
    const store = await openStore();
    try {
      const first = statusService(core(store));
      for (let i = 0; i < 4; i++) await first.allocate('revocation');
      // The service's DID changed (another port): the list is issued again under it, written whole.
      const moved = statusService(core(store, 'did:web:svc.example%3A8443'));
      const credential = await moved.listCredential('revocation-1');
      expect((credential as { issuer: string }).issuer).toBe('did:web:svc.example%3A8443');
      const rec = await store.collection<StatusListRecord>(COLLECTIONS.statusLists).get('revocation-1');
      expect(rec?.list.allocatedCount).toBe(4);
      expect(allocated(rec!.list, 5)).toEqual([true, true, true, true, false]);
      expect(getStatus(rec!.list, 0)).toBe(false);
      expect(await store.collection(COLLECTIONS.statusAllocations).list()).toEqual([]);
      expect((await statusService(core(store, 'did:web:svc.example%3A8443')).allocate('revocation')).index).toBe(4);
    } finally {
      await store.close();
    }
  });
});
