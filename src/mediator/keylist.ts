// Who the mediator mediates for, durably: the parties it granted mediation to (Coordinate
// Mediation §Mediate Grant) and the recipient DIDs each registered (§Keylist Update / §Recipient
// Update), "in order for the mediator to start accepting Forward Message for those DIDs". A DID
// belongs to one party: registering a DID another party holds is a client_error, so nobody can
// have another's messages routed to themselves (the spec's "Future Considerations" name the risk:
// "a malicious party registers a key for another party at the same mediator, and before the other
// party"). That holds across a DID and its key ids (a forward's `next` may name either, Routing
// 2.0 §Forward), and a party DID that was granted mediation is its own party's alone: it proved
// control of that DID, so its grant ends any registration of it (or of its keys) another party
// made first. Each change is one batch (the DID and the party's index of its DIDs together).
//
// A DID its owner removes while messages for it still wait is not let go at once: forwards for it
// are refused from then on (it is no longer registered), but what was acknowledged before stays
// the owner's to collect, and no other party can register the DID, and so collect or confirm
// those messages, until they are gone. The spec says nothing of queued messages at removal;
// idsync keeps what it acknowledged.
import { shortForm } from '../did/short-form.js';
import { didOf, sameDid } from '../didcomm/message.js';
import type { Clock } from '../clock.js';
import { toIdsyncError } from '../errors.js';
import type { MediationVersion, Paginate, RecipientUpdate, RecipientUpdated } from '../protocols/coordinate-mediation.js';
import { keyedLock } from '../keyed-lock.js';
import type { BatchOp, Store } from '../store/store.js';
import { afterReady } from '../store/short-form-moves.js';
import { shortFormKeylist } from './short-form-keys.js';

export const KEYLIST_COLLECTIONS = {
  /** Party DID (short form) → its grant. */
  grants: 'med-grants',
  /** Recipient DID or key id, as registered (short form) → the party it belongs to. */
  recipients: 'med-recipients',
  /** `<party> <recipient>`: a party's recipient DIDs in one key range (DIDs hold no spaces). */
  owned: 'med-owned',
  /** `<party> <recipient>`: DIDs the party removed while messages for them still waited. */
  retired: 'med-retired',
} as const;

export interface Grant {
  did: string;
  version: MediationVersion;
  grantedAt: string;
}

export interface Registration {
  recipientDid: string;
  owner: string;
  addedAt: string;
  /** Removed by its owner while messages for it still waited: no forwards, but the owner collects what waits. */
  removedAt?: string;
}

export interface Keylist {
  grant(party: string, version: MediationVersion): Promise<Grant>;
  granted(party: string): Promise<Grant | undefined>;
  /** Applies updates in order; one result per update (§Keylist Update Response). */
  update(party: string, updates: RecipientUpdate[]): Promise<RecipientUpdated[]>;
  /** The party's recipient DIDs, in key order; one page with `paginate`. */
  list(party: string, paginate?: Paginate): Promise<{ dids: string[]; total: number }>;
  /** The registration a forward's `next` names: the DID or key id itself, else (a key id) its DID. Removed ones do not count. */
  lookup(next: string): Promise<Registration | undefined>;
  /** Whose messages for `did` are: its registration, or its owner's claim on what still waits after removing it. */
  holding(did: string): Promise<Registration | undefined>;
  /** DIDs the party removed while messages for them waited; those whose messages are gone are let go on the way. */
  retiredOf(party: string): Promise<string[]>;
  /**
   * Runs `fn` while no update changes `did`'s registration (the DID of a key id): a forward looks
   * its recipient up and queues for it under this, so a removal counting what waits cannot miss it.
   */
  withRecipient<T>(did: string, fn: () => Promise<T>): Promise<T>;
  /** Every recipient DID the party registered. */
  recipientsOf(party: string): Promise<string[]>;
  /**
   * How many recipient DIDs the party would hold after `updates`, each add of a DID not yet its
   * own counted as applied (one another party holds would be refused, so this may count one too many).
   */
  countAfter(party: string, updates: RecipientUpdate[]): Promise<number>;
  /**
   * Whether `did` is a party of its own here: granted mediation, or one that collects its own
   * messages without a grant (`reserved`: the twin's users' wallets). Nobody else registers it
   * or collects what waits for it.
   */
  ownParty(did: string): Promise<boolean>;
  /** The grants made, the first `limit` in key order, and how many there are (the console's overview). */
  grants(limit: number): Promise<{ grants: Grant[]; total: number }>;
}

