// An issuance workflow's invitation sent by DIDCOMM to a wallet without an endpoint of its own: it
// is queued once, the wallet collects it with Message Pickup 3.0 and confirms it with
// messages-received, and it waits there for the user's consent. The service does not queue it
// again meanwhile: a copy queued after the confirmation came back at a later pickup as a
// duplicate, after the workflow had completed.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import { connectUser, startTestbed, waitForState, waitForWorkflowStatus, type Testbed } from '../../../src/testing/index.js';

const ALAN = { firstName: 'Alan', lastName: 'Turing', birthDate: '1912-06-23' };

let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe('a DIDCOMM invitation to a wallet that collects by pickup', () => {
  it('is queued once: collected and confirmed, it is not queued again while it waits for consent', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    bed = await startTestbed({ walletMode: 'pickup', clock });
    const [wallet] = bed.wallets;
    // A linked user: the service may queue messages for this DID whenever it sends them.
    await connectUser(bed, 'alan', wallet!);
    const wf = await bed.service.client.createWorkflow({ userId: 'alan', datapoints: ALAN });

    const queued: string[] = [];
    bed.service.agent.events.on('message-queued', (e: { messageId?: string }) => {
      if (e.messageId === wf.invitation.id) queued.push(e.messageId);
    });
    const arrived = wallet!.waitForPending({ kind: 'invitation' });
    await bed.service.client.sendInvitation(wf.id, [{ channel: 'DIDCOMM', target: wallet!.did }]);
    const item = await arrived;
    expect(item.id).toBe(wf.invitation.id);
    // Confirmed with messages-received: the queue holds nothing for the wallet.
    const count = () => bed!.service.agent.queue.count(wallet!.did);
    await waitForState('the invitation confirmed', count, (n) => n === 0, bed.service.changes);

    // The user takes a few minutes to decide: whatever the service retries meanwhile is due.
    for (let i = 0; i < 10; i++) {
      clock.advance(60_000);
      await bed.service.agent.retryDue();
      await bed.service.agent.idle();
    }
    expect(queued).toHaveLength(1);
    expect(await count()).toBe(0);

    const acceptance = await wallet!.approve(item.id);
    const credential = await (acceptance?.kind === 'issuance' ? acceptance.done : Promise.reject(new Error('no issuance')));
    expect((await waitForWorkflowStatus(bed.service.client, wf.id, 'COMPLETED')).credentialId).toBe(credential.id);

    // A later pickup brings nothing of it again.
    await wallet!.pickup(bed.service.did);
    expect(queued).toHaveLength(1);
    // The wallet's message log: the invitation arrived once (handled; `accepted` is approve's
    // record of it), never as a duplicate.
    const copies = (await wallet!.messages()).filter((m) => m.direction === 'in' && m.id === wf.invitation.id);
    expect(copies.map((m) => m.result).filter((r) => r !== 'accepted')).toEqual(['handled']);
    expect(bed.errors).toEqual([]);
  });

  it('reaches a wallet that is no linked user after the service was killed before it went out', async () => {
    bed = await startTestbed({ walletMode: 'pickup' });
    const [wallet] = bed.wallets;
    const wf = await bed.service.client.createWorkflow({ userDID: wallet!.did, datapoints: ALAN });
    const crashed = bed.crashAt('service', 'send:invitation');
    await bed.service.client.sendInvitation(wf.id, [{ channel: 'DIDCOMM', target: wallet!.did }]).catch(() => undefined);
    await crashed;
    await bed.restart('service');
    await waitForState('the invitation queued again', () => bed!.service.agent.queue.count(wallet!.did), (n) => n > 0, bed.service.changes);
    await wallet!.pickup(bed.service.did);
    expect((await wallet!.pending()).map((p) => p.id)).toContain(wf.invitation.id);
  });

  it('is sent again when it was dropped (the wallet\'s queue full): it is taken only once a queue or the wallet has it', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    bed = await startTestbed({ walletMode: 'pickup', clock, service: { agent: { queue: { maxPerRecipient: 1 } } } });
    const [wallet] = bed.wallets;
    await connectUser(bed, 'alan', wallet!);
    const first = await bed.service.client.createWorkflow({ userId: 'alan', datapoints: ALAN });
    const second = await bed.service.client.createWorkflow({ userId: 'alan', datapoints: ALAN });
    const dropped: string[] = [];
    bed.service.agent.events.on('message-dropped', (e: { messageId?: string }) => {
      if (e.messageId === second.invitation.id) dropped.push(e.messageId);
    });
    const arrived = wallet!.waitForPending({ kind: 'invitation' });
    await bed.service.client.sendInvitation(first.id, [{ channel: 'DIDCOMM', target: wallet!.did }]);
    // The queue holds the first until the wallet confirms it: the second has no room.
    const sent = await bed.service.client.sendInvitation(second.id, [{ channel: 'DIDCOMM', target: wallet!.did }]);
    expect(dropped).toHaveLength(1);
    // Not handed over: said so, and the workflow still counts it as on its way.
    expect(sent.deliveries.map((d) => d.status)).toEqual(['pending']);
    expect(sent.issuanceWorkflow.status).toBe('INVITATION_SENT');
    expect((await arrived).id).toBe(first.invitation.id);
    await waitForState('the first confirmed', () => bed!.service.agent.queue.count(wallet!.did), (n) => n === 0, bed.service.changes);

    const has = async () => (await wallet!.pending()).some((p) => p.id === second.invitation.id);
    for (let i = 0; i < 12 && !(await has()); i++) {
      clock.advance(60_000);
      await bed.service.agent.retryDue();
      await bed.service.agent.idle();
      await wallet!.pickup(bed.service.did);
    }
    expect(await has()).toBe(true);
    expect(bed.errors).toEqual([]);
  });
});
