// Issuance workflows over DIDComm: invitation → propose → offer → request → issue → ack, in memory.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkStatus } from '../../../src/credentials/status-list.js';
import type { W3cCredential } from '../../../src/credentials/types.js';
import { listProjectCredentialData } from '../../../src/service/didcomm/workflow-issuance.js';
import { createWorkflow, getWorkflow } from '../../../src/service/issuance/workflows.js';
import { DATAPOINTS, memoryHarness, named, PROJECT, TENANT, type MemoryHarness } from './harness.js';
import type { Holder } from './holder.js';

let h: MemoryHarness;
beforeEach(async () => {
  h = await memoryHarness();
});
afterEach(async () => {
  await h.close();
});

/** A workflow as POST /issuance-workflows makes it (the route also tells the agent: WORKFLOW_CREATION). */
async function workflow(extra: Record<string, unknown> = {}) {
  const wf = await createWorkflow(h.service.deps, { tenantId: TENANT, projectId: PROJECT, datapoints: DATAPOINTS, ...extra });
  await h.agent.onWorkflowCreated(wf);
  const { findWorkflowByInvitation } = await import('../../../src/service/issuance/invitation.js');
  const inv = await findWorkflowByInvitation(h.service.deps, wf.invitation.id);
  return { wf, invitation: inv!.invitation };
}

/** The holder answers the workflow's invitation; resolves once the workflow completed. */
async function issueThrough(holder: Holder, invitation: { id: string; from?: string }): Promise<void> {
  const done = h.agent.waitFor('workflow-completed');
  await holder.propose(invitation);
  await done;
  await h.agent.idle();
}

/** The credential's bit in the status list credential the service serves now. */
async function statusOf(entry: { statusListCredential: string }): Promise<boolean> {
  const list = await h.agent.statusListCredential(entry.statusListCredential.split('/').pop()!);
  const check = checkStatus(entry as never, list as unknown as W3cCredential) as { ok: boolean; set?: boolean };
  expect(check.ok).toBe(true);
  return check.set === true;
}

