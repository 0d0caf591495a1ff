// Issuance workflows over DIDComm (architecture.md "Issuance workflow"): the wallet answers the
// workflow's out-of-band invitation (goal_code streamlined-vc) with propose-credential, pthid =
// invitation id; the workflow goes IN_PROGRESS and issuance.ts runs offer → request → issue →
// ack; on ack it is COMPLETED with the credential id and the user's credential data is added to
// the project. A workflow's creation and completion trigger the statusChangeTerms of the same
// user's earlier credentials (status.ts). Also the DIDCOMM invitation delivery: the invitation itself, authcrypted to the target DID.
import { shortForm } from '../../did/short-form.js';
import { sameDid } from '../../didcomm/message.js';
import type { HandlerContext } from '../../router/router.js';
import type { FlatDatapoints } from '../../credentials/datapoints.js';
import { IdsyncError, toIdsyncError } from '../../errors.js';
import type { DidcommDelivery } from '../issuance/delivery/didcomm.js';
import type { OobInvitation } from '../users/invitations.js';
import { findWorkflowByInvitation } from '../issuance/invitation.js';
import { isTerminal } from '../issuance/states.js';
import { complete, completeLate, fail, getWorkflow, markInProgress, type IssuanceWorkflow, type WorkflowStateDeps } from '../issuance/workflows.js';
import type { BatchOp, Store } from '../../store/store.js';
import { COLLECTIONS } from './collections.js';
import type { AgentCore } from './core.js';
import type { Issuance, IssueFailure, IssueOwner } from './issuer.js';
import type { ServiceOutbound } from './outbound.js';
import type { StatusService } from './status.js';
import { readThread, type DcThread } from './threads.js';

/** "The user's credential data is added to the project" (service-interface.md "What the service does" 1). */
export interface ProjectCredentialData {
  tenantId: string;
  projectId: string;
  userDID: string;
  userId?: string;
  workflowId: string;
  credentialId: string;
  datapoints: FlatDatapoints;
  createdAt: string;
}

export const projectCredentialKey = (d: Pick<ProjectCredentialData, 'tenantId' | 'projectId' | 'workflowId'>): string => `${d.tenantId}/${d.projectId}/${d.workflowId}`;

/** A project's credential data, by workflow (for routes and tests). */
export async function listProjectCredentialData(store: Store, tenantId: string, projectId: string): Promise<ProjectCredentialData[]> {
  const rows = await store.collection<ProjectCredentialData>(COLLECTIONS.projectCredentialData).list({ prefix: `${tenantId}/${projectId}/` });
  return rows.map((r) => r.value);
}

const FAILURE_CODE: Record<IssueFailure, string> = {
  declined: 'offer_declined',
  credential_invalid: 'credential_refused',
  request_invalid: 'request_invalid',
  issuance_error: 'issuance_error',
  unanswered: 'unanswered',
  other: 'credential_refused',
};

export interface WorkflowIssuance {
  owner: IssueOwner;
  /** After a restart: workflows whose holder acknowledged the credential (thread done) are COMPLETED. */
  resume(): Promise<void>;
  /** A workflow was created: trigger WORKFLOW_CREATION for the user's earlier credentials. */
  onWorkflowCreated(workflow: IssuanceWorkflow): Promise<void>;
  onPropose(ctx: HandlerContext, parsed: { id: string; thid: string; pthid?: string }): Promise<void>;
  deliverInvitation: DidcommDelivery;
}

