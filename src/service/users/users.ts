// Provider users (service-interface.md "User", "User sync context"): the stored record, its
// state changes, and the functions the DIDComm side calls (linkWallet, recordLogin,
// markSynced). Writes to one user are serialised and stored before the caller answers.
import { isoNow } from '../../clock.js';
import type { FlatDatapoints, FlatDatapointsPatch } from '../../credentials/datapoints.js';
import { mergeDatapoints } from '../../credentials/datapoints.js';
import { shortForm } from '../../did/short-form.js';
import type { ServiceBase } from '../context.js';
import { keyedLock } from '../../keyed-lock.js';
import { prepareEvents } from '../webhooks/event-outbox.js';
import { problem } from '../http/problem.js';
import { moveKeys, onceMarked, SHORT_FORM_KEY_MARKS } from '../../store/short-form-moves.js';
import type { BatchOp, Store } from '../../store/store.js';

/** Which user: users live inside a tenant. */
export interface UserRef {
  tenantId: string;
  userId: string;
}

/** Why a sync was requested: a datapoints update with autoSync, or POST .../sync. */
export type SyncReason = 'datapoints-updated' | 'manual';

/** What users need of the DIDComm agent: a sync started (or queued) for a user. */
export interface SyncRequester {
  /** Starts (or queues) a sync over the user's established session. Must be durable before it resolves. */
  requestSync(user: UserRef, reason: SyncReason): Promise<{ operationId: string }>;
  /**
   * The user's record shows no session: whether the agent holds one all the same (a Data Pipe the
   * wallet established), in which case it links the user again first. The provider's view of a
   * session is never behind the wallet's.
   */
  reconcileSession?(user: UserRef): Promise<boolean>;
}

export interface UserRecord extends UserRef {
  /** The spec shows only `Registered`; it is the only value we use. */
  userStatus: 'Registered';
  /** The linked wallet's DID as it first wrote it (a did:ion or did:peer:4 long form). */
  userDID?: string;
  /** Its short form (did/short-form.ts). A did:peer:4 linked before its forms were one DID may show its long form here: compare through shortForm. */
  shortUserDID?: string;
  userLogins: number;
  userLastLoginAt?: string;
  settings: { isSyncOn: boolean };
  /** The latest datapoints (flat form). */
  datapoints: FlatDatapoints;
  /** The datapoints of the last completed sync (flat form). */
  datapointsSynced: FlatDatapoints;
  isSessionEstablished: boolean;
  isLinked: boolean;
  /** A sync is owed: datapoints changed with autoSync while no session was established. */
  pendingSync: boolean;
  createdAt: string;
  updatedAt: string;
}

export const USERS = 'svc-users';
export const USER_DIDS = 'svc-user-dids';

/** `<tenantId>/<userId>`: keys of per-user records (here and on the DIDComm side). */
export const userKey = (r: UserRef): string => `${r.tenantId}/${r.userId}`;
// A wallet DID in either form of a did:ion or did:peer:4 is one wallet (DID Peer §Method 4: the
// long form in a first message, the short form after it).
const didKey = (tenantId: string, did: string): string => `${tenantId}/${shortForm(did)}`;

/**
 * Moves, once per store, the wallet DIDs kept under a did:peer:4 long form (only did:ion long
 * forms were shortened then) to their short form: `<tenantId>/<DID>`, and a tenant id holds no
 * DID. A link written under the short form since stays.
 */
function moveUserDidKeys(store: Store): Promise<number> {
  const lead = '/did:peer:4';
  return onceMarked(store, SHORT_FORM_KEY_MARKS, USER_DIDS, () =>
    moveKeys<string>(store, {
      collection: USER_DIDS,
      to: (key) => {
        const at = key.indexOf(lead);
        return at === -1 ? key : key.slice(0, at + 1) + shortForm(key.slice(at + 1));
      },
    }),
  );
}