describe('issuance workflow', () => {
  it('completes through the invitation: IN_PROGRESS, credential, COMPLETED, credential data in the project', async () => {
    const { wf, invitation } = await workflow({ userId: 'u9' });
    const holder = h.holder();
    const done = h.agent.waitFor('workflow-completed');
    await holder.propose(invitation);
    const completed = await done;
    const after = await getWorkflow(h.service.deps, wf.id);
    expect(after.status).toBe('COMPLETED');
    expect(after.credentialId).toBe(holder.credentials[0].id);
    expect(after.userDID).toBe(holder.did.did);
    expect(after.history.map((s) => s.status)).toEqual(['CREATED', 'IN_PROGRESS', 'COMPLETED']);
    expect(completed).toMatchObject({ workflowId: wf.id, credentialId: holder.credentials[0].id });
    expect(holder.credentials[0].result.verified).toBe(true);
    expect(await listProjectCredentialData(h.store, TENANT, PROJECT)).toEqual([
      expect.objectContaining({ projectId: PROJECT, userDID: holder.did.did, workflowId: wf.id, credentialId: holder.credentials[0].id, datapoints: DATAPOINTS }),
    ]);
    expect(named(h.webhooks, 'CREDENTIAL_ISSUANCE_PENDING', 'CREDENTIAL_ISSUANCE_COMPLETED').map((e) => e.event)).toEqual([
      'CREDENTIAL_ISSUANCE_PENDING',
      'CREDENTIAL_ISSUANCE_COMPLETED',
    ]);
  });

  it('a declined offer fails the workflow with offer_declined', async () => {
    const { wf, invitation } = await workflow();
    const holder = h.holder();
    holder.policy.offer = 'decline';
    const failed = h.agent.waitFor('workflow-failed');
    await holder.propose(invitation);
    expect(await failed).toMatchObject({ reason: 'offer_declined' });
    const after = await getWorkflow(h.service.deps, wf.id);
    expect(after).toMatchObject({ status: 'FAILED', failure: { code: 'offer_declined' } });
  });

  it('refuses a proposer other than the workflow userDID', async () => {
    const someone = h.holder();
    const { wf, invitation } = await workflow({ userDID: someone.did.did });
    const other = h.holder();
    const problem = new Promise((resolve) => other.events.once('problem', resolve));
    await other.propose(invitation);
    expect(await problem).toMatchObject({ code: 'e.p.trust.forbidden' });
    expect((await getWorkflow(h.service.deps, wf.id)).status).toBe('CREATED');
  });

  it('refuses an expired workflow with e.p.req.workflow-expired', async () => {
    const { wf, invitation } = await workflow({ expiresIn: 60_000 });
    h.clock.advance(61_000);
    const holder = h.holder();
    const problem = new Promise((resolve) => holder.events.once('problem', resolve));
    await holder.propose(invitation);
    expect(await problem).toMatchObject({ code: 'e.p.req.workflow-expired' });
    expect((await getWorkflow(h.service.deps, wf.id)).status).toBe('EXPIRED');
  });

  it('delivers a DIDCOMM invitation to a reachable DID, and queues it for one without an endpoint', async () => {
    const { invitation } = await workflow();
    const online = h.holder();
    const got = new Promise((resolve) => online.router.events.once('received', resolve));
    expect(await h.agent.deliverInvitation(online.did.did, invitation as never)).toBe('delivered');
    expect(await got).toMatchObject({ message: expect.objectContaining({ type: 'https://didcomm.org/out-of-band/2.0/invitation', id: invitation.id }) });
    const offline = h.holder({ offline: true });
    expect(await h.agent.deliverInvitation(offline.did.did, invitation as never)).toBe('queued');
    expect(await h.agent.queue.count(offline.did.did)).toBe(1);
  });

  it('statusChangeTerms {SUSPENDED, WORKFLOW_COMPLETION}: valid when issued, suspended when a later workflow for the user completes', async () => {
    const terms = { status: 'SUSPENDED', statusUpdateTrigger: 'WORKFLOW_COMPLETION' };
    const holder = h.holder();
    const first = await workflow({ userId: 'u1', statusChangeTerms: terms });
    await issueThrough(holder, first.invitation);
    const cred = holder.credentials[0];
    // Its own completion does not trigger its own terms: the wallet verified it with its status.
    expect(cred.result.verified).toBe(true);
    expect(cred.result.checks.find((c) => c.check === 'status')).toMatchObject({ ok: true });
    const entry = (cred.credential as W3cCredential).credentialStatus as { statusPurpose: string; statusListCredential: string };
    expect(entry.statusPurpose).toBe('suspension');
    expect(await statusOf(entry)).toBe(false);
    expect(named(h.webhooks, 'CREDENTIAL_SUSPENDED')).toEqual([]);

    // Another user's workflow changes nothing.
    const stranger = await workflow({ userId: 'someone-else' });
    await issueThrough(h.holder(), stranger.invitation);
    expect(await statusOf(entry)).toBe(false);

    const second = await workflow({ userId: 'u1' });
    const changed = h.agent.waitFor('credential-status-changed');
    await issueThrough(holder, second.invitation);
    expect(await changed).toMatchObject({ credentialId: cred.id, purpose: 'suspension', value: true, trigger: 'WORKFLOW_COMPLETION', byWorkflowId: second.wf.id });
    expect(await statusOf(entry)).toBe(true);
    expect(named(h.webhooks, 'CREDENTIAL_SUSPENDED')).toEqual([
      expect.objectContaining({
        type: 'SSI_AGENT',
        action: 'CREDENTIAL_STATUS_UPDATE',
        params: expect.objectContaining({ userAccountId: 'u1', credentialId: cred.id, issuanceWorkflowId: first.wf.id, triggeredByWorkflowId: second.wf.id }),
      }),
    ]);
    // The newer credential is valid, and the terms fire once.
    expect(holder.credentials[1].result.verified).toBe(true);
    const third = await workflow({ userId: 'u1' });
    await issueThrough(holder, third.invitation);
    expect(named(h.webhooks, 'CREDENTIAL_SUSPENDED')).toHaveLength(1);
  });

  it('statusChangeTerms {REVOKED, WORKFLOW_CREATION}: revoked when a later workflow for the same DID is created', async () => {
    const holder = h.holder();
    const first = await workflow({ statusChangeTerms: { status: 'REVOKED', statusUpdateTrigger: 'WORKFLOW_CREATION' } });
    await issueThrough(holder, first.invitation);
    const cred = holder.credentials[0];
    expect(cred.result.verified).toBe(true);
    const entry = (cred.credential as W3cCredential).credentialStatus as { statusPurpose: string; statusListCredential: string };
    expect(entry.statusPurpose).toBe('revocation');
    // A workflow created for another DID is not this user's.
    await workflow({ userDID: h.holder().did.did });
    expect(await statusOf(entry)).toBe(false);

    const changed = h.agent.waitFor('credential-status-changed');
    const second = await workflow({ userDID: holder.did.shortDid });
    expect(await changed).toMatchObject({ credentialId: cred.id, purpose: 'revocation', value: true, trigger: 'WORKFLOW_CREATION', byWorkflowId: second.wf.id });
    expect(await statusOf(entry)).toBe(true);
    expect(named(h.webhooks, 'CREDENTIAL_REVOKED')).toEqual([
      expect.objectContaining({ params: expect.objectContaining({ credentialId: cred.id, userAccountId: holder.did.did }) }),
    ]);
  });

  it('serves the status list credentials at /status-lists/:name', async () => {
    const { invitation } = await workflow();
    const done = h.agent.waitFor('workflow-completed');
    await h.holder().propose(invitation);
    await done;
    const app = h.service.app;
    const ok = await app.inject({ method: 'GET', url: '/status-lists/revocation-1' });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^application\/vc\+ld\+json/);
    expect(ok.json()).toMatchObject({ type: ['VerifiableCredential', 'BitstringStatusListCredential'], issuer: h.service.deps.serviceDid });
    expect((await app.inject({ method: 'GET', url: '/status-lists/suspension-1' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/status-lists/NOPE' })).statusCode).toBe(400);
  });
});
