// docs/protocols.md "Refusals that change no state": replays, wrong threads, out-of-order and
// tampered messages are answered with report-problem where the sender is authenticated, logged,
// and change nothing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listSyncOperations } from '../../../src/service/didcomm-seam.js';
import { buildIssueAck, buildRequestCredential } from '../../../src/protocols/issue-credential.js';
import { messageLog } from '../../../src/store/messages.js';
import { memoryHarness, type MemoryHarness } from './harness.js';
import type { Holder } from './holder.js';

let h: MemoryHarness;
beforeEach(async () => {
  h = await memoryHarness();
});
afterEach(async () => {
  await h.close();
});

async function linked(userId = 'u1') {
  const ref = await h.user(userId);
  const holder = h.holder();
  await holder.acceptDataPipe(await h.invitation(ref));
  return { ref, holder };
}

const nextProblem = (holder: Holder) => new Promise<{ code: string; pthid: string }>((resolve) => holder.events.once('problem', resolve));

/** Everything the service keeps about syncs and users, to compare before and after a refusal. */
async function snapshot(ref: { tenantId: string; userId: string }) {
  return {
    ops: await listSyncOperations(h.store, ref),
    user: await h.service.deps.users.require(ref),
    webhooks: h.webhooks.length,
  };
}

describe('refusals', () => {
  it('answers a replayed ack with e.p.msg.duplicate and changes nothing', async () => {
    const { ref, holder } = await linked();
    const done = h.agent.waitFor('sync-completed');
    await h.service.deps.users.startSync(ref);
    await done;
    await h.agent.idle();
    const before = await snapshot(ref);
    const ack = holder.sentPacked.find((s) => s.message.type.endsWith('issue-credential/3.0/ack'))!;
    const problem = nextProblem(holder);
    await holder.replay(ack.packed);
    expect(await problem).toMatchObject({ code: 'e.p.msg.duplicate', pthid: ack.message.thid });
    await h.agent.idle();
    expect(await snapshot(ref)).toEqual(before);
  });

  it('refuses a request-credential on an unknown thread with e.p.msg.unknown-thread', async () => {
    const { ref, holder } = await linked();
    const before = await snapshot(ref);
    const problem = nextProblem(holder);
    const application = holder.application({ challenge: 'c', domain: h.service.deps.serviceDid, manifestId: 'm' });
    await holder.send(buildRequestCredential({ thid: 'no-such-thread', application }, { clock: h.clock }));
    expect(await problem).toMatchObject({ code: 'e.p.msg.unknown-thread' });
    expect(await snapshot(ref)).toEqual(before);
    const [rec] = await messageLog(h.store, h.clock).list({ thid: 'no-such-thread', direction: 'in' });
    expect(rec).toMatchObject({ result: 'failed', problemCode: 'e.p.msg.unknown-thread' });
  });

  it('refuses an ack before the credential was issued with e.p.msg.unexpected, and the flow still completes', async () => {
    const { ref, holder } = await linked();
    holder.policy.offer = 'ignore';
    const offered = new Promise<{ thid: string }>((resolve) => holder.events.once('offer', resolve));
    await h.service.deps.users.startSync(ref);
    const { thid } = await offered;
    await h.agent.idle();
    const before = await snapshot(ref);
    const problem = nextProblem(holder);
    await holder.send(buildIssueAck({ thid, status: 'OK' }, { clock: h.clock }));
    expect(await problem).toMatchObject({ code: 'e.p.msg.unexpected' });
    expect(await snapshot(ref)).toEqual(before);
    // The thread is where it was: the real request still gets the credential.
    const offer = holder.offers.get(thid)!;
    const done = h.agent.waitFor('sync-completed');
    holder.policy.offer = 'accept';
    await holder.send(buildRequestCredential({ thid, application: holder.application({ challenge: offer.challenge, domain: offer.domain, manifestId: String(offer.manifest.id) }) }, { clock: h.clock }));
    await done;
  });

  it('refuses a message on another wallet\'s thread', async () => {
    const { ref, holder } = await linked();
    holder.policy.offer = 'ignore';
    const offered = new Promise<{ thid: string }>((resolve) => holder.events.once('offer', resolve));
    await h.service.deps.users.startSync(ref);
    const { thid } = await offered;
    const intruder = (await linked('u2')).holder;
    const offer = holder.offers.get(thid)!;
    const problem = nextProblem(intruder);
    await intruder.send(buildRequestCredential({ thid, application: intruder.application({ challenge: offer.challenge, domain: offer.domain, manifestId: String(offer.manifest.id) }) }, { clock: h.clock }));
    expect(await problem).toMatchObject({ code: 'e.p.msg.unknown-thread' });
  });

  it('logs a tampered envelope as undecryptable and changes nothing', async () => {
    const { ref, holder } = await linked();
    const before = await snapshot(ref);
    const refused = h.agent.waitFor<{ status: string }>('refused');
    const jwe = JSON.parse(holder.sentPacked[0].packed) as { ciphertext: string };
    const flipped = jwe.ciphertext[5] === 'A' ? 'B' : 'A';
    await holder.replay(JSON.stringify({ ...jwe, ciphertext: jwe.ciphertext.slice(0, 5) + flipped + jwe.ciphertext.slice(6) }));
    expect(await refused).toMatchObject({ status: 'undecryptable' });
    expect(await snapshot(ref)).toEqual(before);
    const log = await messageLog(h.store, h.clock).list({ direction: 'in' });
    expect(log.at(-1)).toMatchObject({ result: 'undecryptable' });
  });

  it('fails the sync when the DID-auth presentation does not verify', async () => {
    const { ref, holder } = await linked();
    // A presentation for another challenge: the holder signs what it is asked, so tamper in flight.
    holder.router.events.once('received', (e: { message: { attachments?: Array<{ data: { json?: { options?: { challenge?: string } } } }> } }) => {
      const options = e.message.attachments?.[0]?.data.json?.options;
      if (options) options.challenge = 'not-the-challenge';
    });
    const problem = nextProblem(holder);
    const failed = h.agent.waitFor('sync-failed');
    await h.service.deps.users.startSync(ref);
    expect(await problem).toMatchObject({ code: 'e.p.trust.sync.authentication-failed' });
    expect(await failed).toMatchObject({ reason: 'authentication_failed' });
    expect((await listSyncOperations(h.store, ref))[0].status).toBe('failed');
    expect((await h.service.deps.users.require(ref)).isLinked).toBe(false);
  });
});
