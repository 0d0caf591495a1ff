// Whole steps of the sync flow as one call each: connect a user's wallet (PUT user with
// isSyncOn → invite → the wallet accepts → Data Pipe established) and sync datapoints into it
// (PUT datapoints → the wallet stores a new credential → the service says linked and synced).
import type { StoredCredential } from '../wallet/credential-store.js';
import type { Wallet } from '../wallet/wallet.js';
import type { FlatDatapoints, ServiceClient, SyncContext } from './rest-client.js';
import { waitForSyncContext } from './service-waits.js';
import { defaultTimeoutMs, type WaitOptions } from './wait.js';
import { waitForCredential } from './wallet-waits.js';

/** Anything with the service's REST client: a testbed, testbed.service, or a client. */
export type ClientSource = ServiceClient | { client: ServiceClient } | { service: { client: ServiceClient } };

export function clientOf(source: ClientSource): ServiceClient {
  if ('service' in source) return source.service.client;
  if ('client' in source) return source.client;
  return source;
}

export interface ConnectedUser {
  userId: string;
  /** The wallet's long-form did:ion as the service linked it. */
  userDID: string;
  shortUserDID: string;
  /** Absent when the user's session was established already. */
  invitationUrl?: string;
  syncContext: SyncContext;
}

/** PUT user {settings: {isSyncOn: true}} → invite → wallet accepts → waits until the service says established. */
export async function connectUser(source: ClientSource, userId: string, wallet: Wallet, options: WaitOptions = {}): Promise<ConnectedUser> {
  const client = clientOf(source);
  await client.putUser(userId, { settings: { isSyncOn: true } });
  const invitation = await client.invite(userId);
  // The wallet's own guard (30 s) would outlast the test: give it the test's default too.
  if (invitation.invitationUrl) await wallet.acceptInvitation(invitation.invitationUrl, { timeoutMs: options.timeoutMs ?? defaultTimeoutMs() });
  const syncContext = await waitForSyncContext(client, userId, (c) => c.isSessionEstablished, options);
  const user = await client.getUser(userId);
  return {
    userId,
    userDID: user.userDID ?? '',
    shortUserDID: user.shortUserDID ?? '',
    ...(invitation.invitationUrl ? { invitationUrl: invitation.invitationUrl } : {}),
    syncContext,
  };
}

export interface SyncResult {
  credential: StoredCredential;
  syncContext: SyncContext;
  syncOperationId?: string;
}

/**
 * PUT datapoints (auto sync) for a connected user, then waits for the wallet to store a credential
 * it did not hold before and for the service to report the user linked with nothing left to sync.
 */
export async function syncDatapoints(source: ClientSource, userId: string, wallet: Wallet, datapoints: FlatDatapoints, options: WaitOptions = {}): Promise<SyncResult> {
  const client = clientOf(source);
  const before = new Set((await wallet.credentials()).map((c) => c.id));
  const { syncOperationId } = await client.putDatapoints(userId, datapoints);
  const credential = await waitForCredential(wallet, (c) => !before.has(c.id) && c.status === 'valid', options);
  const syncContext = await waitForSyncContext(client, userId, (c) => c.isLinked && sameJson(c.syncContext.datapointsSynced, c.syncContext.datapointsLatest), options);
  return { credential, syncContext, ...(syncOperationId ? { syncOperationId } : {}) };
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  return v;
}
