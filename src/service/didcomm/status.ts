// Credential status for issued credentials (Bitstring Status List v1.0) and the vendor's
// statusChangeTerms (vendor-facts "POST /issuance-workflows"): one list per purpose, published
// at `<publicUrl>/status-lists/<name>` (routes.ts), re-issued after every change, and
// CREDENTIAL_STATUS_UPDATE webhooks (CREDENTIAL_REVOKED / _SUSPENDED / _UNSUSPENDED).
import {
  allocateIndex,
  applyStatusChange,
  createStatusList,
  issueStatusListCredential,
  setStatus,
  statusListEntry,
  statusPurposeFor,
  type StatusChangeTerms,
  type StatusList,
  type StatusUpdateTrigger,
} from '../../credentials/status-list.js';
import type { CredentialStatusEntry, StatusPurpose } from '../../credentials/types.js';
import { IdsyncError } from '../../errors.js';
import { credentialStatusUpdate } from '../webhooks/events.js';
import { COLLECTIONS, type AgentCore } from './core.js';
import { credentialIssuer } from './keys.js';

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
  issuedAt: string;
}

export const listName = (purpose: StatusPurpose): string => `${purpose}-1`;

export interface StatusService {
  /** Reserves an entry in the `purpose` list for a new credential. */
  allocate(purpose: StatusPurpose): Promise<{ entry: CredentialStatusEntry; list: string; index: number }>;
  /** The current signed list credential (issued now when missing). */
  listCredential(name: string): Promise<Record<string, unknown> | undefined>;
  /** Sets or clears a credential's bit, re-issues the list and fires the webhook. */
  setCredentialStatus(credentialId: string, value: boolean): Promise<boolean>;
  /** statusChangeTerms: applies them when `trigger` happens. Returns whether the status changed. */
  applyTerms(credentialId: string, terms: StatusChangeTerms, trigger: StatusUpdateTrigger): Promise<boolean>;
  credential(id: string): Promise<IssuedCredentialRecord | undefined>;
  recordCredential(rec: IssuedCredentialRecord): Promise<void>;
}

export function statusService(core: AgentCore): StatusService {
  const { deps } = core;
  const lists = deps.store.collection<StatusListRecord>(COLLECTIONS.statusLists);
  const creds = deps.store.collection<IssuedCredentialRecord>(COLLECTIONS.credentials);
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

  async function emitStatus(rec: IssuedCredentialRecord, purpose: StatusPurpose, value: boolean): Promise<void> {
    const event = !value ? 'CREDENTIAL_UNSUSPENDED' : purpose === 'revocation' ? 'CREDENTIAL_REVOKED' : 'CREDENTIAL_SUSPENDED';
    const env = credentialStatusUpdate(event, {
      userAccountId: rec.userId ?? rec.subject,
      credentialId: rec.id,
      ...(rec.workflowId ? { issuanceWorkflowId: rec.workflowId } : {}),
    });
    await core.emit({ tenantId: rec.tenantId, type: env.type, action: env.action ?? undefined, event: env.event, params: env.params });
    core.events.emit('credential-status-changed', { credentialId: rec.id, purpose, value });
  }

  const service: StatusService = {
    allocate: (purpose) =>
      core.lock(`status-list:${purpose}`, async () => {
        const rec = await load(purpose);
        const { list, index } = allocateIndex(rec.list, core.options.statusIndex);
        // The list credential's bits did not change, but a new list must be published once.
        const next = rec.credential ? { ...rec, list } : await reissue({ ...rec, list });
        if (rec.credential) await lists.put(rec.name, next);
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
      const status = cred.status;
      const changed = await core.lock(`status-list:${status.purpose}`, async () => {
        const rec = await load(status.purpose);
        const list = setStatus(rec.list, status.index, value);
        if (list.bits === rec.list.bits) return false;
        await reissue({ ...rec, list });
        await creds.put(cred.id, { ...cred, status: { ...status, set: value } });
        return true;
      });
      if (changed) await emitStatus(cred, status.purpose, value);
      return changed;
    },

    async applyTerms(credentialId, terms, trigger) {
      const cred = await creds.get(credentialId);
      if (!cred?.status || terms.statusUpdateTrigger !== trigger) return false;
      const status = cred.status;
      if (status.purpose !== statusPurposeFor(terms.status)) {
        deps.logger.warn({ credentialId, purpose: status.purpose, terms: terms.status }, 'statusChangeTerms need another status list than the credential has');
        return false;
      }
      const changed = await core.lock(`status-list:${status.purpose}`, async () => {
        const rec = await load(status.purpose);
        const result = applyStatusChange({ terms, trigger, list: rec.list, index: status.index });
        if (!result.changed) return false;
        await reissue({ ...rec, list: result.list });
        await creds.put(cred.id, { ...cred, status: { ...status, set: true } });
        return true;
      });
      if (changed) await emitStatus(cred, status.purpose, true);
      return changed;
    },

    credential: (id) => creds.get(id),
    recordCredential: (rec) => creds.put(rec.id, rec),
  };
  return service;
}
