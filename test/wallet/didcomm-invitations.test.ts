// Invitations that arrive as DIDComm messages (an issuance workflow sent by DIDCOMM): they wait as
// pending items, approve(id) answers with what accepting gave, and `invitations: 'auto'` accepts
// them as they come.
import { afterEach, describe, expect, it } from 'vitest';
import { sequentialIds } from '../../src/clock.js';
import { createInvitation } from '../../src/protocols/out-of-band.js';
import { startTestbed, waitForWorkflowStatus, type Testbed } from '../../src/testing/index.js';
import { connect, setup } from './setup.js';

let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const ALAN = { firstName: 'Alan', lastName: 'Turing', birthDate: '1912-06-23' };

describe('invitations that arrive as DIDComm messages', () => {
  it('wait for approve, which resolves with the acceptance (the issuance and its credential)', async () => {
    bed = await startTestbed({ wallets: 1 });
    const [wallet] = bed.wallets;
    const wf = await bed.service.client.createWorkflow({ datapoints: ALAN });
    const arrived = wallet!.waitForPending({ kind: 'invitation' });
    await bed.service.client.sendInvitation(wf.id, [{ channel: 'DIDCOMM', target: wallet!.did }]);
    const item = await arrived;
    expect((await bed.service.client.getWorkflow(wf.id)).status).toBe('INVITATION_SENT');

    const acceptance = await wallet!.approve(item.id);
    expect(acceptance).toMatchObject({ kind: 'issuance', invitation: { id: item.id } });
    const credential = await (acceptance?.kind === 'issuance' ? acceptance.done : Promise.reject(new Error('no issuance')));
    expect(credential.claims).toMatchObject({ firstName: 'Alan' });
    expect(await wallet!.pending()).toEqual([]);
    expect((await waitForWorkflowStatus(bed.service.client, wf.id, 'COMPLETED')).credentialId).toBe(credential.id);
  });

  it("are accepted as they come under invitations: 'auto'", async () => {
    bed = await startTestbed({ wallets: 1, policy: { invitations: 'auto' } });
    const [wallet] = bed.wallets;
    const wf = await bed.service.client.createWorkflow({ datapoints: ALAN });
    const stored = wallet!.waitForCredential();
    await bed.service.client.sendInvitation(wf.id, [{ channel: 'DIDCOMM', target: wallet!.did }]);
    expect((await stored).claims).toMatchObject({ lastName: 'Turing' });
    await waitForWorkflowStatus(bed.service.client, wf.id, 'COMPLETED');
    expect(await wallet!.pending()).toEqual([]);
  });

  it("leave the item pending and say why when 'auto' cannot accept it", async () => {
    const t = await setup({ wallet: { policy: { invitations: 'auto' } } });
    try {
      await connect(t);
      const failed = t.wallet.waitFor('auto-accept-failed');
      const invitation = createInvitation({ from: t.service.did, goal_code: 'unknown.goal', goal: 'Something else' }, { clock: t.clock, ids: sequentialIds('inv') });
      await t.service.send({ ...invitation, to: [t.wallet.shortDid] }, t.wallet.shortDid);
      const e = await failed;
      expect(e).toMatchObject({ item: { id: invitation.id, kind: 'invitation' }, code: 'unsupported_goal' });
      expect((await t.wallet.pending()).map((i) => i.id)).toEqual([invitation.id]);
    } finally {
      await t.close();
    }
  });
});
