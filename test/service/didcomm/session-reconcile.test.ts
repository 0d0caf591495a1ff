// The service's view of a Data Pipe session is never behind the wallet's: when the user's record
// has lost its link (an earlier crash, a write that never landed) while the session stands — the
// pipe record names the wallet, or the wallet proves it by answering on a thread of the pipe with
// its DID — the user is linked again instead of a sync being refused with 409
// session_not_established.
import { afterEach, describe, expect, it } from 'vitest';
import { listSyncOperations, type InboundInfo } from '../../../src/service/didcomm-seam.js';
import { COLLECTIONS } from '../../../src/service/didcomm/collections.js';
import { USERS, userKey, type UserRecord, type UserRef } from '../../../src/service/users/users.js';
import { memoryHarness, SERVICE_ENDPOINT, type MemoryHarness } from './harness.js';

let h: MemoryHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The user's record as if its link had never been stored. */
async function forgetLink(m: MemoryHarness, ref: UserRef): Promise<void> {
  const users = m.store.collection<UserRecord>(USERS);
  const u = (await users.get(userKey(ref)))!;
  const { userDID: _l, shortUserDID: _s, ...rest } = u;
  await users.put(userKey(ref), { ...rest, isSessionEstablished: false });
}

async function linked(m: MemoryHarness, userId: string) {
  const ref = await m.user(userId);
  const holder = m.holder();
  await holder.acceptDataPipe(await m.invitation(ref));
  return { ref, holder };
}

describe('a session the service lost the record of', () => {
  it('is linked again from its pipe record: a manual sync gets 202 and completes, no 409', async () => {
    h = await memoryHarness();
    const { ref, holder } = await linked(h, 'u1');
    await forgetLink(h, ref);
    const completed = h.agent.waitFor('sync-completed');
    const { operationId } = await h.service.deps.users.startSync(ref);
    await completed;
    expect((await listSyncOperations(h.store, ref)).find((o) => o.id === operationId)?.status).toBe('completed');
    expect(await h.service.deps.users.require(ref)).toMatchObject({ isSessionEstablished: true, userDID: holder.did.did, isLinked: true });
  });

  it("is linked again from the wallet's DID authentication on the pipe's thread when the pipe record is gone too", async () => {
    h = await memoryHarness();
    const { ref, holder } = await linked(h, 'u2');
    // The presentation is held back while the service loses the user's link and its pipe record.
    const held: string[] = [];
    h.network.endpoint(SERVICE_ENDPOINT, async (packed, info) => {
      const sent = holder.sentPacked.find((s) => s.packed === packed);
      if (sent?.message.type.endsWith('/present-proof/3.0/presentation') && held.length === 0) return void held.push(packed);
      return h!.agent.receive(packed, { transport: 'memory', reply: info.reply, bind: info.bind } as unknown as InboundInfo);
    });
    const asked = new Promise((resolve) => holder.events.once('authenticated', resolve));
    await h.service.deps.users.startSync(ref);
    await h.agent.idle();
    expect(held).toHaveLength(1);
    await forgetLink(h, ref);
    await h.store.collection(COLLECTIONS.pipes).del(userKey(ref));
    const completed = h.agent.waitFor('sync-completed');
    await h.agent.receive(held[0]!, { transport: 'http' } as InboundInfo);
    await asked;
    await completed;
    expect(await h.service.deps.users.require(ref)).toMatchObject({ isSessionEstablished: true, userDID: holder.did.did, isLinked: true });
    // And the next manual sync is taken (202), not refused.
    const again = h.agent.waitFor('sync-completed');
    await h.service.deps.users.startSync(ref);
    await again;
  });

  it('is still refused when the wallet closed the pipe', async () => {
    h = await memoryHarness();
    const { ref } = await linked(h, 'u3');
    const pipes = h.store.collection<Record<string, unknown>>(COLLECTIONS.pipes);
    await pipes.put(userKey(ref), { ...(await pipes.get(userKey(ref)))!, closedAt: new Date().toISOString() });
    await forgetLink(h, ref);
    await expect(h.service.deps.users.startSync(ref)).rejects.toMatchObject({ code: 'session_not_established' });
  });
});
