import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { b64uDecodeText } from '../../../src/encoding.js';
import { listWorkflows } from '../../../src/service/issuance/list.js';
import { findWorkflowByInvitation } from '../../../src/service/issuance/invitation.js';
import { canTransition, WORKFLOW_STATUSES } from '../../../src/service/issuance/states.js';
import {
  complete,
  createWorkflow,
  DEFAULT_EXPIRES_IN,
  expireDue,
  fail,
  getWorkflow,
  markInProgress,
  markInvitationSent,
  WORKFLOW_EXPIRY,
  WORKFLOWS,
} from '../../../src/service/issuance/workflows.js';
import { countingStore } from '../../store/counting-store.js';
import { DATAPOINTS, PROJECT, TENANT, workflowDeps } from './fixtures.js';

let deps: Awaited<ReturnType<typeof workflowDeps>>;
beforeEach(async () => {
  deps = await workflowDeps();
});
afterEach(async () => deps.close());

async function newWorkflow(extra: Record<string, unknown> = {}) {
  return createWorkflow(deps, { tenantId: TENANT, projectId: PROJECT, datapoints: DATAPOINTS, ...extra });
}

describe('issuance workflows', () => {
  it('creates a workflow with an OOB invitation that maps back to it', async () => {
    const wf = await createWorkflow(deps, { tenantId: TENANT, projectId: PROJECT, datapoints: { ...DATAPOINTS, birthDate: '10/12/1815' }, userId: 'u-1' });
    expect(wf).toMatchObject({ status: 'CREATED', projectId: PROJECT, userId: 'u-1', expiresIn: DEFAULT_EXPIRES_IN });
    // Datapoints are stored normalised (H's validateDatapoints).
    expect(wf.datapoints.birthDate).toBe('1815-12-10');
    expect(Date.parse(wf.expiresAt) - Date.parse(wf.createdAt)).toBe(2_592_000_000);
    expect(wf.history).toEqual([{ status: 'CREATED', at: wf.createdAt }]);
    const url = new URL(wf.invitation.url);
    expect(`${url.origin}${url.pathname}`).toBe('http://127.0.0.1:8080/connect');
    const inv = JSON.parse(b64uDecodeText(url.searchParams.get('_oob')!));
    expect(inv).toMatchObject({
      type: 'https://didcomm.org/out-of-band/2.0/invitation',
      id: wf.invitation.id,
      from: deps.serviceDid,
      body: { goal_code: 'streamlined-vc', accept: ['didcomm/v2'] },
    });
    // The invitation expires with the workflow (DIDComm expires_time is in seconds).
    expect(inv.expires_time).toBe(Math.floor(Date.parse(wf.expiresAt) / 1000));
    expect(await findWorkflowByInvitation(deps, inv.id)).toMatchObject({ workflowId: wf.id, tenantId: TENANT });
  });

  it('rejects datapoints the data profile does not allow, with field errors', async () => {
    const err = await createWorkflow(deps, { tenantId: TENANT, projectId: PROJECT, datapoints: { firstName: 'Ada', shoeSize: '42', nationality: 'XX' } }).catch((e) => e);
    expect(err.code).toBe('invalid_datapoints');
    const fields = err.details.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['body/datapoints/birthDate', 'body/datapoints/lastName', 'body/datapoints/nationality', 'body/datapoints/shoeSize']);
  });

  it('rejects a bad body and an unknown project', async () => {
    const bad = await createWorkflow(deps, { tenantId: TENANT, projectId: '', datapoints: [], expiresIn: -1, userDID: 'nope', statusChangeTerms: { status: 'GONE' } }).catch((e) => e);
    expect(bad.code).toBe('invalid_request');
    expect(bad.details.errors.map((e: { field: string }) => e.field)).toEqual([
      'body/projectId',
      'body/datapoints',
      'body/userDID',
      'body/expiresIn',
      'body/statusChangeTerms/status',
      'body/statusChangeTerms/statusUpdateTrigger',
    ]);
    await expect(createWorkflow(deps, { tenantId: TENANT, projectId: 'nope', datapoints: DATAPOINTS })).rejects.toMatchObject({ code: 'project_not_found' });
    await expect(createWorkflow(deps, { tenantId: 'other', projectId: PROJECT, datapoints: DATAPOINTS })).rejects.toMatchObject({ code: 'project_not_found' });
  });

  it('walks CREATED → INVITATION_SENT → IN_PROGRESS → COMPLETED and emits issuance events', async () => {
    const wf = await newWorkflow({ userId: 'u-1', statusChangeTerms: { status: 'REVOKED', statusUpdateTrigger: 'WORKFLOW_COMPLETION' } });
    deps.clock.advance(10);
    const sent = await markInvitationSent(deps, wf.id, [{ channel: 'EMAIL', to: 'a@example.com', status: 'recorded', outboxId: 'o1', at: 'x' }]);
    expect(sent.status).toBe('INVITATION_SENT');
    const again = await markInvitationSent(deps, wf.id, []);
    expect(again.history.map((h) => h.status)).toEqual(['CREATED', 'INVITATION_SENT']);
    const inProgress = await markInProgress(deps, wf.id, { didcommThreadId: 'thid-1', userDID: 'did:key:z6Mk' });
    expect(inProgress).toMatchObject({ status: 'IN_PROGRESS', didcommThreadId: 'thid-1', userDID: 'did:key:z6Mk' });
    const done = await complete(deps, wf.id, 'urn:uuid:cred-1');
    expect(done).toMatchObject({ status: 'COMPLETED', credentialId: 'urn:uuid:cred-1' });
    expect(done.history.map((h) => h.status)).toEqual(['CREATED', 'INVITATION_SENT', 'IN_PROGRESS', 'COMPLETED']);
    expect(deps.emitted.map((e) => [e.type, e.event])).toEqual([
      ['CREDENTIAL_ISSUANCE', 'CREDENTIAL_ISSUANCE_PENDING'],
      ['CREDENTIAL_ISSUANCE', 'CREDENTIAL_ISSUANCE_COMPLETED'],
    ]);
    expect(deps.emitted[1]).toMatchObject({ tenantId: TENANT, params: { didcommThreadId: 'thid-1', userAccountId: 'u-1', issuanceWorkflowId: wf.id, credentialId: 'urn:uuid:cred-1' } });
  });

  it('refuses illegal transitions with invalid_transition (409)', async () => {
    const wf = await newWorkflow();
    await expect(complete(deps, wf.id, 'c')).rejects.toMatchObject({ code: 'invalid_transition', status: 409 });
    await fail(deps, wf.id, 'offer_declined');
    expect((await getWorkflow(deps, wf.id)).failure).toEqual({ code: 'offer_declined', message: 'offer declined' });
    // What was sent while it became final is recorded (send.ts refuses before sending to a final one); its state stays.
    expect(await markInvitationSent(deps, wf.id, [])).toMatchObject({ status: 'FAILED' });
    await expect(markInProgress(deps, wf.id)).rejects.toMatchObject({ code: 'invalid_transition' });
    await expect(fail(deps, wf.id, 'credential_refused')).rejects.toMatchObject({ code: 'invalid_transition' });
    expect(deps.emitted.map((e) => e.event)).toEqual(['CREDENTIAL_ISSUANCE_FAILED']);
  });

  it('has terminal states with no way out', () => {
    for (const to of WORKFLOW_STATUSES) {
      for (const from of ['COMPLETED', 'FAILED', 'EXPIRED'] as const) expect(canTransition(from, to)).toBe(false);
    }
  });

  it('sweeps by the expiry index: reads the workflows whose time has come, each once, and none of the others', async () => {
    const counted = countingStore(deps.store, WORKFLOWS);
    const d = { ...deps, store: counted.store };
    // The first sweep over a store marks its (empty) index complete.
    expect(await expireDue(d)).toBe(0);
    const soon = await Promise.all([1, 2].map(() => createWorkflow(d, { tenantId: TENANT, projectId: PROJECT, datapoints: DATAPOINTS, expiresIn: 60_000 })));
    for (let i = 0; i < 40; i++) await createWorkflow(d, { tenantId: TENANT, projectId: PROJECT, datapoints: DATAPOINTS });
    await markInProgress(d, soon[1]!.id, { didcommThreadId: 'thid-1' });
    await complete(d, soon[1]!.id, 'cred-1');
    const before = counted.reads();
    expect(await expireDue(d)).toBe(0);
    // Without the index every sweep (each minute) read all 42.
    expect(counted.reads()).toBe(before);
    deps.clock.advance(60_000);
    expect(await expireDue(d)).toBe(1);
    expect((await getWorkflow(d, soon[0]!.id)).status).toBe('EXPIRED');
    expect((await getWorkflow(d, soon[1]!.id)).status).toBe('COMPLETED');
    const afterDue = counted.reads();
    deps.clock.advance(60_000);
    expect(await expireDue(d)).toBe(0);
    expect(counted.reads()).toBe(afterDue);
    expect(await deps.store.collection(WORKFLOW_EXPIRY).count()).toBe(40 + 1);
  });

  it('indexes the workflows of a store written before the expiry index at its first sweep, and expires them', async () => {
    const wf = await newWorkflow({ expiresIn: 60_000 });
    const index = deps.store.collection(WORKFLOW_EXPIRY);
    for (const e of await index.list()) await index.del(e.key);
    // A new process over the store, where a workflow is created before the first sweep: that
    // sweep still indexes what waited before.
    const d = { ...deps, store: countingStore(deps.store, WORKFLOWS).store };
    const later = await createWorkflow(d, { tenantId: TENANT, projectId: PROJECT, datapoints: DATAPOINTS, expiresIn: 120_000 });
    deps.clock.advance(60_000);
    expect(await expireDue(d)).toBe(1);
    expect((await getWorkflow(d, wf.id)).status).toBe('EXPIRED');
    deps.clock.advance(60_000);
    expect(await expireDue(d)).toBe(1);
    expect((await getWorkflow(d, later.id)).status).toBe('EXPIRED');
    expect((await index.list()).map((e) => e.key)).toEqual(['~complete']);
  });

  it('expires after expiresIn measured with the injected clock', async () => {
    const wf = await newWorkflow({ expiresIn: 60_000 });
    const other = await newWorkflow();
    deps.clock.advance(59_999);
    expect(await expireDue(deps)).toBe(0);
    deps.clock.advance(1);
    expect(await expireDue(deps)).toBe(1);
    const expired = await getWorkflow(deps, wf.id);
    expect(expired).toMatchObject({ status: 'EXPIRED', failure: { code: 'expired' } });
    expect((await getWorkflow(deps, other.id)).status).toBe('CREATED');
    expect(await markInvitationSent(deps, wf.id, [{ channel: 'SMS', to: '+15551234567', status: 'sent', outboxId: 'o-1', at: new Date(deps.clock.now()).toISOString() }])).toMatchObject({ status: 'EXPIRED', destinations: [expect.objectContaining({ channel: 'SMS' })] });
  });

  it('expires on read without a sweep', async () => {
    const wf = await newWorkflow({ expiresIn: 1_000 });
    deps.clock.advance(1_000);
    expect((await getWorkflow(deps, wf.id)).status).toBe('EXPIRED');
    expect(deps.emitted.map((e) => e.event)).toEqual(['CREDENTIAL_ISSUANCE_FAILED']);
  });

  it('lists a tenant\'s workflows in creation order with filters and cursor paging', async () => {
    const a = await newWorkflow({ userId: 'u-1' });
    deps.clock.advance(1);
    const b = await newWorkflow({ userId: 'u-2' });
    deps.clock.advance(1);
    const c = await newWorkflow({ userId: 'u-1' });
    await fail(deps, b.id, 'cancelled');
    const page1 = await listWorkflows(deps, TENANT, {}, { limit: 2 });
    expect(page1.total).toBe(3);
    expect(page1.workflows.map((w) => w.id)).toEqual([a.id, b.id]);
    const page2 = await listWorkflows(deps, TENANT, {}, { limit: 2, cursor: page1.nextCursor! });
    expect(page2.workflows.map((w) => w.id)).toEqual([c.id]);
    expect(page2.nextCursor).toBeUndefined();
    expect((await listWorkflows(deps, TENANT, { userId: 'u-1' }, { limit: 10 })).workflows.map((w) => w.id)).toEqual([a.id, c.id]);
    expect((await listWorkflows(deps, TENANT, { status: 'FAILED' }, { limit: 10 })).workflows.map((w) => w.id)).toEqual([b.id]);
    expect((await listWorkflows(deps, TENANT, {}, { limit: 1, offset: 2 })).workflows.map((w) => w.id)).toEqual([c.id]);
    expect((await listWorkflows(deps, 'other', {}, { limit: 10 })).total).toBe(0);
  });

  it('hides another tenant\'s workflow', async () => {
    const wf = await newWorkflow();
    await expect(getWorkflow(deps, wf.id, { tenantId: 'other' })).rejects.toMatchObject({ code: 'workflow_not_found' });
    await expect(getWorkflow(deps, 'missing')).rejects.toMatchObject({ code: 'workflow_not_found' });
  });

  it('serialises concurrent transitions so exactly one wins', async () => {
    const wf = await newWorkflow();
    await markInProgress(deps, wf.id);
    const results = await Promise.allSettled([complete(deps, wf.id, 'c1'), fail(deps, wf.id, 'credential_refused'), complete(deps, wf.id, 'c2')]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((await getWorkflow(deps, wf.id)).history).toHaveLength(3);
  });
});
