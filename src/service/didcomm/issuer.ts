// The issuer side of issue-credential 3.0 in the WACI `streamlined-vc` shape (docs/protocols.md
// "Issue-credential 3.0"), shared by syncs and issuance workflows: offer (manifest of the
// project's data profile, preview of the datapoints, single-use challenge, domain = service DID)
// → request (the credential application VP must verify) → issue (the VC, with a status list
// entry when the project's settings ask for one, and the current list credential) → ack.
// The owner of the thread (sync.ts, workflows.ts) is told how it ends.
import type { FlatDatapoints } from '../../credentials/datapoints.js';
import { toNested } from '../../credentials/datapoints.js';
import { issueCredential, xsdDateTime } from '../../credentials/issue.js';
import { credentialManifestFor, defaultKycProfile, type DataProfile } from '../../credentials/manifest.js';
import { verifyPresentation } from '../../credentials/presentation.js';
import { statusPurposeFor, type StatusChangeTerms } from '../../credentials/status-list.js';
import type { StatusPurpose } from '../../credentials/types.js';
import type { HandlerContext } from '../../router/router.js';
import type { PlainMessage } from '../../didcomm/types.js';
import { sameDid } from '../../didcomm/message.js';
import { IdsyncError, problemCodeOf } from '../../errors.js';
import {
  buildIssueCredential,
  buildOffer,
  ISSUE_CREDENTIAL_ISSUER,
  ISSUE_CREDENTIAL_PIURI,
  previewFromDatapoints,
  wireCredential,
  type IssueCredentialHandlers,
} from '../../protocols/issue-credential.js';
import { startThread, type ThreadRecord } from '../../protocols/thread-state.js';
import { DEFAULT_ISSUANCE, projectSettings, type IssuanceSettings, type ProjectRecord } from '../config/config.js';
import type { AgentCore, PreparedMessage } from './core.js';
import type { BatchOp } from '../../store/store.js';
import { credentialIssuer } from './keys.js';
import type { IssuedCredentialRecord, StatusService } from './status.js';
import { sent, type DcThread, type ThreadOwner, type ThreadStore } from './threads.js';

export type IssueFailure = 'declined' | 'credential_invalid' | 'request_invalid' | 'issuance_error' | 'unanswered' | 'other';

/** What the owner of an issuance thread does at each end. */
export interface IssueOwner {
  /** The credential was issued (before the issue message goes out). */
  issued?(thread: DcThread, credential: IssuedCredentialRecord): Promise<void>;
  /**
   * The holder acknowledged the credential; `ops` (the thread done) go into the completion's batch.
   * An ack that comes after the owner's flow failed completes it all the same (it proves delivery).
   */
  completed(thread: DcThread, ops?: BatchOp[]): Promise<void>;
  failed(thread: DcThread, failure: IssueFailure, detail: string): Promise<void>;
  /**
   * statusChangeTerms the credential is issued under (workflows): it then always gets a status
   * entry in the list of the terms' purpose, even when the project's settings ask for none.
   */
  statusTerms?(thread: DcThread): Promise<StatusChangeTerms | undefined>;
}

export interface OfferInput {
  owner: ThreadOwner;
  tenantId: string;
  userId?: string;
  projectId?: string;
  /** The wallet DID in long form (credential subject) and the form to address messages to. */
  peerLong: string;
  to: string;
  datapoints: FlatDatapoints;
  pthid?: string;
  replacementId?: string;
  /** The wallet's propose-credential when it started the thread (workflows). */
  proposal?: PlainMessage;
  /**
   * The offer's step, made by its owner: under its own lock it adds its writes (its state, its
   * webhook events) and calls `write(ops)`, which stores them in ONE batch with the thread and the
   * offer. An owner that does not call `write` vetoes the offer (nothing is stored or sent).
   * Without `step`, the thread and the offer are stored alone.
   */
  step?(thread: DcThread, write: (ops: BatchOp[]) => Promise<void>): Promise<void>;
}

export interface Issuance {
  handlers: Pick<IssueCredentialHandlers, 'request-credential' | 'ack'>;
  owners: Partial<Record<ThreadOwner['kind'], IssueOwner>>;
  /** Builds, stores and sends an offer; resolves with the thread as stored (undefined when its owner vetoed it). */
  offer(input: OfferInput): Promise<DcThread | undefined>;
  /** A problem report (or our own refusal) ended the thread. */
  abandon(thread: DcThread, failure: IssueFailure, detail: string): Promise<void>;
}

async function settingsFor(core: AgentCore, tenantId: string, projectId?: string): Promise<{ project?: ProjectRecord; profile: DataProfile; issuance: IssuanceSettings }> {
  const { project, profile } = await projectSettings(core.deps.config, tenantId, projectId);
  return { project, profile: profile ?? defaultKycProfile(core.deps.serviceDid), issuance: { ...DEFAULT_ISSUANCE, ...project?.issuance } };
}

