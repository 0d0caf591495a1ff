// The service's answers to replays and to problem reports that do not end a thread
// (docs/protocols.md: warnings `w.…` and e.p.msg.duplicate leave the thread where it stands;
// the router, not the agent, answers replays).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listSyncOperations } from '../../../src/service/didcomm-seam.js';
import type { DcThread } from '../../../src/service/didcomm/threads.js';
import { COLLECTIONS } from '../../../src/service/didcomm/collections.js';
import { memoryHarness, type MemoryHarness } from './harness.js';

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

describe('replays', () => {
  it('answers a replayed message with exactly one e.p.msg.duplicate', async () => {
    const { ref, holder } = await linked();
    const done = h.agent.waitFor('sync-completed');
    await h.service.deps.users.startSync(ref);
    await done;
    await h.agent.idle();
    const problems: { code: string }[] = [];
    holder.events.on('problem', (p) => problems.push(p));
    const ack = holder.sentPacked.find((s) => s.message.type.endsWith('issue-credential/3.0/ack'))!;
    await holder.replay(ack.packed);
    await h.agent.idle();
    expect(problems.filter((p) => p.code === 'e.p.msg.duplicate')).toHaveLength(1);
  });
});

describe('problem reports on an open thread', () => {
  async function offered() {
    const { ref, holder } = await linked();
    holder.policy.offer = 'ignore';
    const offer = new Promise<{ thid: string }>((resolve) => holder.events.once('offer', resolve));
    const { operationId } = await h.service.deps.users.startSync(ref);
    const { thid } = await offer;
    await h.agent.idle();
    return { ref, holder, operationId, thid };
  }

  const report = (thid: string, code: string) => ({
    type: 'https://didcomm.org/report-problem/2.0/problem-report',
    pthid: thid,
    body: { code, comment: 'test' },
  });

  const threadState = async (thid: string) => (await h.store.collection<DcThread>(COLLECTIONS.threads).get(thid))?.state;

  it.each(['e.p.msg.duplicate', 'w.msg.late', 'w.p.xfer.slow'])('leaves the sync running on %s', async (code) => {
    const { ref, holder, operationId, thid } = await offered();
    const before = await threadState(thid);
    await holder.send(report(thid, code));
    await h.agent.idle();
    expect(await threadState(thid)).toBe(before);
    expect((await listSyncOperations(h.store, ref)).find((o) => o.id === operationId)?.status).toBe('started');
    expect(h.webhooks.map((e) => e.event)).not.toContain('DATA_SYNC_FAILED');
  });

  it('ends the thread and the sync on an error report', async () => {
    const { ref, holder, operationId, thid } = await offered();
    const failed = h.agent.waitFor('sync-failed');
    await holder.send(report(thid, 'e.p.msg.credential-invalid'));
    await failed;
    expect(await threadState(thid)).toBe('abandoned');
    expect((await listSyncOperations(h.store, ref)).find((o) => o.id === operationId)?.status).toBe('failed');
  });
});
