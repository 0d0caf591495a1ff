// What waits for the user and what the service queued: `idsync wallet pending`, `approve ID`,
// `decline ID` and `pickup`. Each works on a running wallet (the serve process, or one opened here
// for the command); the views are the --json output and the control API's answers.
import { didWebFromUrl } from '../../did/web.js';
import { IdsyncError } from '../../errors.js';
import type { Invitation } from '../../protocols/out-of-band.js';
import type { PendingItem, PendingKind, Wallet, WalletEventMap } from '../../wallet/wallet.js';
import { usageError } from '../errors.js';
import { answerInvitation } from './wallet-run.js';
import { credentialView, type AcceptResult, type CredentialView } from './wallet-views.js';

export interface PendingView {
  id: string;
  kind: PendingKind;
  from: string;
  receivedAt: string;
  thid: string;
  goalCode?: string;
  /** Invitations: what the inviter says it is for (`body.goal`). */
  goal?: string;
  /** Offers: the credential's claims (flat datapoints). */
  preview?: Record<string, string>;
  replacementId?: string;
  /** Proof requests: who asks. */
  domain?: string;
}

export function pendingView(item: PendingItem): PendingView {
  const goal = item.kind === 'invitation' ? (item.message.body as { goal?: unknown })?.goal : undefined;
  return {
    id: item.id, kind: item.kind, from: item.from, receivedAt: item.receivedAt, thid: item.thid,
    ...(item.goalCode ? { goalCode: item.goalCode } : {}),
    ...(typeof goal === 'string' ? { goal } : {}),
    ...(item.preview ? { preview: item.preview } : {}),
    ...(item.replacementId ? { replacementId: item.replacementId } : {}),
    ...(item.domain ? { domain: item.domain } : {}),
  };
}

export async function listPending(wallet: Wallet): Promise<PendingView[]> {
  return (await wallet.pending()).map(pendingView);
}

async function pendingItem(wallet: Wallet, id: string, dir: string): Promise<PendingItem> {
  const item = (await wallet.pending()).find((i) => i.id === id);
  if (!item) throw new IdsyncError('not_found', `nothing pending with id ${id} (see idsync wallet pending --data ${dir})`);
  return item;
}

export interface ApproveResult {
  id: string;
  kind: PendingKind;
  thid: string;
  /** Invitations: what accepting gave, as `wallet accept` prints it. */
  accepted?: AcceptResult;
  /** Offers with --wait: the credential received. */
  credential?: CredentialView;
}

/** Approves a pending item: accepts the invitation, requests the offered credential, or answers the proof request. */
export async function approveWith(wallet: Wallet, id: string, o: { wait: boolean; timeoutMs: number; dir: string }): Promise<ApproveResult> {
  const item = await pendingItem(wallet, id, o.dir);
  const base = { id: item.id, kind: item.kind, thid: item.thid };
  if (item.kind === 'invitation') {
    const accepted = await answerInvitation(wallet, item.message as Invitation, async () => (await wallet.approve(id, { timeoutMs: o.timeoutMs }))!, o);
    return { ...base, thid: accepted.thid, accepted };
  }
  await wallet.approve(id);
  if (item.kind !== 'credential-offer' || !o.wait) return base;
  return { ...base, credential: credentialView(await wallet.waitForCredential({ thid: item.thid, timeoutMs: o.timeoutMs })) };
}

/** Declines a pending item: offers and proof requests are refused with a problem report; an invitation is dropped. */
export async function declineWith(wallet: Wallet, id: string, o: { reason?: string; dir: string }): Promise<{ id: string; kind: PendingKind; declined: true }> {
  const item = await pendingItem(wallet, id, o.dir);
  await wallet.decline(id, o.reason);
  return { id: item.id, kind: item.kind, declined: true };
}

export interface PickupView {
  /** The services asked. */
  peers: string[];
  /** Every message delivered from their queues, in order, with what the wallet made of it. */
  received: Array<{ type: string; thid?: string; from?: string; status: string; problemCode?: string }>;
  /** What now waits for approve/decline. */
  pending: PendingView[];
  credentials: CredentialView[];
  connections: Array<{ theirDid: string; state: string }>;
  problems: Array<{ code: string; text: string; pthid: string }>;
}

/** `--from`: a DID, or the service's URL (its did:web). */
export function peerOf(from: string): string {
  if (from.startsWith('did:')) return from;
  if (/^https?:\/\//i.test(from)) return didWebFromUrl(from.replace(/\/+$/, ''));
  throw usageError('invalid_argument', `--from must be a DID or the service's http(s) URL: ${from}`);
}

/** Rounds of pickup per peer at most: each round collects what answering the last one made the service queue. */
const MAX_PICKUP_ROUNDS = 20;

/**
 * Collects what `from` (or every service with an established Data Pipe) queued for this wallet,
 * again while the answers to what arrived make it queue more, and says what arrived.
 */
export async function pickupWith(wallet: Wallet, from: string | undefined): Promise<PickupView> {
  // Behind a mediator everything for the wallet waits there: that is the one peer to collect from.
  const mediator = wallet.mediation?.mediator;
  const peers = from !== undefined ? [peerOf(from)] : mediator ? [mediator] : [...new Set((await wallet.connections({ state: 'established' })).map((c) => c.theirDid))];
  if (peers.length === 0) throw usageError('no_peer', 'no established Data Pipe: name the service with --from DID_OR_URL');
  const view: PickupView = { peers, received: [], pending: [], credentials: [], connections: [], problems: [] };
  const listeners: Array<[keyof WalletEventMap, (e: never) => void]> = [
    ['invitation-received', (e: WalletEventMap['invitation-received']) => view.pending.push(pendingView(e.item))],
    ['offer-pending', (e: WalletEventMap['offer-pending']) => view.pending.push(pendingView(e.item))],
    ['proof-request-pending', (e: WalletEventMap['proof-request-pending']) => view.pending.push(pendingView(e.item))],
    ['credential-received', (e: WalletEventMap['credential-received']) => view.credentials.push(credentialView(e.credential))],
    ['connection-established', (e: WalletEventMap['connection-established']) => view.connections.push({ theirDid: e.connection.theirDid, state: e.connection.state })],
    ['problem-received', (e: WalletEventMap['problem-received']) => view.problems.push({ code: e.problem.code, text: e.problem.text, pthid: e.problem.pthid })],
  ];
  for (const [event, fn] of listeners) wallet.on(event, fn as (e: unknown) => void);
  try {
    for (const peer of peers) {
      for (let round = 0; round < MAX_PICKUP_ROUNDS; round++) {
        const result = await wallet.pickup(peer);
        for (const r of result.results) {
          view.received.push({
            type: String(r.message?.type ?? 'unreadable'), status: r.status,
            ...(r.message?.thid ? { thid: r.message.thid } : {}), ...(r.message?.from ? { from: r.message.from } : {}), ...(r.problemCode ? { problemCode: r.problemCode } : {}),
          });
        }
        // A pickup collects until the queue is empty or what is left could not be confirmed;
        // it stops short only at its round guard (`more`).
        if (!result.more) break;
      }
    }
  } finally {
    for (const [event, fn] of listeners) wallet.off(event, fn as (e: unknown) => void);
  }
  return view;
}
