// Accepting an issuance invitation that was already answered: the service says so with its own
// problem code (e.p.req.invitation-used, args: invitation, who, status) and the wallet says who
// used it (this wallet or another) and what became of it, instead of e.p.req.invalid-state.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestbed, waitForWorkflowStatus, type Testbed } from '../../src/testing/index.js';

let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const GRACE = { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09' };

describe('an issuance invitation accepted a second time', () => {
  it('is refused as already used by this wallet, naming its thread and the credential it holds', async () => {
    bed = await startTestbed({ wallets: 1 });
    const [wallet] = bed.wallets;
    const wf = await bed.service.client.createWorkflow({ datapoints: GRACE });
    const first = await wallet!.acceptInvitation(wf.invitationUrl);
    const credential = await (first.kind === 'issuance' ? first.done : Promise.reject(new Error('not an issuance')));
    await waitForWorkflowStatus(bed.service.client, wf.id, 'COMPLETED');

    const problem = wallet!.waitForProblem();
    const again = await wallet!.acceptInvitation(wf.invitationUrl);
    expect(again.kind).toBe('issuance');
    const err = await (again.kind === 'issuance' ? again.done : Promise.resolve()).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'invitation_used',
      message: `the invitation was already used by this wallet (its issuance is COMPLETED; thread ${first.thid}; credential ${credential.id} is in this wallet)`,
      details: { usedBy: 'this-wallet', status: 'COMPLETED', thid: first.thid, credentialId: credential.id },
    });
    const { problem: report } = await problem;
    expect(report.code).toBe('e.p.req.invitation-used');
    expect(report.args).toEqual([first.invitation.id, 'this DID', 'COMPLETED']);
    expect(report.text).toBe(`Invitation ${first.invitation.id} was already used by this DID; its issuance is COMPLETED.`);
    // Nothing changed: the workflow keeps its credential, the wallet its one credential.
    expect((await bed.service.client.getWorkflow(wf.id)).credentialId).toBe(credential.id);
    expect((await wallet!.credentials()).map((c) => c.id)).toEqual([credential.id]);
  });

  it('is refused as already used by another wallet while the first one is still answering', async () => {
    bed = await startTestbed({ wallets: 0 });
    // The first wallet holds the offer (manual policy): the workflow stays IN_PROGRESS.
    const holder = await bed.addWallet({ policy: 'manual' });
    const other = await bed.addWallet();
    const wf = await bed.service.client.createWorkflow({ datapoints: GRACE });
    await holder.acceptInvitation(wf.invitationUrl);
    await holder.waitForPending({ kind: 'credential-offer' });
    await waitForWorkflowStatus(bed.service.client, wf.id, 'IN_PROGRESS');

    const taken = await other.acceptInvitation(wf.invitationUrl);
    const err = await (taken.kind === 'issuance' ? taken.done : Promise.resolve()).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'invitation_used', message: 'the invitation was already used by another wallet (its issuance is IN_PROGRESS)' });
    expect((await bed.service.client.getWorkflow(wf.id)).status).toBe('IN_PROGRESS');
  });
});
