// Who the mediator mediates for, durably: the parties it granted mediation to (Coordinate
// Mediation §Mediate Grant) and the recipient DIDs each registered (§Keylist Update / §Recipient
// Update), "in order for the mediator to start accepting Forward Message for those DIDs". A DID
// belongs to one party: registering a DID another party holds is a client_error, so nobody can
// have another's messages routed to themselves (the spec's "Future Considerations" name the risk).
// Each change is one batch (the DID and the party's index of its DIDs together).
import { ionShortForm } from '../did/ion-form.js';
import { didOf } from '../didcomm/message.js';
import type { Clock } from '../clock.js';
import { toIdsyncError } from '../errors.js';
import type { MediationVersion, Paginate, RecipientUpdate, RecipientUpdated } from '../protocols/coordinate-mediation.js';
import type { BatchOp, Store } from '../store/store.js';

export const KEYLIST_COLLECTIONS = {
  /** Party DID (short form) → its grant. */
  grants: 'med-grants',
  /** Recipient DID or key id, as registered (short form) → the party it belongs to. */
  recipients: 'med-recipients',
  /** `<party> <recipient>`: a party's recipient DIDs in one key range (DIDs hold no spaces). */
  owned: 'med-owned',
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
}

export interface Keylist {
  grant(party: string, version: MediationVersion): Promise<Grant>;
  granted(party: string): Promise<Grant | undefined>;
  /** Applies updates in order; one result per update (§Keylist Update Response). */
  update(party: string, updates: RecipientUpdate[]): Promise<RecipientUpdated[]>;
  /** The party's recipient DIDs, in key order; one page with `paginate`. */
  list(party: string, paginate?: Paginate): Promise<{ dids: string[]; total: number }>;
  /** The registration a forward's `next` names: the DID or key id itself, else (a key id) its DID. */
  lookup(next: string): Promise<Registration | undefined>;
  /** Every recipient DID the party registered. */
  recipientsOf(party: string): Promise<string[]>;
  /**
   * How many recipient DIDs the party would hold after `updates`, each add of a DID not yet its
   * own counted as applied (one another party holds would be refused, so this may count one too many).
   */
  countAfter(party: string, updates: RecipientUpdate[]): Promise<number>;
  /** The grants made, the first `limit` in key order, and how many there are (the console's overview). */
  grants(limit: number): Promise<{ grants: Grant[]; total: number }>;
}

const key = (did: string) => ionShortForm(did);
const ownedKey = (party: string, recipient: string) => `${key(party)} ${key(recipient)}`;
const isRecipientDid = (v: unknown): v is string => typeof v === 'string' && v.length <= 8192 && /^did:[a-z0-9]+:\S+$/.test(v);

export function keylist(deps: { store: Store; clock: Clock }): Keylist {
  const grants = deps.store.collection<Grant>(KEYLIST_COLLECTIONS.grants);
  const recipients = deps.store.collection<Registration>(KEYLIST_COLLECTIONS.recipients);
  const owned = deps.store.collection<{ recipientDid: string }>(KEYLIST_COLLECTIONS.owned);
  const now = () => new Date(deps.clock.now()).toISOString();

  const recipientsOf = async (party: string): Promise<string[]> => (await owned.list({ prefix: `${key(party)} ` })).map((e) => e.value.recipientDid);

  async function one(party: string, u: RecipientUpdate): Promise<RecipientUpdated> {
    if (!isRecipientDid(u.recipientDid) || (u.action !== 'add' && u.action !== 'remove')) return { ...u, result: 'client_error' };
    try {
      const held = await recipients.get(key(u.recipientDid));
      const mine = held !== undefined && key(held.owner) === key(party);
      if (u.action === 'add') {
        if (mine) return { ...u, result: 'no_change' };
        if (held) return { ...u, result: 'client_error' };
        const reg: Registration = { recipientDid: u.recipientDid, owner: party, addedAt: now() };
        const ops: BatchOp[] = [
          { type: 'put', collection: KEYLIST_COLLECTIONS.recipients, key: key(u.recipientDid), value: reg },
          { type: 'put', collection: KEYLIST_COLLECTIONS.owned, key: ownedKey(party, u.recipientDid), value: { recipientDid: u.recipientDid } },
        ];
        await deps.store.batch(ops);
        return { ...u, result: 'success' };
      }
      if (!mine) return { ...u, result: 'no_change' };
      await deps.store.batch([
        { type: 'del', collection: KEYLIST_COLLECTIONS.recipients, key: key(u.recipientDid) },
        { type: 'del', collection: KEYLIST_COLLECTIONS.owned, key: ownedKey(party, u.recipientDid) },
      ]);
      return { ...u, result: 'success' };
    } catch (err) {
      // §Keylist Update Response: server_error says the mediator, not the request, failed.
      if (toIdsyncError(err).code.startsWith('store_')) return { ...u, result: 'server_error' };
      throw err;
    }
  }

  return {
    async grant(party, version) {
      const grant: Grant = { did: party, version, grantedAt: (await grants.get(key(party)))?.grantedAt ?? now() };
      await grants.put(key(party), grant);
      return grant;
    },
    granted: (party) => grants.get(key(party)),
    async update(party, updates) {
      const out: RecipientUpdated[] = [];
      for (const u of updates) out.push(await one(party, u));
      return out;
    },
    async list(party, paginate) {
      const all = await recipientsOf(party);
      const dids = paginate ? all.slice(paginate.offset, paginate.offset + paginate.limit) : all;
      return { dids, total: all.length };
    },
    async lookup(next) {
      if (!isRecipientDid(next)) return undefined;
      return (await recipients.get(key(next))) ?? (next.includes('#') ? recipients.get(key(didOf(next))) : undefined);
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
  };
}
