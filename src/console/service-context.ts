// The service twin's console context: its message feed, and what ties messages to users (the
// wallet DIDs a user has linked, its workflows' threads) read through the service's own modules.
import { isoNow } from '../clock.js';
import { didOf } from '../didcomm/message.js';
import { shortForm } from '../did/short-form.js';
import type { ServiceDeps } from '../service/deps.js';
import { threadStore } from '../service/didcomm/threads.js';
import { listWorkflows } from '../service/issuance/list.js';
import type { IssuanceWorkflow } from '../service/issuance/workflows.js';
import { threadOf, type LoggedMessage } from '../store/messages.js';
import type { ConsoleContext } from './context.js';
import type { FaultSwitch } from '../testing/fault-switch.js';
import type { Wallet } from '../wallet/wallet.js';

export interface ServiceConsoleContext extends ConsoleContext {
  kind: 'service';
  deps: ServiceDeps;
  faults?: FaultSwitch;
  /** The in-process wallet that accepts invitations from the outbox view. */
  wallet(): Promise<Wallet>;
}

/** The DIDs of a user's linked wallet (long and short form), or none. */
export async function userDids(deps: ServiceDeps, tenantId: string | undefined, userId: string): Promise<string[]> {
  if (!tenantId) return [];
  const u = await deps.users.get({ tenantId, userId });
  return [u?.userDID, u?.shortUserDID].filter((d): d is string => typeof d === 'string');
}

/** Whether a DID is one of `dids`, in either form. */
function didIn(dids: string[]): (d: string | undefined) => boolean {
  // sameDid against each, as one look-up: the short form of a DID URL's DID.
  const shorts = new Set(dids.map((d) => shortForm(didOf(d))));
  return (d) => d !== undefined && shorts.has(shortForm(didOf(d)));
}

/**
 * A user's workflows, oldest first: those created for its id, and those created for no user id
 * that a wallet of the user answered (or that were addressed to its DID).
 */
export async function userWorkflows(deps: ServiceDeps, tenantId: string | undefined, userId: string, dids?: string[]): Promise<IssuanceWorkflow[]> {
  if (!tenantId) return [];
  const isUser = didIn(dids ?? (await userDids(deps, tenantId, userId)));
  const { workflows } = await listWorkflows(deps, tenantId, {}, { limit: Number.MAX_SAFE_INTEGER });
  return workflows.filter((wf) => (wf.userId !== undefined ? wf.userId === userId : isUser(wf.userDID)));
}

/** A predicate over log records: a message to or from one of the user's DIDs, or in one of its workflows' threads. */
export async function userMessagePredicate(deps: ServiceDeps, tenantId: string | undefined, userId: string): Promise<(m: LoggedMessage) => boolean> {
  const dids = await userDids(deps, tenantId, userId);
  const threads = new Set<string>();
  for (const wf of await userWorkflows(deps, tenantId, userId, dids)) if (wf.didcommThreadId) threads.add(wf.didcommThreadId);
  const isUser = didIn(dids);
  return (m) => threads.has(threadOf(m)) || isUser(m.from) || (m.to ?? []).some(isUser);
}

/** Whether the service's DIDComm agent keeps the state of a thread of the tenant (a DID authentication, an issuance). */
export async function serviceKnowsThread(deps: ServiceDeps, tenantId: string | undefined, thid: string): Promise<boolean> {
  const thread = await threadStore(deps.store, () => isoNow(deps.clock)).get(thid);
  return thread !== undefined && (tenantId === undefined || thread.tenantId === tenantId);
}

/** The user a wallet DID belongs to, named for diagrams. */
export async function userOfDid(deps: ServiceDeps, tenantId: string | undefined, did: string): Promise<string | undefined> {
  // Holders' DIDs: did:ion (the service's users), or did:peer (wallets that hold one).
  if (!tenantId || !(did.startsWith('did:ion:') || did.startsWith('did:peer:'))) return undefined;
  const u = await deps.users.findByDid(tenantId, did).catch(() => undefined);
  return u ? `user ${u.userId}` : undefined;
}
