// The service's thread records hold the wallet's long-form DID once (threads.ts storedThread):
// `peerLong` is stored as 0 when it is the thread's peer, and every read gives it back.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COLLECTIONS } from '../../../src/service/didcomm/collections.js';
import { readThread, storedThread, threadStore, type DcThread } from '../../../src/service/didcomm/threads.js';
import { memoryHarness, type MemoryHarness } from './harness.js';

let h: MemoryHarness;
beforeEach(async () => {
  h = await memoryHarness();
});
afterEach(async () => {
  await h.close();
});

describe('service thread records', () => {
  it('store the long-form DID once and read back with peerLong, through a whole sync', async () => {
    const ref = await h.user('u1');
    const holder = h.holder();
    await holder.acceptDataPipe(await h.invitation(ref));
    const done = h.agent.waitFor('sync-completed');
    await h.service.deps.users.startSync(ref);
    await done;
    await h.agent.idle();
    const raw = await h.store.collection<DcThread>(COLLECTIONS.threads).list();
    expect(raw.map((e) => e.value.kind).sort()).toEqual(['auth', 'issue']);
    const threads = threadStore(h.store, () => new Date().toISOString());
    for (const { key, value } of raw) {
      expect(value.peer).toMatch(/^did:ion:.+:.+/);
      expect(value.peerLong as unknown).toBe(0);
      expect(JSON.stringify(value).split(value.peer!).length - 1).toBe(1);
      expect((await threads.get(key))!.peerLong).toBe(value.peer);
    }
  });

  it('keep a peerLong that is not the peer as it is', () => {
    const t = { thid: 't', protocol: 'p', role: 'issuer', state: 'start', peer: 'did:example:short', messages: [], peerLong: 'did:example:long' } as unknown as DcThread;
    expect(storedThread(t)).toBe(t);
    const same = { ...t, peerLong: 'did:example:short' };
    const stored = JSON.parse(JSON.stringify(storedThread(same))) as DcThread;
    expect(stored.peerLong as unknown).toBe(0);
    expect(Object.keys(stored)).toEqual(Object.keys(same));
    expect(readThread(stored)).toEqual(same);
    expect(same.peerLong).toBe('did:example:short');
  });
});
