// `idsync wallet status`: who the wallet is and what it holds and waits on: its DID and endpoint,
// its mediator (the grant, and how a running wallet collects there), connections, credentials,
// pending items, and its retries (router/retry): steps waiting for their time, due, being sent
// again, given up. Through `wallet serve` when it runs (its live scheduler);
// otherwise read from the folder without starting the agent (a stopped wallet sends nothing, so
// every step it waits on is due: it goes out at once when the wallet starts).
import { didRegistry } from '../../store/dids.js';
import { connections } from '../../store/connections.js';
import { loadIdentity } from '../../wallet/identity.js';
import { credentialStore } from '../../wallet/credential-store.js';
import { pendingStore } from '../../wallet/policies.js';
import { storedRetryStatus, type RetryStatus } from '../../wallet/retry-status.js';
import type { Wallet } from '../../wallet/wallet.js';
import type { Store } from '../../store/store.js';
import { IdsyncError } from '../../errors.js';
import { systemClock } from '../../clock.js';
import { mediationStore, type MediationRecord } from '../../wallet/mediation.js';

/** The wallet's mediator, when it sits behind one; `collecting` only while it runs. */
export interface WalletMediationView {
  mediator: string;
  version: string | null;
  state: MediationRecord['state'];
  form: MediationRecord['form'];
  collecting?: 'live' | 'polling' | 'stopped';
}

function mediationView(m: MediationRecord | undefined, collecting?: WalletMediationView['collecting']): WalletMediationView | null {
  if (!m) return null;
  return { mediator: m.mediator, version: m.version ?? null, state: m.state, form: m.form, ...(collecting ? { collecting } : {}) };
}

export interface WalletStatusView {
  did: string;
  shortDid: string;
  endpoint: string | null;
  /** The mediator it sits behind, or null. */
  mediation: WalletMediationView | null;
  /** Whether `wallet serve` runs for the folder (the counts are then its live ones). */
  running: boolean;
  connections: { established: number; total: number };
  credentials: number;
  pending: number;
  retries: RetryStatus;
}

/** The status of a running wallet (serve). */
export async function walletStatusOf(wallet: Wallet): Promise<WalletStatusView> {
  const conns = await wallet.connections();
  return {
    did: wallet.did,
    shortDid: wallet.shortDid,
    endpoint: wallet.identity.endpoint ?? null,
    mediation: mediationView(wallet.mediation, wallet.collecting),
    running: true,
    connections: { established: conns.filter((c) => c.state === 'established').length, total: conns.length },
    credentials: (await wallet.credentials()).filter((c) => c.status === 'valid').length,
    pending: (await wallet.pending()).length,
    retries: await wallet.retries(),
  };
}

/** The status of a wallet that is not running, read from its store. */
export async function storedWalletStatus(store: Store, dir: string): Promise<WalletStatusView> {
  const identity = await loadIdentity(didRegistry(store));
  if (!identity) throw new IdsyncError('wallet_not_found', `no wallet in ${dir} (create one: idsync wallet create --data ${dir})`);
  const conns = await connections(store).list();
  return {
    did: identity.did,
    shortDid: identity.shortDid,
    endpoint: identity.endpoint ?? null,
    mediation: mediationView(await mediationStore(store).get()),
    running: false,
    connections: { established: conns.filter((c) => c.state === 'established').length, total: conns.length },
    credentials: (await credentialStore(store, systemClock).list({ status: 'valid' })).length,
    pending: (await pendingStore(store).list()).length,
    retries: await storedRetryStatus(store),
  };
}

export function humanWalletStatus(s: WalletStatusView): string {
  const r = s.retries;
  return [
    `wallet ${s.shortDid}${s.running ? ' (wallet serve runs)' : ' (not running)'}`,
    `endpoint: ${s.endpoint ?? 'none (live delivery and pickup)'}`,
    ...(s.mediation ? [humanMediation(s.mediation)] : []),
    `connections: ${s.connections.established} established of ${s.connections.total}`,
    `credentials: ${s.credentials} valid; pending: ${s.pending}`,
    `retries: ${r.scheduled} scheduled, ${r.due} due, ${r.retrying} retrying, ${r.abandoned} abandoned${s.running ? ' since the start' : ''}`,
  ].join('\n');
}

function humanMediation(m: WalletMediationView): string {
  const how = m.collecting === 'live' ? '; collecting live on its WebSocket' : m.collecting === 'polling' ? '; collecting by polling (live delivery ended or not offered)' : '';
  return `mediator: ${m.mediator} (coordinate-mediation ${m.version ?? '?'}, ${m.state}${how})`;
}
