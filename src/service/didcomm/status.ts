// Credential status for issued credentials (Bitstring Status List v1.0) and the vendor's
// statusChangeTerms (vendor-facts "POST /issuance-workflows"): one list per purpose, published
// at `<publicUrl>/status-lists/<name>` (routes/status-lists.ts), re-issued after every change, and
// CREDENTIAL_STATUS_UPDATE webhooks (CREDENTIAL_REVOKED / _SUSPENDED / _UNSUSPENDED).
//
// statusChangeTerms (docs/service.md "statusChangeTerms"): a credential issued under terms is
// VALID when issued and is watched; when a LATER workflow of the same project for the same user
// (userId, or the credential's subject DID) is created (WORKFLOW_CREATION) or completed
// (WORKFLOW_COMPLETION), every watched credential of that user whose terms name that trigger gets
// the terms' status (the newer credential supersedes it). The credential's own workflow never
// triggers its own terms: a credential born suspended or revoked is refused by every wallet.
import { sameDid } from '../../didcomm/message.js';
import { shortForm } from '../../did/short-form.js';
import {
  allocateIndex,
  createStatusList,
  getStatus,
  issueStatusListCredential,
  setStatus,
  statusListEntry,
  withAllocated,
  statusPurposeFor,
  type StatusChangeTerms,
  type StatusList,
  type StatusUpdateTrigger,
} from '../../credentials/status-list.js';
import type { CredentialStatusEntry, StatusPurpose } from '../../credentials/types.js';
import { IdsyncError } from '../../errors.js';
import type { BatchOp } from '../../store/store.js';
import { credentialStatusUpdate } from '../webhooks/events.js';
import { COLLECTIONS } from './collections.js';
import type { AgentCore } from './core.js';
import { credentialIssuer } from './keys.js';
import { prepareEvents } from '../webhooks/event-outbox.js';
import type { ServiceEvent } from '../context.js';
import { buildIndexOnce } from '../../store/index-once.js';
import { moveKeys, onceMarked, SHORT_FORM_KEY_MARKS } from '../../store/short-form-moves.js';
import { WORKFLOWS, type IssuanceWorkflow } from '../issuance/workflows.js';

export interface StatusListRecord {
  name: string;
  list: StatusList;
  /** The latest signed status list credential (ldp: JSON with a Data Integrity proof). */
  credential?: Record<string, unknown>;
  issuedAt?: string;
}

/** What the service remembers of each credential it issued (status and who holds it). */
export interface IssuedCredentialRecord {
  id: string;
  tenantId: string;
  subject: string;
  userId?: string;
  workflowId?: string;
  projectId?: string;
  format: 'ldp' | 'jwt';
  status?: { list: string; purpose: StatusPurpose; index: number; set: boolean };
  /** The statusChangeTerms of the workflow that issued it (watched until a later workflow triggers them). */
  terms?: StatusChangeTerms;
  /** When a later workflow triggered the terms, and which. */
  termsApplied?: { at: string; byWorkflowId: string; trigger: StatusUpdateTrigger };
  issuedAt: string;
}

/** A credential whose statusChangeTerms have not triggered yet. Key `<tenantId>/<projectId>/<credentialId>`. */
export interface WatchedTerms {
  credentialId: string;
  workflowId?: string;
  userId?: string;
  /** The holder DID (long form) the credential names. */
  subject: string;
  trigger: StatusUpdateTrigger;
}

/** The workflow whose creation or completion may trigger earlier credentials' terms. */
export interface TriggeringWorkflow {
  id: string;
  tenantId: string;
  projectId: string;
  userId?: string;
  userDID?: string;
  /** When it was created: only credentials of workflows created before it are earlier. */
  createdAt?: string;
}

/**
 * Whether a workflow created at `own` came before one created at `by`. Two made in the same
 * millisecond cannot be ordered (their ids are random): each counts as earlier than the other, as
 * before this check, rather than neither.
 */
const createdBefore = (own: string, by: string) => Date.parse(own) <= Date.parse(by);

export const listName = (purpose: StatusPurpose): string => `${purpose}-1`;

export interface StatusService {
  /** Reserves an entry in the `purpose` list for a new credential. */
  allocate(purpose: StatusPurpose): Promise<{ entry: CredentialStatusEntry; list: string; index: number }>;
  /** The current signed list credential (issued now when missing). */
  listCredential(name: string): Promise<Record<string, unknown> | undefined>;
  /** Sets or clears a credential's bit, re-issues the list and fires the webhook. */
  setCredentialStatus(credentialId: string, value: boolean): Promise<boolean>;
  /**
   * statusChangeTerms: `workflow` was created or completed (`trigger`); earlier credentials of the
   * same user and project whose terms name that trigger get their status. Returns their ids.
   */
  workflowTriggered(workflow: TriggeringWorkflow, trigger: StatusUpdateTrigger): Promise<string[]>;
  credential(id: string): Promise<IssuedCredentialRecord | undefined>;
  /** Stores the record and, when it carries terms and a status entry, watches them (one batch). */
  recordCredential(rec: IssuedCredentialRecord): Promise<void>;
}