export function workflowIssuance(core: AgentCore, issue: Issuance, status: StatusService, outbound: ServiceOutbound): WorkflowIssuance {
  const { deps } = core;
  // Events read at call time: createService installs the webhook sink after building the agent.
  const stateDeps: WorkflowStateDeps = {
    store: deps.store,
    clock: deps.clock,
    get events() {
      return deps.events;
    },
    logger: deps.logger,
  };
  const workflowOf = (t: DcThread) => getWorkflow(stateDeps, t.owner.kind === 'workflow' ? t.owner.workflowId : '');

  const owner: IssueOwner = {
    async statusTerms(thread) {
      return (await workflowOf(thread)).statusChangeTerms;
    },
    async completed(thread, ops = []) {
      const credentialId = thread.credentialId ?? '';
      const id = thread.owner.kind === 'workflow' ? thread.owner.workflowId : '';
      // Idempotent: a restart (resume) or a repeated ack completes a workflow once.
      const current = await getWorkflow(stateDeps, id);
      // The ack proves the holder has the credential: a workflow failed or expired meanwhile completes after all.
      const late = current.status === 'FAILED' || current.status === 'EXPIRED';
      if (current.status === 'COMPLETED' || (isTerminal(current.status) && !late)) {
        if (ops.length) await deps.store.batch(ops);
        return;
      }
      const record: ProjectCredentialData = {
        tenantId: current.tenantId,
        projectId: current.projectId,
        userDID: thread.peerLong,
        ...(current.userId ? { userId: current.userId } : {}),
        workflowId: current.id,
        credentialId,
        datapoints: { ...(thread.datapoints ?? current.datapoints) },
        createdAt: core.now(),
      };
      // The thread done, the workflow COMPLETED with its event and the credential data added to the project: one batch.
      const write = (more: BatchOp[]) => deps.store.batch([...ops, { type: 'put', collection: COLLECTIONS.projectCredentialData, key: projectCredentialKey(record), value: record }, ...more]);
      const wf = late ? await completeLate(stateDeps, id, credentialId, write) : await complete(stateDeps, id, credentialId, write);
      // statusChangeTerms of EARLIER credentials of this user (status.ts); never this one's own.
      await status.workflowTriggered(wf, 'WORKFLOW_COMPLETION');
      core.events.emit('workflow-completed', { workflowId: wf.id, tenantId: wf.tenantId, credentialId, thid: thread.thid, ...(late ? { late: true } : {}) });
    },
    async failed(thread, failure, detail) {
      const id = thread.owner.kind === 'workflow' ? thread.owner.workflowId : '';
      const code = FAILURE_CODE[failure];
      try {
        await fail(stateDeps, id, code, detail);
      } catch (err) {
        // Already terminal (e.g. expired meanwhile): nothing left to record.
        deps.logger.info({ workflowId: id, code: toIdsyncError(err).code }, 'workflow not failed');
      }
      core.events.emit('workflow-failed', { workflowId: id, reason: code, detail, thid: thread.thid });
    },
  };

  async function onPropose(ctx: HandlerContext, parsed: { id: string; thid: string; pthid?: string }): Promise<void> {
    if (!ctx.sender || !ctx.metadata.authenticated) throw new IdsyncError('sender_not_authenticated', 'propose-credential must be authcrypted by the wallet');
    const inv = parsed.pthid ? await findWorkflowByInvitation(deps, parsed.pthid) : undefined;
    if (!inv) throw new IdsyncError('invitation_unknown', `pthid ${String(parsed.pthid)} names no issuance invitation of ours`);
    const wf = await getWorkflow(stateDeps, inv.workflowId);
    if (wf.status === 'EXPIRED') throw new IdsyncError('workflow_expired', `issuance workflow ${wf.id} has expired`);
    const proposer = ctx.sender;
    // The wallet accepting again on the thread it started (after a crash): the thread continues
    // where it stands — our last message on it goes out again (resend.ts) — never a second offer.
    if (wf.didcommThreadId === parsed.thid && wf.userDID !== undefined && sameDid(wf.userDID, proposer)) {
      const again = await ctx.router.steps()?.get(parsed.thid);
      core.events.emit('workflow-proposed-again', { workflowId: wf.id, thid: parsed.thid, status: wf.status });
      if (again?.out) {
        await ctx.reply(again.out.message);
        return;
      }
      // Nothing was sent on it yet (a crash between recording the offer and sending it): offer now.
      if (wf.status !== 'IN_PROGRESS') return;
    }
    // Answered before, on another thread (in progress, completed, or failed after the answer):
    // its own outcome, coded, saying whether it was this DID, so that a wallet can tell "I did
    // that already" from "someone else has my invitation". Checked here, and again under the
    // workflow's lock when the offer is stored: two answers on two threads at once both pass
    // this first look.
    const claim = (stored: IssuanceWorkflow) => {
      if (stored.didcommThreadId && stored.didcommThreadId !== parsed.thid && stored.status !== 'CREATED' && stored.status !== 'INVITATION_SENT') {
        const byProposer = stored.userDID !== undefined && sameDid(stored.userDID, proposer);
        throw new IdsyncError('invitation_used', `invitation ${inv.invitationId} of issuance workflow ${stored.id} was already used by ${byProposer ? 'this DID' : 'another DID'} (${stored.status})`, {
          details: { workflowId: stored.id, problemArgs: [inv.invitationId, byProposer ? 'this DID' : 'another DID', stored.status] },
        });
      }
      if (stored.userDID && !sameDid(stored.userDID, proposer)) throw new IdsyncError('forbidden', `issuance workflow ${stored.id} is for another DID`);
    };
    if (!isTerminal(wf.status) || (wf.didcommThreadId && wf.didcommThreadId !== parsed.thid)) claim(wf);
    if (isTerminal(wf.status)) throw new IdsyncError('invalid_state', `issuance workflow ${wf.id} is ${wf.status}`);
    const from = String(ctx.message.from ?? proposer);
    // A did:ion or did:peer:4 long form resolves offline; its short form resolves only from the
    // long form kept in the registry (DID Peer §Method 4 "Short form").
    const isLong = (did: string) => shortForm(did) !== did;
    const long = isLong(from) ? from : ((await core.registry.get(proposer)) ?? proposer);
    const learnt: BatchOp[] = isLong(long) ? [core.registry.putOp(shortForm(long), long)] : [];
    await issue.offer({
      owner: { kind: 'workflow', workflowId: wf.id },
      tenantId: wf.tenantId,
      ...(wf.userId ? { userId: wf.userId } : {}),
      projectId: wf.projectId,
      peerLong: long,
      to: proposer,
      datapoints: wf.datapoints,
      pthid: inv.invitationId,
      proposal: ctx.message,
      // The workflow IN_PROGRESS on this thread (with its webhook event), the thread and the offer: one step, one batch.
      step: async (thread, write) => {
        await markInProgress(stateDeps, wf.id, { didcommThreadId: thread.thid, userDID: long, claim }, (ops) => write([...learnt, ...ops]));
        core.events.emit('workflow-in-progress', { workflowId: wf.id, tenantId: wf.tenantId, thid: thread.thid, proposer });
      },
    });
  }

  const deliverInvitation: DidcommDelivery = async (targetDid: string, invitation: OobInvitation) => {
    // The DID must be usable at all (resolvable); reaching it is outbound.ts's business.
    if (!(await core.envelope.resolve(targetDid))) throw new IdsyncError('did_not_resolved', `cannot resolve ${targetDid.slice(0, 80)}`);
    const message = { ...invitation, from: deps.serviceDid, to: [targetDid], body: { ...invitation.body } };
    const sentMessage = await core.send(message, targetDid);
    const outcome = outbound.outcome(sentMessage.id);
    // A dropped send leaves the invitation's step to be sent again (router/steps): pending, not sent.
    return outcome === 'queued' ? 'queued' : outcome === 'dropped' ? 'pending' : 'delivered';
  };

  async function onWorkflowCreated(workflow: IssuanceWorkflow): Promise<void> {
    await status.workflowTriggered(workflow, 'WORKFLOW_CREATION');
  }

  async function resume(): Promise<void> {
    for (const { value: stored } of await deps.store.collection<DcThread>(COLLECTIONS.threads).list()) {
      const t = readThread(stored);
      if (t.kind !== 'issue' || t.owner.kind !== 'workflow' || t.state !== 'done') continue;
      const wf = await getWorkflow(stateDeps, t.owner.workflowId).catch(() => undefined);
      if (wf && wf.status === 'IN_PROGRESS' && wf.didcommThreadId === t.thid) await owner.completed(t);
    }
  }

  return { owner, onPropose, deliverInvitation, onWorkflowCreated, resume };
}