// DID Peer §Method 4: a did:peer:4's long and short forms are one DID, as a did:ion's are; a store
// keyed otherwise before is moved once (short-form-keys.ts).
const key = (did: string) => shortForm(did);
const ownedKey = (party: string, recipient: string) => `${key(party)} ${key(recipient)}`;
const isRecipientDid = (v: unknown): v is string => typeof v === 'string' && v.length <= 8192 && /^did:[a-z0-9]+:\S+$/.test(v);

/**
 * `waiting`: how many messages are kept for a DID, due or held back (the mediator's queue); a
 * removed DID stays its owner's while any do. Without it, a removal lets the DID go at once.
 */
export function keylist(deps: { store: Store; clock: Clock; waiting?: (did: string) => Promise<number>; reserved?: (did: string) => Promise<boolean> }): Keylist {
  const grants = deps.store.collection<Grant>(KEYLIST_COLLECTIONS.grants);
  const recipients = deps.store.collection<Registration>(KEYLIST_COLLECTIONS.recipients);
  const owned = deps.store.collection<{ recipientDid: string }>(KEYLIST_COLLECTIONS.owned);
  const retired = deps.store.collection<{ recipientDid: string }>(KEYLIST_COLLECTIONS.retired);
  const now = () => new Date(deps.clock.now()).toISOString();
  const waiting = async (did: string) => (deps.waiting ? deps.waiting(did) : 0);
  const ownParty = async (did: string) => (await grants.get(key(did))) !== undefined || (deps.reserved ? await deps.reserved(did) : false);
  const lock = keyedLock();
  const withRecipient = <T>(did: string, fn: () => Promise<T>): Promise<T> => lock(key(didOf(did)), fn);
  /** The record of `did` (or of a key id's DID), removed or not. */
  const record = async (did: string): Promise<Registration | undefined> => {
    if (!isRecipientDid(did)) return undefined;
    return (await recipients.get(key(did))) ?? (did.includes('#') ? recipients.get(key(didOf(did))) : undefined);
  };
  /** Ends the claim a removed DID's owner kept (its messages are gone): the DID is free again. */
  const release = (reg: Registration): BatchOp[] => [
    { type: 'del', collection: KEYLIST_COLLECTIONS.recipients, key: key(reg.recipientDid) },
    { type: 'del', collection: KEYLIST_COLLECTIONS.retired, key: ownedKey(reg.owner, reg.recipientDid) },
  ];
  /** Makes `claim` (removedAt set) its owner's hold on what waits for its DID: no forwards, collected by retiredOf. */
  const retire = (claim: Registration): BatchOp[] => [
    { type: 'put', collection: KEYLIST_COLLECTIONS.recipients, key: key(claim.recipientDid), value: claim },
    { type: 'put', collection: KEYLIST_COLLECTIONS.retired, key: ownedKey(claim.owner, claim.recipientDid), value: { recipientDid: claim.recipientDid } },
  ];
  /** Ends a registration whatever its state (a granted party takes its own DID back): its owner's index too. */
  const revoke = (reg: Registration): BatchOp[] => [...release(reg), { type: 'del', collection: KEYLIST_COLLECTIONS.owned, key: ownedKey(reg.owner, reg.recipientDid) }];
  /**
   * The other records of `recipient`'s DID: the DID itself (for a key id) and every DID URL of it
   * (key ids, and paths or queries, which DID syntax starts with '/' and '?'), keyed `<DID><sep>…`.
   */
  const kin = async (recipient: string): Promise<Registration[]> => {
    const did = didOf(recipient);
    const found: Registration[] = [];
    if (did !== recipient) {
      const reg = await recipients.get(key(did));
      if (reg) found.push(reg);
    }
    for (const sep of ['#', '/', '?']) {
      for (const e of await recipients.list({ prefix: key(did) + sep })) if (e.key !== key(recipient)) found.push(e.value);
    }
    return found;
  };

  const recipientsOf = async (party: string): Promise<string[]> => (await owned.list({ prefix: `${key(party)} ` })).map((e) => e.value.recipientDid);

  async function one(party: string, u: RecipientUpdate): Promise<RecipientUpdated> {
    if (!isRecipientDid(u.recipientDid) || (u.action !== 'add' && u.action !== 'remove')) return { ...u, result: 'client_error' };
    try {
      const held = await recipients.get(key(u.recipientDid));
      const mine = held !== undefined && key(held.owner) === key(party);
      if (u.action === 'add') {
        if (mine && held.removedAt === undefined) return { ...u, result: 'no_change' };
        // Another party's own DID (or a key of it): granted, or reserved: only that party registers it.
        const did = didOf(u.recipientDid);
        if (!sameDid(did, party) && (await ownParty(did))) return { ...u, result: 'client_error' };
        const ops: BatchOp[] = [];
        // The DID, or a key id of the same DID, held by another party: the DID is theirs.
        for (const other of held && !mine ? [held, ...(await kin(u.recipientDid))] : await kin(u.recipientDid)) {
          if (key(other.owner) === key(party)) continue;
          // Another party's, or one it removed while messages for it wait: those stay its own.
          if (other.removedAt === undefined || (await waiting(other.recipientDid)) > 0) return { ...u, result: 'client_error' };
          ops.push(...release(other));
        }
        // Its owner registers a removed DID again: the claim becomes a registration.
        if (mine) ops.push({ type: 'del', collection: KEYLIST_COLLECTIONS.retired, key: ownedKey(party, u.recipientDid) });
        const reg: Registration = { recipientDid: u.recipientDid, owner: party, addedAt: now() };
        ops.push(
          { type: 'put', collection: KEYLIST_COLLECTIONS.recipients, key: key(u.recipientDid), value: reg },
          { type: 'put', collection: KEYLIST_COLLECTIONS.owned, key: ownedKey(party, u.recipientDid), value: { recipientDid: u.recipientDid } },
        );
        await deps.store.batch(ops);
        return { ...u, result: 'success' };
      }
      if (!mine || held.removedAt !== undefined) return { ...u, result: 'no_change' };
      const unlisted: BatchOp = { type: 'del', collection: KEYLIST_COLLECTIONS.owned, key: ownedKey(party, u.recipientDid) };
      if ((await waiting(held.recipientDid)) > 0) {
        await deps.store.batch([unlisted, ...retire({ ...held, removedAt: now() })]);
      } else {
        await deps.store.batch([unlisted, { type: 'del', collection: KEYLIST_COLLECTIONS.recipients, key: key(u.recipientDid) }]);
      }
      return { ...u, result: 'success' };
    } catch (err) {
      // §Keylist Update Response: server_error says the mediator, not the request, failed.
      if (toIdsyncError(err).code.startsWith('store_')) return { ...u, result: 'server_error' };
      throw err;
    }
  }

  return afterReady(() => shortFormKeylist(deps.store, KEYLIST_COLLECTIONS), {
    async grant(party, version) {
      // Under the DID's lock, so no add of it slips in between: from the grant on, update() refuses it to others.
      return withRecipient(party, async () => {
        const grant: Grant = { did: party, version, grantedAt: (await grants.get(key(party)))?.grantedAt ?? now() };
        // Registrations of the party's DID or its keys another party made first are let go: the
        // party's messages are its own to collect (its pickups read its DID's queue). Messages
        // already waiting for one of its key ids become its claim, as if it had registered the key
        // and removed it (retiredOf): it collects them, and no forward is routed by the claim.
        const exact = await recipients.get(key(party));
        const taken = [...(exact ? [exact] : []), ...(await kin(party))].filter((r) => !sameDid(r.owner, party));
        const ops: BatchOp[] = [{ type: 'put', collection: KEYLIST_COLLECTIONS.grants, key: key(party), value: grant }];
        for (const reg of taken) {
          // The party's DID itself: its queue is the party's already (pickup.ts scopeOf).
          const itself = didOf(reg.recipientDid) === reg.recipientDid && sameDid(reg.recipientDid, party);
          if (itself || (await waiting(reg.recipientDid)) === 0) {
            ops.push(...revoke(reg));
            continue;
          }
          ops.push(
            { type: 'del', collection: KEYLIST_COLLECTIONS.owned, key: ownedKey(reg.owner, reg.recipientDid) },
            { type: 'del', collection: KEYLIST_COLLECTIONS.retired, key: ownedKey(reg.owner, reg.recipientDid) },
            ...retire({ recipientDid: reg.recipientDid, owner: party, addedAt: reg.addedAt, removedAt: now() }),
          );
        }
        await deps.store.batch(ops);
        return grant;
      });
    },
    granted: (party) => grants.get(key(party)),
    ownParty,
    async update(party, updates) {
      const out: RecipientUpdated[] = [];
      for (const u of updates) out.push(isRecipientDid(u.recipientDid) ? await withRecipient(u.recipientDid, () => one(party, u)) : await one(party, u));
      return out;
    },
    async list(party, paginate) {
      const all = await recipientsOf(party);
      const dids = paginate ? all.slice(paginate.offset, paginate.offset + paginate.limit) : all;
      return { dids, total: all.length };
    },
    async lookup(next) {
      if (!isRecipientDid(next)) return undefined;
      // A registration of a granted party's own DID (or of its keys) by another party, kept from
      // a store written before such adds were refused, never routes: the grant makes it that party's.
      const routes = async (reg: Registration | undefined) => {
        if (!reg || reg.removedAt !== undefined) return undefined;
        const did = didOf(reg.recipientDid);
        return sameDid(did, reg.owner) || (await grants.get(key(did))) === undefined ? reg : undefined;
      };
      const own = await recipients.get(key(next));
      if (own && own.removedAt === undefined) return routes(own);
      // A key id its owner removed (its waiting messages still theirs) no longer routes, but the
      // key's DID may still be registered, and a DID's registration takes forwards for its keys.
      if (!next.includes('#')) return undefined;
      return routes(await recipients.get(key(didOf(next))));
    },
    holding: record,
    withRecipient,
    async retiredOf(party) {
      const out: string[] = [];
      for (const { value } of await retired.list({ prefix: `${key(party)} ` })) {
        // Under the DID's lock: an update of it meanwhile (its owner adding it again) is not undone.
        const kept = await withRecipient(value.recipientDid, async () => {
          if ((await waiting(value.recipientDid)) > 0) return true;
          const reg = await recipients.get(key(value.recipientDid));
          const claim = reg && reg.removedAt !== undefined && key(reg.owner) === key(party);
          await deps.store.batch(claim ? release(reg) : [{ type: 'del', collection: KEYLIST_COLLECTIONS.retired, key: ownedKey(party, value.recipientDid) }]);
          return false;
        });
        if (kept) out.push(value.recipientDid);
      }
      return out;
    },
    recipientsOf,
    async countAfter(party, updates) {
      const held = new Set((await recipientsOf(party)).map(key));
      for (const u of updates) {
        if (!isRecipientDid(u.recipientDid)) continue;
        if (u.action === 'add') held.add(key(u.recipientDid));
        else if (u.action === 'remove') held.delete(key(u.recipientDid));
      }
      return held.size;
    },
    async grants(limit) {
      const [page, total] = await Promise.all([grants.list({ limit }), grants.count()]);
      return { grants: page.map((e) => e.value), total };
    },
  } satisfies Keylist);
}
