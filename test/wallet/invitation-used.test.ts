// Accepting an issuance invitation that was already answered: by the same wallet, the acceptance
// continues (same thread) or answers with the state reached (the credential held); by another
// wallet, the service says so with its own problem code (e.p.req.invitation-used, args:
// invitation, who, status), never e.p.req.invalid-state.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestbed, waitForWorkflowStatus, type Testbed } from '../../src/testing/index.js';

let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const GRACE = { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09' };

describe('an issuance invitation accepted a second time', () => {
  it('by the same wallet answers with the state reached: the credential it already holds, on the same thread', async () => {
    bed = await startTestbed({ wallets: 1 });
    const [wallet] = bed.wallets;
    const wf = await bed.service.client.createWorkflow({ datapoints: GRACE });
    const first = await wallet!.acceptInvitation(wf.invitationUrl);
    const credential = await (first.kind === 'issuance' ? first.done : Promise.reject(new Error('not an issuance')));
    await waitForWorkflowStatus(bed.service.client, wf.id, 'COMPLETED');

    const again = await wallet!.acceptInvitation(wf.invitationUrl);
    expect(again).toMatchObject({ kind: 'issuance', thid: first.thid, resumed: true });
    expect((await (again.kind === 'issuance' ? again.done : Promise.reject(new Error('not an issuance')))).id).toBe(credential.id);
    // Nothing changed: the workflow keeps its credential, the wallet its one credential, one thread.
    expect((await bed.service.client.getWorkflow(wf.id)).credentialId).toBe(credential.id);
    expect((await wallet!.credentials()).map((c) => c.id)).toEqual([credential.id]);
    expect((await wallet!.threads({ protocol: 'https://didcomm.org/issue-credential/3.0' })).filter((t) => t.data.invitationId === first.invitation.id)).toHaveLength(1);
  });

  it('by the same wallet while the issuance is under way continues the same thread', async () => {
    bed = await startTestbed({ wallets: 0 });
    const holder = await bed.addWallet({ policy: 'manual' });
    const wf = await bed.service.client.createWorkflow({ datapoints: GRACE });
    const first = await holder.acceptInvitation(wf.invitationUrl);
    const offer = await holder.waitForPending({ kind: 'credential-offer' });
    const again = await holder.acceptInvitation(wf.invitationUrl);
    expect(again).toMatchObject({ kind: 'issuance', thid: first.thid, resumed: true });
    await holder.approve(offer.id);
    const credential = await (again.kind === 'issuance' ? again.done : Promise.reject(new Error('not an issuance')));
    expect((await waitForWorkflowStatus(bed.service.client, wf.id, 'COMPLETED')).credentialId).toBe(credential.id);
    expect(await holder.credentials()).toHaveLength(1);
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

  it.each(['memory', 'temp'] as const)('accepted by two wallets at the same moment issues one credential, and refuses the other wallet (%s store)', async (storage) => {
    bed = await startTestbed({ wallets: 2, storage });
    const [a, b] = bed.wallets as [NonNullable<Testbed['wallets'][0]>, NonNullable<Testbed['wallets'][0]>];
    for (let round = 0; round < 3; round++) {
      const wf = await bed.service.client.createWorkflow({ datapoints: GRACE });
      const outcome = async (w: typeof a) => {
        const r = await w.acceptInvitation(wf.invitationUrl);
        return (r.kind === 'issuance' ? r.done : Promise.reject(new Error('not an issuance'))).then(
          (c) => ({ wallet: w, credentialId: c.id }),
          (e: { code?: string }) => ({ wallet: w, refused: e.code }),
        );
      };
      const results = await Promise.all([outcome(a), outcome(b)]);
      const issued = results.filter((r) => 'credentialId' in r);
      expect(issued, `round ${round}`).toHaveLength(1);
      expect(results.filter((r) => 'refused' in r).map((r) => (r as { refused?: string }).refused), `round ${round}`).toEqual(['invitation_used']);
      // The workflow names the wallet that got the credential, and that credential.
      const done = await waitForWorkflowStatus(bed.service.client, wf.id, 'COMPLETED');
      const winner = issued[0] as { wallet: typeof a; credentialId: string };
      expect(done.userDID).toBe(winner.wallet.did);
      expect(done.credentialId).toBe(winner.credentialId);
    }
    // Three workflows, three credentials in all.
    expect((await a.credentials()).length + (await b.credentials()).length).toBe(3);
  }, 60_000);

  it('accepted twice at the same moment by one wallet makes one thread: the second acceptance continues it', async () => {
    bed = await startTestbed({ wallets: 1, storage: 'temp', transport: 'http' });
    const [wallet] = bed.wallets as [NonNullable<Testbed['wallets'][0]>];
    // An issuance invitation: one thread, one credential, both acceptances resolve with it.
    const wf = await bed.service.client.createWorkflow({ datapoints: GRACE });
    const [x, y] = await Promise.all([wallet.acceptInvitation(wf.invitationUrl), wallet.acceptInvitation(wf.invitationUrl)]);
    expect(x.thid).toBe(y.thid);
    expect([x, y].filter((a) => a.resumed === true)).toHaveLength(1);
    const held = await Promise.all([x, y].map((a) => (a.kind === 'issuance' ? a.done : Promise.reject(new Error('not an issuance')))));
    expect(held[0]!.id).toBe(held[1]!.id);
    expect(await wallet.credentials()).toHaveLength(1);
    expect((await wallet.threads({ protocol: 'https://didcomm.org/issue-credential/3.0' })).map((t) => t.state)).toEqual(['done']);
    // A Data Pipe invitation: one connection.
    await bed.service.client.putUser('ada', { settings: { isSyncOn: true } });
    const { invitationUrl } = await bed.service.client.invite('ada');
    const [p, q] = await Promise.all([wallet.acceptInvitation(invitationUrl!), wallet.acceptInvitation(invitationUrl!)]);
    expect(p.thid).toBe(q.thid);
    expect((await wallet.connections()).filter((c) => c.state === 'established')).toHaveLength(1);
  }, 60_000);

  it('a pending offer approved and declined at the same moment is answered once: the other call is refused', async () => {
    bed = await startTestbed({ wallets: 0, storage: 'temp', transport: 'http' });
    const holder = await bed.addWallet({ policy: 'manual' });
    for (const second of ['decline', 'approve'] as const) {
      const wf = await bed.service.client.createWorkflow({ datapoints: GRACE });
      const accepted = await holder.acceptInvitation(wf.invitationUrl);
      const offer = await holder.waitForPending({ kind: 'credential-offer' });
      const results = await Promise.allSettled([holder.approve(offer.id), second === 'approve' ? holder.approve(offer.id) : holder.decline(offer.id, 'no')]);
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(refused, second).toHaveLength(1);
      expect(['invalid_state', 'not_found', 'unexpected_message']).toContain((refused[0]!.reason as { code?: string }).code);
      // One answer went out on the thread: a request, or a decline.
      const answers = (await holder.messages()).filter((m) => m.direction === 'out' && m.thid === accepted.thid && /\/(request-credential|problem-report)$/.test(m.type));
      expect(answers, second).toHaveLength(1);
      if (answers[0]!.type.endsWith('/request-credential')) {
        await (accepted.kind === 'issuance' ? accepted.done : Promise.reject(new Error('not an issuance')));
        await waitForWorkflowStatus(bed.service.client, wf.id, 'COMPLETED');
      } else {
        if (accepted.kind === 'issuance') accepted.done.catch(() => undefined);
        await waitForWorkflowStatus(bed.service.client, wf.id, ['FAILED']);
      }
    }
    expect(await holder.pending()).toEqual([]);
  }, 60_000);
});
