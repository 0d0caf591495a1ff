// Issuance workflows over DIDComm: invitation → propose → offer → request → issue → ack, in memory.
import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statusListRoutes } from '../../../src/service/didcomm/routes.js';
import { checkStatus } from '../../../src/credentials/status-list.js';
import type { W3cCredential } from '../../../src/credentials/types.js';
import { listProjectCredentialData } from '../../../src/service/didcomm/workflows.js';
import { createWorkflow, getWorkflow } from '../../../src/service/workflows/workflows.js';
import { DATAPOINTS, memoryHarness, named, PROJECT, TENANT, type MemoryHarness } from './harness.js';

let h: MemoryHarness;
beforeEach(async () => {
  h = await memoryHarness();
});
afterEach(async () => {
  await h.close();
});

async function workflow(extra: Record<string, unknown> = {}) {
  const wf = await createWorkflow(h.service.deps, { tenantId: TENANT, projectId: PROJECT, datapoints: DATAPOINTS, ...extra });
  const { findWorkflowByInvitation } = await import('../../../src/service/workflows/invitation.js');
  const inv = await findWorkflowByInvitation(h.service.deps, wf.invitation.id);
  return { wf, invitation: inv!.invitation };
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

  it('statusChangeTerms at WORKFLOW_COMPLETION suspend the credential once the workflow completes', async () => {
    const { wf, invitation } = await workflow({ statusChangeTerms: { status: 'SUSPENDED', statusUpdateTrigger: 'WORKFLOW_COMPLETION' } });
    const holder = h.holder();
    const changed = h.agent.waitFor('credential-status-changed');
    await holder.propose(invitation);
    await changed;
    const credential = holder.credentials[0].credential as W3cCredential;
    const entry = credential.credentialStatus as { statusPurpose: string; statusListCredential: string };
    expect(entry.statusPurpose).toBe('suspension');
    const list = await h.agent.statusListCredential(entry.statusListCredential.split('/').pop()!);
    expect(checkStatus(entry, list as unknown as W3cCredential)).toMatchObject({ ok: true, set: true });
    expect(named(h.webhooks, 'CREDENTIAL_SUSPENDED')).toEqual([
      expect.objectContaining({ action: 'CREDENTIAL_STATUS_UPDATE', params: expect.objectContaining({ credentialId: credential.id }) }),
    ]);
    expect((await getWorkflow(h.service.deps, wf.id)).status).toBe('COMPLETED');
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

  it('statusChangeTerms at WORKFLOW_CREATION: the credential is born revoked (a verifying wallet refuses it)', async () => {
    const { wf, invitation } = await workflow({ statusChangeTerms: { status: 'REVOKED', statusUpdateTrigger: 'WORKFLOW_CREATION' } });
    const holder = h.holder();
    const refused = new Promise<{ result: { checks: { check: string; ok: boolean; code?: string }[] } }>((resolve) => holder.events.once('refused-credential', resolve));
    const failed = h.agent.waitFor('workflow-failed');
    await holder.propose(invitation);
    expect((await refused).result.checks.find((c) => c.check === 'status')).toMatchObject({ ok: false, code: 'revoked' });
    expect(await failed).toMatchObject({ reason: 'credential_refused' });
    expect((await getWorkflow(h.service.deps, wf.id)).status).toBe('FAILED');
    expect(named(h.webhooks, 'CREDENTIAL_REVOKED')).toHaveLength(1);
  });

  it('serves the status list credentials at /status-lists/:name', async () => {
    const { invitation } = await workflow();
    const done = h.agent.waitFor('workflow-completed');
    await h.holder().propose(invitation);
    await done;
    const app = Fastify();
    await statusListRoutes(app as never, h.service.deps);
    const ok = await app.inject({ method: 'GET', url: '/status-lists/revocation-1' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ type: ['VerifiableCredential', 'BitstringStatusListCredential'], issuer: h.service.deps.serviceDid });
    expect((await app.inject({ method: 'GET', url: '/status-lists/suspension-1' })).statusCode).toBe(404);
    await app.close();
  });
});