/** The wallet a Data Pipe linked, and the thread it did it on. */
export interface LinkedDids {
  longDid: string;
  shortDid?: string;
  thid?: string;
  invitationId?: string;
}

export interface ListUsersOptions {
  limit: number;
  offset?: number;
  /** userId after which to continue (decoded from the opaque cursor). */
  after?: string;
}

export interface UserStore {
  get(ref: UserRef): Promise<UserRecord | undefined>;
  /** Throws 404 user_not_found. */
  require(ref: UserRef): Promise<UserRecord>;
  upsert(ref: UserRef, input: { settings?: { isSyncOn?: boolean } }): Promise<{ user: UserRecord; created: boolean }>;
  list(tenantId: string, options: ListUsersOptions): Promise<{ total: number; users: UserRecord[]; hasMore: boolean }>;
  updateDatapoints(ref: UserRef, patch: FlatDatapointsPatch, options: { autoSync: boolean }): Promise<{ user: UserRecord; syncOperationId?: string }>;
  /** Manual sync (POST .../sync): 409 while no session or no consent. */
  startSync(ref: UserRef): Promise<{ operationId: string }>;
  /**
   * `thid`: the Data Pipe thread (the wallet's request id); `invitationId`: the invitation it
   * answered. `write` stores the link's writes (under the user's lock) instead of a batch of their
   * own: the Data Pipe step stores them in one batch with its answer.
   */
  linkWallet(ref: UserRef, dids: LinkedDids, write?: (ops: BatchOp[]) => Promise<void>): Promise<UserRecord>;
  /**
   * The Data Pipe with the wallet `shortDid` closed: the user's session is no longer established
   * (a new invitation links a wallet again). Nothing changes when the user's session is with
   * another wallet or already ended. `write` as for linkWallet.
   */
  endSession(ref: UserRef, shortDid: string, write?: (ops: BatchOp[]) => Promise<void>): Promise<void>;
  recordLogin(ref: UserRef): Promise<UserRecord>;
  markSynced(ref: UserRef, datapoints: FlatDatapoints): Promise<UserRecord>;
  findByDid(tenantId: string, did: string): Promise<UserRecord | undefined>;
  /** After a restart: requests the syncs owed to linked users (a crash came between link and request). */
  resumeOwed?(): Promise<number>;
}

