// A wallet whose DID is a did:peer:4: its Data Pipe request carries the long form, and every
// message after it the short form (DID Peer §Method 4: "the short form ... after the first
// message"). The service takes both for one wallet: one user linked, one Data Pipe, a sync that
// authenticates and issues to it, and a close in the short form that finds the pipe.
import { afterEach, describe, expect, it } from 'vitest';
import { buildDataPipeClose } from '../../../src/protocols/data-pipe.js';
import { COLLECTIONS } from '../../../src/service/didcomm/collections.js';
import { USER_DIDS, userKey } from '../../../src/service/users/users.js';
import { didRegistry } from '../../../src/store/dids.js';
import { memoryHarness, named, TENANT, type MemoryHarness } from './harness.js';

let h: MemoryHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('a did:peer:4 wallet, long form first and short form after', () => {
  it('is one user and one Data Pipe: a sync in the short form completes, and a close in it ends the pipe', async () => {
    h = await memoryHarness();
    const ref = await h.user('u1');
    const holder = h.holder({ name: 'peer4-wallet', peer4: true });
    const long = holder.did.did;
    const short = holder.did.shortDid!;
    expect(long.startsWith(`${short}:`)).toBe(true);

    const request = await holder.acceptDataPipe(await h.invitation(ref));
    expect(request.from).toBe(long);
    expect(holder.from()).toBe(short);
    // The long form is kept, so the short form resolves from now on (§Method 4 "Short form").
    expect(await didRegistry(h.store).get(short)).toBe(long);
    const users = h.service.deps.users;
    expect(await users.require(ref)).toMatchObject({ userDID: long, shortUserDID: short, isSessionEstablished: true });
    expect((await users.findByDid(TENANT, short))?.userId).toBe('u1');
    expect((await users.findByDid(TENANT, long))?.userId).toBe('u1');
    expect((await h.store.collection(USER_DIDS).list()).map((e) => e.key)).toEqual([`${TENANT}/${short}`]);

    // Authentication, the credential request and the ack all come from the short form.
    const done = h.agent.waitFor('sync-completed');
    await users.startSync(ref);
    await done;
    expect(holder.credentials).toHaveLength(1);
    expect(await users.require(ref)).toMatchObject({ userDID: long, shortUserDID: short, isSessionEstablished: true, isLinked: true });
    expect((await h.store.collection(COLLECTIONS.pipes).list()).map((e) => e.key)).toEqual([userKey(ref)]);

    // The long form again after the short one (a repeated request): the same wallet, answered
    // again without relinking, not refused as another DID for the user.
    await holder.acceptDataPipe(await h.invitation(ref));
    expect(named(h.webhooks, 'DATA_PIPE_ESTABLISHED')).toHaveLength(1);

    // A pipe recorded before the two forms were one DID kept the long form as its short one: a
    // repeated request is answered with the short form, which the wallet checks, and the record
    // is written again with it.
    const pipes = h.store.collection<{ shortDid: string }>(COLLECTIONS.pipes);
    await pipes.put(userKey(ref), { ...(await pipes.get(userKey(ref)))!, shortDid: long });
    const again = h.agent.waitFor<{ shortDid: string }>('data-pipe-established');
    await holder.acceptDataPipe(await h.invitation(ref));
    expect((await again).shortDid).toBe(short);
    expect((await pipes.get(userKey(ref)))!.shortDid).toBe(short);

    const closed = h.agent.waitFor<{ userId: string; by: string }>('data-pipe-closed');
    await holder.send(buildDataPipeClose({ from: short, to: String(request.to?.[0]), thid: request.id }, { clock: h.clock, ids: () => 'close-short' }));
    expect(await closed).toMatchObject({ userId: 'u1', by: 'wallet' });
    expect((await users.require(ref)).isSessionEstablished).toBe(false);
  });
});