export function issuance(core: AgentCore, threads: ThreadStore, status: StatusService): Issuance {
  const { deps } = core;
  const md = () => ({ clock: deps.clock, ids: deps.ids });
  const owners: Issuance['owners'] = {};
  const ownerOf = (t: DcThread): IssueOwner => {
    const o = owners[t.owner.kind];
    if (!o) throw new IdsyncError('internal_error', `no owner for ${t.owner.kind} issuance threads`);
    return o;
  };

  async function abandon(thread: DcThread, failure: IssueFailure, detail: string): Promise<void> {
    await threads.put({ ...thread, state: 'abandoned' });
    await ownerOf(thread).failed({ ...thread, state: 'abandoned' }, failure, detail);
  }

  async function issueFor(thread: DcThread): Promise<{ message: PlainMessage; credential: IssuedCredentialRecord }> {
    const { issuance: settings } = await settingsFor(core, thread.tenantId, thread.projectId);
    const owner = ownerOf(thread);
    const terms = await owner.statusTerms?.(thread);
    // Terms need a status entry to be enforceable; otherwise the project's settings decide.
    const purpose: StatusPurpose | undefined = terms ? statusPurposeFor(terms.status) : settings.statusList ? 'revocation' : undefined;
    const slot = purpose ? await status.allocate(purpose) : undefined;
    const now = deps.clock.now();
    const issued = await issueCredential({
      format: thread.format ?? settings.format,
      issuer: credentialIssuer(deps),
      subjectDid: thread.peerLong,
      claims: toNested(thread.datapoints ?? {}),
      id: `urn:uuid:${deps.ids()}`,
      clock: deps.clock,
      ...(settings.validityMs ? { expirationDate: xsdDateTime(now + settings.validityMs) } : {}),
      ...(slot ? { credentialStatus: slot.entry } : {}),
      ...(thread.replacementId ? { replaces: thread.replacementId } : {}),
    });
    const record: IssuedCredentialRecord = {
      id: issued.id,
      tenantId: thread.tenantId,
      subject: thread.peerLong,
      format: issued.format,
      issuedAt: core.now(),
      ...(thread.userId ? { userId: thread.userId } : {}),
      ...(thread.owner.kind === 'workflow' ? { workflowId: thread.owner.workflowId } : {}),
      ...(thread.projectId ? { projectId: thread.projectId } : {}),
      ...(slot && purpose ? { status: { list: slot.list, purpose, index: slot.index, set: false } } : {}),
      ...(terms ? { terms } : {}),
    };
    await status.recordCredential(record);
    await owner.issued?.(thread, record);
    const listCredential = slot ? await status.listCredential(slot.list) : undefined;
    const message = buildIssueCredential(
      {
        from: deps.serviceDid,
        thid: thread.thid,
        manifestId: thread.manifestId ?? '',
        ...wireCredential(issued),
        ...(thread.replacementId ? { replacementId: thread.replacementId } : {}),
        ...(listCredential ? { statusListCredential: listCredential } : {}),
      },
      md(),
    );
    core.events.emit('credential-issued', { credentialId: issued.id, thid: thread.thid, owner: thread.owner, format: issued.format, subject: thread.peerLong });
    return { message, credential: record };
  }

  async function onRequest(ctx: HandlerContext, parsed: Parameters<NonNullable<IssueCredentialHandlers['request-credential']>>[1]): Promise<void> {
    const outcome = await core.lock(`thread:${parsed.thid}`, async () => {
      const thread = (await threads.advance(ISSUE_CREDENTIAL_ISSUER, ctx.message, ctx.sender)) as DcThread;
      // The application answers our offer: the offer's manifest, its single-use challenge, our DID as domain, the offered holder.
      const check = thread.challengeUsed
        ? { verified: false, code: 'challenge_used', detail: 'the challenge was already used' }
        : await verifyPresentation(parsed.application, { resolve: core.envelope.resolve, challenge: thread.challenge, domain: thread.domain, expectedHolder: thread.peerLong });
      const problem = !check.verified ? `${check.code}: ${check.detail}` : parsed.manifestId !== thread.manifestId ? 'the application names another manifest' : undefined;
      if (problem) {
        await abandon({ ...thread, challengeUsed: true }, 'request_invalid', problem);
        return { error: new IdsyncError('verification_failed', `credential application refused: ${problem}`) };
      }
      let issued: { message: PlainMessage; credential: IssuedCredentialRecord };
      try {
        issued = await issueFor({ ...thread, challengeUsed: true });
      } catch (err) {
        await abandon({ ...thread, challengeUsed: true }, 'issuance_error', (err as Error).message);
        return { error: new IdsyncError('internal_error', 'the credential could not be issued', { cause: err }) };
      }
      const next = sent(ISSUE_CREDENTIAL_ISSUER, { ...thread, challengeUsed: true, credentialId: issued.credential.id }, issued.message);
      // The thread and the credential it sends: one step, one batch.
      return { reply: await ctx.prepareReply(issued.message, { ops: [threads.putOp(next)] }) };
    });
    if ('error' in outcome) throw outcome.error;
    await outcome.reply.deliver();
  }

  async function onAck(ctx: HandlerContext): Promise<void> {
    await core.lock(`thread:${ctx.thid}`, async () => {
      const late = await lateAck(ctx);
      const thread = late ?? ((await threads.advance(ISSUE_CREDENTIAL_ISSUER, ctx.message, ctx.sender)) as DcThread);
      // The thread done and its owner's completion (its state and webhook events): one step, one batch.
      await ownerOf(thread).completed(thread, [threads.putOp(thread)]);
    });
    // Crash tests: the ack and the completion are stored; the step's own record is not yet (a
    // restart sends the credential again, and the holder's replayed ack changes nothing).
    core.crashPoint('received:issue-credential.ack');
  }

  /**
   * The holder's ack to a credential we issued on a thread that was ended meanwhile (the sync or
   * workflow failed: timed out, superseded, no answer before the deadline): the holder has the
   * credential, so the flow completed after all and the provider's view follows the holder's.
   * The thread done, or undefined when this is no such ack (then the state machine judges it).
   */
  async function lateAck(ctx: HandlerContext): Promise<DcThread | undefined> {
    const thread = await threads.get(ctx.thid);
    if (!thread || thread.state !== 'abandoned' || thread.protocol !== ISSUE_CREDENTIAL_PIURI || !thread.credentialId) return undefined;
    if (!ctx.sender || !sameDid(ctx.sender, thread.peer)) return undefined;
    // Issued: the thread recorded the credential's message (an issue-credential is our last word before the ack).
    if (typeof ctx.message.id !== 'string' || thread.messages.includes(ctx.message.id)) return undefined;
    core.events.emit('late-ack', { thid: thread.thid, owner: thread.owner, credentialId: thread.credentialId });
    return { ...thread, state: 'done', messages: [...thread.messages, ctx.message.id] };
  }

  return {
    owners,
    abandon,
    handlers: { 'request-credential': onRequest, ack: onAck },
    async offer(input) {
      const { project, profile, issuance: settings } = await settingsFor(core, input.tenantId, input.projectId);
      const manifest = credentialManifestFor(profile, deps.serviceDid);
      const challenge = deps.ids();
      const offerId = deps.ids();
      const message = buildOffer(
        {
          id: offerId,
          from: deps.serviceDid,
          to: input.to,
          ...(input.proposal ? { thid: input.proposal.thid ?? input.proposal.id } : {}),
          ...(input.pthid ? { pthid: input.pthid } : {}),
          manifest: manifest as unknown as Record<string, unknown>,
          preview: previewFromDatapoints(input.datapoints),
          challenge,
          domain: deps.serviceDid,
          ...(input.replacementId ? { replacementId: input.replacementId } : {}),
        },
        md(),
      );
      const base: ThreadRecord = input.proposal
        ? startThread(ISSUE_CREDENTIAL_ISSUER, 'receive', input.proposal, input.peerLong)
        : { thid: offerId, protocol: ISSUE_CREDENTIAL_PIURI, role: 'issuer', state: 'start', peer: input.peerLong, messages: [] };
      const now = core.now();
      const thread = sent(ISSUE_CREDENTIAL_ISSUER, {
        ...base,
        kind: 'issue' as const,
        owner: input.owner,
        tenantId: input.tenantId,
        ...(input.userId ? { userId: input.userId } : {}),
        peerLong: input.peerLong,
        challenge,
        domain: deps.serviceDid,
        datapoints: input.datapoints,
        ...(project ? { projectId: project.id } : input.projectId ? { projectId: input.projectId } : {}),
        manifestId: manifest.id,
        format: settings.format,
        ...(input.replacementId ? { replacementId: input.replacementId } : {}),
        createdAt: now,
        updatedAt: now,
      }, message);
      let prepared: PreparedMessage | undefined;
      const write = async (ops: BatchOp[]) => {
        prepared = await core.prepare(message, input.to, [threads.putOp(thread), ...ops]);
      };
      if (input.step) await input.step(thread, write);
      else await write([]);
      if (!prepared) return undefined;
      await (prepared as PreparedMessage).deliver();
      return thread;
    },
  };
}

/** Classifies a holder's problem code (docs/protocols.md): declined offers and refused credentials. */
export function failureOf(code: string): IssueFailure {
  const is = (ours: string) => code === ours || code.startsWith(`${ours}.`);
  if (is(problemCodeOf('offer_declined')) || code === problemCodeOf('declined')) return 'declined';
  if (is(problemCodeOf('credential_invalid'))) return 'credential_invalid';
  return 'other';
}
