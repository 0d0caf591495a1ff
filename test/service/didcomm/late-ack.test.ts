// Late answers reconcile: the holder's ack that arrives after its sync or workflow was failed
// (timed out, expired) completes it after all when the credential was delivered, with the
// completion's webhook events following the failure's, so the provider's view is the holder's.
// Before, the ack met an abandoned thread and was refused as out of order, the flow stayed FAILED
// while the holder kept a valid credential.
import { afterEach, describe, expect, it } from 'vitest';
import { listSyncOperations } from '../../../src/service/didcomm-seam.js';
import type { InboundInfo } from '../../../src/service/didcomm-seam.js';
import { DEFAULT_SYNC_TIMEOUT_MS } from '../../../src/service/didcomm/sync.js';
import { createWorkflow, getWorkflow } from '../../../src/service/issuance/workflows.js';
import { DATAPOINTS, memoryHarness, named, PROJECT, SERVICE_ENDPOINT, TENANT, type MemoryHarness } from './harness.js';
import type { Holder } from './holder.js';

let h: MemoryHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The service's endpoint, holding back the holder's issue-credential acks until release(). */
function holdAcks(m: MemoryHarness, holder: Holder) {
  const held: string[] = [];
  m.network.endpoint(SERVICE_ENDPOINT, async (packed, info) => {
    const sent = holder.sentPacked.find((s) => s.packed === packed);
    if (sent?.message.type === 'https://didcomm.org/issue-credential/3.0/ack') {
      held.push(packed);
      return;
    }
    return m.agent.receive(packed, { transport: 'memory', reply: info.reply, bind: info.bind } as unknown as InboundInfo);
  });
  return {
    held,
    async release() {
      for (const p of held.splice(0)) await m.agent.receive(p, { transport: 'http' } as InboundInfo);
      await m.agent.idle();
    },
  };
}

describe('late acks', () => {
  it('completes a sync failed by its timeout once the holder acknowledges the credential it got', async () => {
    h = await memoryHarness();
    const ref = await h.user('u1');
    const holder = h.holder();
    await holder.acceptDataPipe(await h.invitation(ref));
    const acks = holdAcks(h, holder);
    const got = new Promise((resolve) => holder.events.once('credential', resolve));
    const { operationId } = await h.service.deps.users.startSync(ref);
    await got;
    await h.agent.idle();
    expect(acks.held).toHaveLength(1);

    h.clock.advance(DEFAULT_SYNC_TIMEOUT_MS + 1);
    expect(await h.agent.sweep()).toBe(1);
    expect((await listSyncOperations(h.store, ref)).find((o) => o.id === operationId)?.status).toBe('failed');

    const completed = h.agent.waitFor<{ late?: boolean }>('sync-completed');
    await acks.release();
    expect((await completed).late).toBe(true);
    const op = (await listSyncOperations(h.store, ref)).find((o) => o.id === operationId) as { status: string; credentialId?: string; error?: string };
    expect(op).toMatchObject({ status: 'completed', credentialId: holder.credentials[0]!.id });
    expect(op.error).toBeUndefined();
    const user = await h.service.deps.users.require(ref);
    expect(user.isLinked).toBe(true);
    expect(user.datapointsSynced).toEqual(DATAPOINTS);
    // The events follow: the failure first, then the completion.
    expect(named(h.webhooks, 'DATA_SYNC_FAILED', 'DATA_SYNC_COMPLETED', 'CREDENTIAL_ISSUANCE_COMPLETED').map((e) => e.event)).toEqual([
      'DATA_SYNC_FAILED', 'CREDENTIAL_ISSUANCE_COMPLETED', 'DATA_SYNC_COMPLETED',
    ]);
  });

  it('completes a workflow that expired while the holder held its credential, once the ack arrives', async () => {
    h = await memoryHarness();
    const wf = await createWorkflow(h.service.deps, { tenantId: TENANT, projectId: PROJECT, datapoints: DATAPOINTS, expiresIn: 60_000 });
    const { findWorkflowByInvitation } = await import('../../../src/service/issuance/invitation.js');
    const invitation = (await findWorkflowByInvitation(h.service.deps, wf.invitation.id))!.invitation;
    const holder = h.holder();
    const acks = holdAcks(h, holder);
    const got = new Promise((resolve) => holder.events.once('credential', resolve));
    await holder.propose(invitation);
    await got;
    await h.agent.idle();
    h.clock.advance(60_001);
    expect((await getWorkflow(h.service.deps, wf.id)).status).toBe('EXPIRED');

    const completed = h.agent.waitFor('workflow-completed');
    await acks.release();
    await completed;
    const after = await getWorkflow(h.service.deps, wf.id);
    expect(after).toMatchObject({ status: 'COMPLETED', credentialId: holder.credentials[0]!.id });
    expect(after.failure).toBeUndefined();
    expect(after.history.map((s) => s.status)).toEqual(['CREATED', 'IN_PROGRESS', 'EXPIRED', 'COMPLETED']);
    expect(named(h.webhooks, 'CREDENTIAL_ISSUANCE_FAILED', 'CREDENTIAL_ISSUANCE_COMPLETED').map((e) => e.event)).toEqual(['CREDENTIAL_ISSUANCE_FAILED', 'CREDENTIAL_ISSUANCE_COMPLETED']);
  });

  it('still refuses an ack on a thread whose credential was never issued', async () => {
    h = await memoryHarness();
    const ref = await h.user('u2');
    const holder = h.holder();
    await holder.acceptDataPipe(await h.invitation(ref));
    holder.policy.offer = 'ignore';
    const offered = new Promise<{ thid: string }>((resolve) => holder.events.once('offer', resolve));
    await h.service.deps.users.startSync(ref);
    const offer = await offered;
    await h.agent.idle();
    h.clock.advance(DEFAULT_SYNC_TIMEOUT_MS + 1);
    await h.agent.sweep();
    const refused = h.agent.waitFor<{ code: string }>('refused');
    await holder.send({ type: 'https://didcomm.org/issue-credential/3.0/ack', thid: offer.thid, body: { status: 'OK' } });
    expect((await refused).code).toBe('unexpected_message');
    expect((await listSyncOperations(h.store, ref))[0]!.status).toBe('failed');
  });
});