export function createUserStore(deps: Pick<ServiceBase, 'store' | 'clock' | 'events' | 'logger'> & { agent: SyncRequester }): UserStore {
  const users = deps.store.collection<UserRecord>(USERS);
  const dids = deps.store.collection<string>(USER_DIDS);
  // Read-modify-write of one user never interleaves (in this process).
  const lock = keyedLock();
  const locked = <T>(ref: UserRef, fn: () => Promise<T>): Promise<T> => lock(userKey(ref), fn);
  // findByDid and linkWallet, which read and write the wallet DIDs, wait for their move; started now.
  const moved = () => moveUserDidKeys(deps.store);
  moved().catch(() => {});

  async function requireUser(ref: UserRef): Promise<UserRecord> {
    const u = await users.get(userKey(ref));
    if (!u) throw problem('user_not_found', `no user ${ref.userId}`);
    return u;
  }

  /** A user whose record lost its session, linked again first when the agent holds the session (SyncRequester.reconcileSession). */
  async function reconciled(ref: UserRef): Promise<void> {
    const u = await users.get(userKey(ref));
    if (u && !u.isSessionEstablished) await deps.agent.reconcileSession?.(ref);
  }

  async function save(u: UserRecord): Promise<UserRecord> {
    u.updatedAt = isoNow(deps.clock);
    await users.put(userKey(u), u);
    return u;
  }

  const store: UserStore = {
    get: (ref) => users.get(userKey(ref)),
    require: requireUser,

    upsert: (ref, input) =>
      locked(ref, async () => {
        const existing = await users.get(userKey(ref));
        const now = isoNow(deps.clock);
        const user: UserRecord = existing ?? {
          ...ref,
          userStatus: 'Registered',
          userLogins: 0,
          settings: { isSyncOn: false },
          datapoints: {},
          datapointsSynced: {},
          isSessionEstablished: false,
          isLinked: false,
          pendingSync: false,
          createdAt: now,
          updatedAt: now,
        };
        if (input.settings?.isSyncOn !== undefined) user.settings = { ...user.settings, isSyncOn: input.settings.isSyncOn };
        // Consent given while a sync is owed over an established session: start it now.
        const owed = user.pendingSync && user.isSessionEstablished && user.settings.isSyncOn;
        if (owed) user.pendingSync = false;
        await save(user);
        if (owed) await deps.agent.requestSync(ref, 'datapoints-updated');
        return { user, created: !existing };
      }),

    async list(tenantId, { limit, offset = 0, after }) {
      const prefix = `${tenantId}/`;
      const total = await users.count({ prefix });
      const rows = after !== undefined
        ? await users.list({ prefix, gt: prefix + after, limit: limit + 1 })
        : (await users.list({ prefix, limit: offset + limit + 1 })).slice(offset);
      return { total, users: rows.slice(0, limit).map((r) => r.value), hasMore: rows.length > limit };
    },

    updateDatapoints: async (ref, patch, { autoSync }) => {
      await reconciled(ref);
      return locked(ref, async () => {
        const user = await requireUser(ref);
        user.datapoints = mergeDatapoints(user.datapoints, patch);
        // Spec "Observed behaviors": without autoSync=false a sync starts; it needs the session and
        // the user's consent, so until then it is owed (pendingSync) and starts on linkWallet.
        const canSync = user.isSessionEstablished && user.settings.isSyncOn;
        user.pendingSync = autoSync && !canSync ? true : user.pendingSync && !canSync;
        await save(user);
        if (autoSync && canSync) {
          const { operationId } = await deps.agent.requestSync(ref, 'datapoints-updated');
          return { user, syncOperationId: operationId };
        }
        return { user };
      });
    },

    startSync: async (ref) => {
      await reconciled(ref);
      return locked(ref, async () => {
        const user = await requireUser(ref);
        if (!user.isSessionEstablished) {
          throw problem('session_not_established', `user ${ref.userId} has no established session; send an invitation first`);
        }
        if (!user.settings.isSyncOn) {
          throw problem('sync_disabled', `user ${ref.userId} has settings.isSyncOn false`);
        }
        if (user.pendingSync) {
          user.pendingSync = false;
          await save(user);
        }
        return deps.agent.requestSync(ref, 'manual');
      });
    },

    endSession: async (ref, shortDid, write = (ops) => deps.store.batch(ops)) => {
      await locked(ref, async () => {
        const u = await users.get(userKey(ref));
        const ends = u !== undefined && u.isSessionEstablished && u.shortUserDID !== undefined && shortForm(u.shortUserDID) === shortForm(shortDid);
        if (ends) {
          u.isSessionEstablished = false;
          u.updatedAt = isoNow(deps.clock);
        }
        await write(ends ? [{ type: 'put', collection: USERS, key: userKey(u), value: u }] : []);
      });
    },

    linkWallet: async (ref, { longDid, shortDid, thid, invitationId }, write = (ops) => deps.store.batch(ops)) => {
      await moved();
      const { user, owed, event } = await locked(ref, async () => {
        const u = await requireUser(ref);
        const short = shortForm(shortDid ?? longDid);
        const ops: Parameters<ServiceBase['store']['batch']>[0] = [];
        if (u.shortUserDID && shortForm(u.shortUserDID) !== short) ops.push({ type: 'del', collection: USER_DIDS, key: didKey(ref.tenantId, u.shortUserDID) });
        u.userDID = longDid;
        u.shortUserDID = short;
        u.isSessionEstablished = true;
        u.updatedAt = isoNow(deps.clock);
        // pendingSync stays set until the owed sync is recorded (below): a crash in between leaves it
        // owed, and the agent's start requests it (resumeOwed).
        const owedSync = u.pendingSync && u.settings.isSyncOn;
        ops.push({ type: 'put', collection: USERS, key: userKey(u), value: u });
        ops.push({ type: 'put', collection: USER_DIDS, key: didKey(ref.tenantId, short), value: ref.userId });
        // vendor-facts "Webhooks": params {thid, userId}; pthid (an extension) = the invitation id,
        // the thid of DATA_PIPE_INITIATED, so the two events can be matched. Outbox: the event is
        // stored in the same batch as the link (event-outbox.ts).
        const params = { ...(thid !== undefined ? { thid } : {}), userId: ref.userId, ...(invitationId !== undefined ? { pthid: invitationId } : {}) };
        const event = await prepareEvents(deps, [{ tenantId: ref.tenantId, type: 'SSI_AGENT', action: 'DATA_PIPE_STATUS_UPDATE', event: 'DATA_PIPE_ESTABLISHED', params }]);
        await write([...ops, ...event.ops]);
        return { user: u, owed: owedSync, event };
      });
      await event.commit();
      if (owed) {
        await deps.agent.requestSync(ref, 'datapoints-updated');
        return locked(ref, async () => {
          const u = await requireUser(ref);
          u.pendingSync = false;
          return save(u);
        });
      }
      return user;
    },

    async resumeOwed() {
      let n = 0;
      for (const { value: u } of await users.list()) {
        if (!u.pendingSync || !u.isSessionEstablished || !u.settings.isSyncOn) continue;
        const ref = { tenantId: u.tenantId, userId: u.userId };
        await deps.agent.requestSync(ref, 'datapoints-updated');
        await locked(ref, async () => {
          const fresh = await requireUser(ref);
          fresh.pendingSync = false;
          await save(fresh);
        });
        n++;
      }
      return n;
    },

    recordLogin: (ref) =>
      locked(ref, async () => {
        const u = await requireUser(ref);
        u.userLogins += 1;
        u.userLastLoginAt = isoNow(deps.clock);
        return save(u);
      }),

    markSynced: (ref, datapoints) =>
      locked(ref, async () => {
        const u = await requireUser(ref);
        u.datapointsSynced = { ...datapoints };
        u.isLinked = true;
        return save(u);
      }),

    async findByDid(tenantId, did) {
      await moved();
      const userId = await dids.get(didKey(tenantId, did));
      return userId === undefined ? undefined : users.get(userKey({ tenantId, userId }));
    },
  };
  return store;
}

