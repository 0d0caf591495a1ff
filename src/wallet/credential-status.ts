// Re-reading the status of stored credentials (Bitstring Status List v1.0 §3.2): each credential
// with a credentialStatus is checked against the issuer's current status list credential, and its
// stored status becomes 'revoked', 'suspended' or 'valid' again (a suspension can be lifted).
// Replaced credentials keep 'replaced'. A list that cannot be fetched changes nothing.
import { verifyCredential } from '../credentials/verify.js';
import type { WalletContext } from './context.js';
import type { CredentialStatus, StoredCredential } from './credential-store.js';

export interface StatusRefresh {
  id: string;
  status: CredentialStatus;
  changed: boolean;
  /** Why the status could not be read (the stored status was kept). */
  error?: string;
}

function statusFrom(code: string | undefined): CredentialStatus | undefined {
  if (code === undefined) return 'valid';
  if (code === 'revoked' || code === 'suspended') return code;
  return undefined;
}

export async function refreshStatuses(ctx: WalletContext, ids?: string[]): Promise<StatusRefresh[]> {
  const out: StatusRefresh[] = [];
  const all = await ctx.credentials.list();
  // Credentials of one issuer share a status list: fetch each list once per refresh.
  const lists = new Map<string, Promise<unknown>>();
  const statusList = (url: string) => {
    let list = lists.get(url);
    if (!list) lists.set(url, (list = Promise.resolve(ctx.statusListFetch?.(url))));
    return list;
  };
  for (const credential of all.filter((c) => c.status !== 'replaced' && (ids === undefined || ids.includes(c.id)))) {
    const result = await verifyCredential(credential.raw, { resolve: ctx.resolve, clock: ctx.clock, statusList });
    const check = result.checks.find((c) => c.check === 'status');
    if (!check) continue; // no credentialStatus: nothing to refresh
    const status = statusFrom(check.ok ? undefined : check.code);
    if (!status) {
      out.push({ id: credential.id, status: credential.status, changed: false, error: `${check.code}: ${check.detail ?? ''}`.trim() });
      continue;
    }
    let stored: StoredCredential = credential;
    let changed = false;
    if (status !== credential.status) {
      // Only from the status it had when the list was read: a credential replaced meanwhile (its
      // replacement arrived during the fetch) keeps 'replaced'.
      stored = await ctx.credentials.setStatus(credential.id, status, {}, credential.status);
      changed = stored.status === status;
      if (changed) ctx.events.emit('credential-status-changed', { credential: stored, previous: credential.status });
    }
    out.push({ id: credential.id, status: stored.status, changed });
  }
  return out;
}