export function statusService(core: AgentCore): StatusService {
  const { deps } = core;
  const stored = deps.store.collection<StatusListRecord>(COLLECTIONS.statusLists);
  const allocations = deps.store.collection<{ index: number }>(COLLECTIONS.statusAllocations);
  const allocationKey = (name: string, index: number) => `${name}/${String(index).padStart(9, '0')}`;
  // Write-through: this agent is the lists' only writer, and every issuance reads its list (two
  // 16 KiB bitsets and the signed list credential) — parsing that JSON each time cost more than
  // the allocation itself. An issuance changes only the allocated bitset: it writes one small
  // record for its index (statusAllocations) instead of the whole list record (~45 KB, signed
  // credential included), and the next whole write (a re-issue after a status change) folds the
  // records written since into the bitset and deletes them in the same batch.
  const known = new Map<string, StatusListRecord>();
  /** Allocation records not yet folded into the stored list record, by list. */
  const unfolded = new Map<string, string[]>();
  const lists = {
    async get(name: string): Promise<StatusListRecord | undefined> {
      const hit = known.get(name);
      if (hit) return hit;
      const rec = await stored.get(name);
      if (!rec) return undefined;
      const extra = await allocations.list({ prefix: `${name}/` });
      // Another caller loaded it meanwhile, and may have allocated from it since: theirs is current.
      const loaded = known.get(name);
      if (loaded) return loaded;
      const full = extra.length === 0 ? rec : { ...rec, list: withAllocated(rec.list, extra.map((e) => e.value.index)) };
      unfolded.set(name, extra.map((e) => e.key));
      known.set(name, full);
      return full;
    },
    /** Writes the whole record, folding in (deleting) the allocation records written since the last time. */
    async put(name: string, rec: StatusListRecord): Promise<void> {
      const folded = unfolded.get(name) ?? [];
      await deps.store.batch([
        { type: 'put', collection: COLLECTIONS.statusLists, key: name, value: rec },
        ...folded.map((key): BatchOp => ({ type: 'del', collection: COLLECTIONS.statusAllocations, key })),
      ]);
      unfolded.set(name, []);
      known.set(name, rec);
    },
    /** Records one more allocated index of a list whose stored record exists. */
    async allocated(name: string, rec: StatusListRecord, index: number): Promise<void> {
      const key = allocationKey(name, index);
      await allocations.put(key, { index });
      const keys = unfolded.get(name);
      if (keys) keys.push(key);
      else unfolded.set(name, [key]);
      known.set(name, rec);
    },
  };
  const creds = deps.store.collection<IssuedCredentialRecord>(COLLECTIONS.credentials);
  const watched = deps.store.collection<WatchedTerms>(COLLECTIONS.statusTerms);
  const watchKey = (rec: Pick<IssuedCredentialRecord, 'tenantId' | 'projectId' | 'id'>) => `${rec.tenantId}/${rec.projectId ?? ''}/${rec.id}`;
  const byHolder = deps.store.collection<string>(COLLECTIONS.statusTermsByHolder);
  /** A project's watched terms of one user (`u:`) or one holder DID (`d:`, short form: either form of a did:peer:4 is one holder, DID Peer §Method 4). */
  const holderPrefix = (project: string, holder: string) => `${project}/${holder}\u0000`;
  /** The holder index entries of watched terms `w` under `key` (`<tenantId>/<projectId>/<credentialId>`). */
  const holderKeys = (key: string, w: WatchedTerms): string[] => {
    const project = key.slice(0, key.length - w.credentialId.length - 1);
    return [
      ...(w.userId !== undefined ? [holderPrefix(project, `u:${w.userId}`) + w.credentialId] : []),
      holderPrefix(project, `d:${shortForm(w.subject)}`) + w.credentialId,
    ];
  };
  /**
   * The holder index over a store written before it: its watched terms, indexed once (index-once.ts);
   * then, once, its entries under a did:peer:4 long form (only did:ion long forms were shortened
   * when they were written) moved to the short form (store/short-form-moves.ts).
   */
  const indexHolders = async (): Promise<void> => {
    await buildIndexOnce(deps.store, COLLECTIONS.statusTermsByHolder, async () => {
      const ops: BatchOp[] = [];
      for (const { key, value } of (await watched.count()) === 0 ? [] : await watched.list()) {
        for (const k of holderKeys(key, value)) ops.push({ type: 'put', collection: COLLECTIONS.statusTermsByHolder, key: k, value: key });
      }
      return ops;
    });
    await onceMarked(deps.store, SHORT_FORM_KEY_MARKS, COLLECTIONS.statusTermsByHolder, () =>
      moveKeys<string>(deps.store, {
        collection: COLLECTIONS.statusTermsByHolder,
        // `<tenantId>/<projectId>/d:<DID>\0<credentialId>`
        to: (key) => {
          const at = key.indexOf('/d:did:peer:4');
          const end = key.indexOf('\u0000', at);
          return at === -1 || end === -1 ? key : key.slice(0, at + 3) + shortForm(key.slice(at + 3, end)) + key.slice(end);
        },
      }),
    );
  };
  const url = (name: string) => `${deps.publicUrl}/status-lists/${name}`;

  async function load(purpose: StatusPurpose): Promise<StatusListRecord> {
    const name = listName(purpose);
    const existing = await lists.get(name);
    if (existing) return existing;
    return { name, list: createStatusList({ id: url(name), issuer: deps.serviceDid, purpose }) };
  }

  /** Signs the list as it is now. A DID that changed since (another port) takes the list over under the new URL. */
  async function reissue(rec: StatusListRecord): Promise<StatusListRecord> {
    const issuer = credentialIssuer(deps);
    const list = rec.list.issuer === issuer.did ? rec.list : { ...rec.list, issuer: issuer.did, id: url(rec.name) };
    const issued = await issueStatusListCredential(list, { format: 'ldp', issuer, clock: deps.clock });
    const next = { ...rec, list, credential: issued.credential as Record<string, unknown>, issuedAt: core.now() };
    await lists.put(rec.name, next);
    return next;
  }

  function statusEvent(rec: IssuedCredentialRecord, purpose: StatusPurpose, value: boolean, applied?: IssuedCredentialRecord['termsApplied']): ServiceEvent {
    const event = !value ? 'CREDENTIAL_UNSUSPENDED' : purpose === 'revocation' ? 'CREDENTIAL_REVOKED' : 'CREDENTIAL_SUSPENDED';
    const env = credentialStatusUpdate(event, {
      userAccountId: rec.userId ?? rec.subject,
      credentialId: rec.id,
      ...(rec.workflowId ? { issuanceWorkflowId: rec.workflowId } : {}),
      // Which later workflow triggered the terms (extension members; the vendor's two come first).
      ...(applied ? { statusUpdateTrigger: applied.trigger, triggeredByWorkflowId: applied.byWorkflowId } : {}),
    });
    return { tenantId: rec.tenantId, type: env.type, action: env.action ?? undefined, event: env.event, params: env.params };
  }

  function statusChanged(rec: IssuedCredentialRecord, purpose: StatusPurpose, value: boolean, applied?: IssuedCredentialRecord['termsApplied']): void {
    core.events.emit('credential-status-changed', { credentialId: rec.id, purpose, value, ...(applied ? { trigger: applied.trigger, byWorkflowId: applied.byWorkflowId } : {}) });
  }

  /** Sets or clears the credential's bit, re-issues the list, records it, fires the webhook. */
  async function setBit(cred: IssuedCredentialRecord, value: boolean, applied?: IssuedCredentialRecord['termsApplied']): Promise<boolean> {
    const status = cred.status!;
    const changed = await core.lock(`status-list:${status.purpose}`, async () => {
      const rec = await load(status.purpose);
      // Bitstring Status List v1.0 §2.1, statusPurpose revocation: "Used to cancel the validity of
      // a verifiable credential. This status is not reversible." (suspension is). Read under the
      // list's lock: a revoke made at the same moment is seen.
      if (!value && status.purpose === 'revocation' && getStatus(rec.list, status.index)) {
        throw new IdsyncError('revocation_final', `credential ${cred.id} is revoked, and a revocation is not reversible (Bitstring Status List v1.0 §2.1); a suspension is`);
      }
      const list = setStatus(rec.list, status.index, value);
      if (list.bits === rec.list.bits) return false;
      await reissue({ ...rec, list });
      const fresh = (await creds.get(cred.id)) ?? cred;
      // The credential's new status and CREDENTIAL_STATUS_UPDATE in one batch (the outbox).
      const events = await prepareEvents(deps, [statusEvent(cred, status.purpose, value, applied)]);
      await deps.store.batch([
        { type: 'put', collection: COLLECTIONS.credentials, key: cred.id, value: { ...fresh, status: { ...status, set: value }, ...(applied ? { termsApplied: applied } : {}) } },
        ...events.ops,
      ]);
      return events;
    });
    if (changed) {
      await changed.commit();
      statusChanged(cred, status.purpose, value, applied);
    }
    return changed !== false;
  }

  const service: StatusService = {
    allocate: (purpose) =>
      core.lock(`status-list:${purpose}`, async () => {
        const rec = await load(purpose);
        const { list, index } = allocateIndex(rec.list, core.options.statusIndex);
        // The list credential's bits did not change (it is not signed again), but a new list must
        // be published once.
        let next: StatusListRecord;
        if (rec.credential) await lists.allocated(rec.name, (next = { ...rec, list }), index);
        else next = await reissue({ ...rec, list });
        return { entry: statusListEntry(next.list, index), list: rec.name, index };
      }),

    async listCredential(name) {
      const rec = await lists.get(name);
      if (!rec) return undefined;
      if (rec.credential && rec.list.issuer === deps.serviceDid) return rec.credential;
      return (await core.lock(`status-list:${rec.list.purpose}`, async () => reissue((await lists.get(name)) ?? rec))).credential;
    },

    async setCredentialStatus(credentialId, value) {
      const cred = await creds.get(credentialId);
      if (!cred?.status) throw new IdsyncError('credential_has_no_status', `credential ${credentialId} has no status entry`);
      return setBit(cred, value);
    },

    async workflowTriggered(workflow, trigger) {
      const isEarlier = async (credentialWorkflowId: string | undefined, by: TriggeringWorkflow): Promise<boolean> => {
        if (credentialWorkflowId === undefined || by.createdAt === undefined) return true;
        const own = await deps.store.collection<IssuanceWorkflow>(WORKFLOWS).get(credentialWorkflowId);
        return !own || createdBefore(own.createdAt, by.createdAt);
      };
      const sameUser = (w: WatchedTerms): boolean =>
        (workflow.userId !== undefined && w.userId !== undefined && workflow.userId === w.userId) ||
        (workflow.userDID !== undefined && sameDid(workflow.userDID, w.subject));
      const changed: string[] = [];
      // The watched terms of this workflow's user, found by user id and by holder DID (not every one of the project's).
      await indexHolders();
      const project = `${workflow.tenantId}/${workflow.projectId}`;
      const holders = [
        ...(workflow.userId !== undefined ? [`u:${workflow.userId}`] : []),
        ...(workflow.userDID !== undefined ? [`d:${shortForm(workflow.userDID)}`] : []),
      ];
      const keys = new Set<string>();
      for (const h of holders) for (const e of await byHolder.list({ prefix: holderPrefix(project, h) })) keys.add(e.value);
      for (const key of [...keys].sort()) {
        const w = await watched.get(key);
        if (!w) continue;
        // Never the credential's own workflow: its terms are about what comes after it.
        if (w.trigger !== trigger || w.workflowId === workflow.id || !sameUser(w)) continue;
        // Nor a workflow made after the triggering one: two workflows completing together (a user
        // accepting both offers at once) would revoke each other's credentials, where only the
        // earlier one is superseded ("When a later workflow … is completed", docs/service.md).
        // Not deleted: the credential stays watched for a workflow that does come after it.
        if (!(await isEarlier(w.workflowId, workflow))) continue;
        const cred = await creds.get(w.credentialId);
        if (cred?.status && cred.terms && !cred.termsApplied && cred.status.purpose === statusPurposeFor(cred.terms.status)) {
          const applied = { at: core.now(), byWorkflowId: workflow.id, trigger };
          if (await setBit(cred, true, applied)) changed.push(cred.id);
          else await creds.put(cred.id, { ...((await creds.get(cred.id)) ?? cred), termsApplied: applied });
        }
        await deps.store.batch([
          { type: 'del', collection: COLLECTIONS.statusTerms, key },
          ...holderKeys(key, w).map((k): BatchOp => ({ type: 'del', collection: COLLECTIONS.statusTermsByHolder, key: k })),
        ]);
      }
      return changed;
    },

    credential: (id) => creds.get(id),
    async recordCredential(rec) {
      const ops: BatchOp[] = [{ type: 'put', collection: COLLECTIONS.credentials, key: rec.id, value: rec }];
      if (rec.terms && rec.status && rec.projectId) {
        const w: WatchedTerms = {
          credentialId: rec.id,
          subject: rec.subject,
          trigger: rec.terms.statusUpdateTrigger,
          ...(rec.workflowId ? { workflowId: rec.workflowId } : {}),
          ...(rec.userId ? { userId: rec.userId } : {}),
        };
        ops.push({ type: 'put', collection: COLLECTIONS.statusTerms, key: watchKey(rec), value: w });
        for (const k of holderKeys(watchKey(rec), w)) ops.push({ type: 'put', collection: COLLECTIONS.statusTermsByHolder, key: k, value: watchKey(rec) });
      }
      await deps.store.batch(ops);
    },
  };
  return service;
}