// Module-level entry points for the DIDComm side (they only need deps).

/** Whether `did` is a user's wallet DID in any tenant (the service keeps messages for it, and it collects them itself). */
export async function isUsersWallet(deps: { config: { listTenants(): Promise<Array<{ id: string }>> }; users: Pick<UserStore, 'findByDid'> }, did: string): Promise<boolean> {
  for (const tenant of await deps.config.listTenants()) if (await deps.users.findByDid(tenant.id, did)) return true;
  return false;
}

/** Links the wallet that answered the user's invitation: sets userDID/shortUserDID and isSessionEstablished. */
export function linkWallet(deps: { users: UserStore }, ref: UserRef, dids: LinkedDids): Promise<UserRecord> {
  return deps.users.linkWallet(ref, dids);
}

/** Counts a successful DID authentication of the user (userLogins, userLastLoginAt). */
export function recordLogin(deps: { users: UserStore }, ref: UserRef): Promise<UserRecord> {
  return deps.users.recordLogin(ref);
}

/** A sync completed (credential acknowledged): datapointsSynced = what was issued, isLinked = true. */
export function markSynced(deps: { users: UserStore }, ref: UserRef, datapoints: FlatDatapoints): Promise<UserRecord> {
  return deps.users.markSynced(ref, datapoints);
}
