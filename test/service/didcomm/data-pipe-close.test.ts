// A wallet closes its Data Pipe (docs/protocols.md "Data Pipe": close, either side). The service
// finds the pipe by its thread and the wallet's DID through an index written with the pipe, not
// by reading every pipe; a close on a thread the sender has no pipe on is refused with
// e.p.msg.unknown-thread and changes nothing. A store written before the index gets its pipes
// indexed once, at the first close the index cannot answer.
import { afterEach, describe, expect, it } from 'vitest';
import { buildDataPipeClose } from '../../../src/protocols/data-pipe.js';
import { COLLECTIONS } from '../../../src/service/didcomm/collections.js';
import { openStore } from '../../../src/store/store.js';
import { userKey, type UserRef } from '../../../src/service/users/users.js';
import { countingStore } from '../../store/counting-store.js';
import { memoryHarness, type MemoryHarness } from './harness.js';
import type { Holder } from './holder.js';

let h: MemoryHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The service's record of the user's pipe. */
const pipeOf = (m: MemoryHarness, ref: UserRef) => m.store.collection<{ thid: string; closedAt?: string; closeReason?: string }>(COLLECTIONS.pipes).get(userKey(ref));

const nextProblem = (holder: Holder) => new Promise<{ code: string; pthid: string }>((resolve) => holder.events.once('problem', resolve));

describe("a wallet's Data Pipe close", () => {
  it('closes its own pipe, found without reading the others', async () => {
    const { store, listings } = countingStore(await openStore(), COLLECTIONS.pipes);
    h = await memoryHarness({ store });
    const others = await Promise.all(['o1', 'o2', 'o3'].map(async (id) => {
      const ref = await h!.user(id);
      const holder = h!.holder({ name: id });
      return { ref, holder, request: await holder.acceptDataPipe(await h!.invitation(ref)) };
    }));
    const ref = await h.user('u1');
    const holder = h.holder({ name: 'closer' });
    const request = await holder.acceptDataPipe(await h.invitation(ref));
    const closed = h.agent.waitFor<{ userId: string; thid: string; by: string }>('data-pipe-closed');
    await holder.send(buildDataPipeClose({ from: holder.from(), to: String(request.to?.[0]), thid: request.id, reason: 'user left' }, { clock: h.clock, ids: () => 'close-1' }));
    expect(await closed).toMatchObject({ userId: 'u1', thid: request.id, by: 'wallet' });
    expect(await pipeOf(h, ref)).toMatchObject({ thid: request.id, closeReason: 'user left', closedAt: expect.any(String) });
    for (const o of others) expect((await pipeOf(h!, o.ref))?.closedAt).toBeUndefined();
    expect(listings()).toBe(0);
  });

  it("ends the user's session with the pipe: sync refused, a new invitation links a wallet again", async () => {
    h = await memoryHarness();
    const ref = await h.user('u1');
    const holder = h.holder({ name: 'leaver' });
    const request = await holder.acceptDataPipe(await h.invitation(ref));
    expect((await h.service.deps.users.get(ref))?.isSessionEstablished).toBe(true);
    const closed = h.agent.waitFor('data-pipe-closed');
    await holder.send(buildDataPipeClose({ from: holder.from(), to: String(request.to?.[0]), thid: request.id }, { clock: h.clock, ids: () => 'close-s' }));
    await closed;
    // docs/protocols.md "States": isSessionEstablished is true in `established` only.
    expect((await h.service.deps.users.get(ref))?.isSessionEstablished).toBe(false);
    await expect(h.service.deps.users.startSync(ref)).rejects.toMatchObject({ code: 'session_not_established' });
    // The same wallet (or another) answers a new invitation: established again.
    const again = await holder.acceptDataPipe(await h.invitation(ref));
    expect(again.id).not.toBe(request.id);
    expect((await h.service.deps.users.get(ref))?.isSessionEstablished).toBe(true);
  });

  it("refuses a close on another wallet's pipe, and on a thread nobody has, with e.p.msg.unknown-thread", async () => {
    h = await memoryHarness();
    const ref = await h.user('u1');
    const owner = h.holder({ name: 'owner' });
    const request = await owner.acceptDataPipe(await h.invitation(ref));
    const stranger = h.holder({ name: 'stranger' });
    for (const thid of [request.id, 'no-such-thread']) {
      const problem = nextProblem(stranger);
      const sent = await stranger.send(buildDataPipeClose({ from: stranger.from(), to: String(request.to?.[0]), thid }, { clock: h.clock, ids: () => `close-${thid}` }));
      expect(await problem).toMatchObject({ code: 'e.p.msg.unknown-thread', pthid: sent.thid ?? sent.id });
    }
    expect((await pipeOf(h, ref))?.closedAt).toBeUndefined();
  });

  it('finds a pipe stored before the index: its pipes are indexed once, at the first close the index cannot answer', async () => {
    const { store, listings } = countingStore(await openStore(), COLLECTIONS.pipes);
    h = await memoryHarness({ store });
    const ref = await h.user('u1');
    const holder = h.holder({ name: 'older' });
    const request = await holder.acceptDataPipe(await h.invitation(ref));
    // As a store written before the index holds it: the pipe, without its index entry.
    const index = store.collection<string>(COLLECTIONS.pipesByThread);
    for (const e of await index.list()) await index.del(e.key);
    await h.restart();
    const closed = h.agent.waitFor('data-pipe-closed');
    await holder.send(buildDataPipeClose({ from: holder.from(), to: String(request.to?.[0]), thid: request.id }, { clock: h.clock, ids: () => 'close-old' }));
    await closed;
    expect((await pipeOf(h, ref))?.closedAt).toEqual(expect.any(String));
    expect(listings()).toBe(1);
    expect(await index.count()).toBe(1);
  });
});
