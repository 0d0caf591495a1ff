// DIDs the store knows: the long form of each short did:ion seen (so a short DID resolves
// offline once its long form was learnt), and our own DIDs with their metadata.
// Private keys of our DIDs live in the secrets collection, never here.
import type { DidRegistry } from '../did/types.js';
import { ionShortForm, isIonLongForm } from '../did/ion-form.js';
import { IdsyncError } from '../errors.js';
import type { BatchOp, Store } from './store.js';

export const DIDS_COLLECTION = 'dids';
export const OWN_DIDS_COLLECTION = 'own-dids';

/** One of our own DIDs. */
export interface OwnDid {
  /** The DID as created (ion: the long form). */
  did: string;
  /** ion: `did:ion:<suffix>`. */
  shortDid?: string;
  /** ISO 8601. */
  createdAt: string;
  label?: string;
  /** What it is for, e.g. 'wallet', 'issuer'. */
  purpose?: string;
  endpoint?: string;
  meta?: Record<string, unknown>;
}

export interface StoredDidRegistry extends DidRegistry {
  /** The long form for `did` (short or long form); undefined when unknown. */
  get(did: string): Promise<string | undefined>;
  /** Remembers `longForm` for `did`. For ion both must share the suffix. */
  put(did: string, longForm: string): Promise<void>;
  /** The store write of put(did, longForm) (same checks), to go into a caller's batch. */
  putOp(did: string, longForm: string): BatchOp;
  has(did: string): Promise<boolean>;
  remove(did: string): Promise<void>;
  /** Records one of our own DIDs (and its long form) in one write. */
  putOwn(own: OwnDid): Promise<void>;
  getOwn(did: string): Promise<OwnDid | undefined>;
  listOwn(): Promise<OwnDid[]>;
}

const DID = /^did:[a-z0-9]+:\S+$/;

function checkDid(did: string, what: string): void {
  if (typeof did !== 'string' || !DID.test(did) || did.includes('#')) {
    throw new IdsyncError('invalid_did', `${what} is not a DID: ${String(did).slice(0, 80)}`);
  }
}

function checkPair(did: string, longForm: string): void {
  checkDid(did, 'did');
  checkDid(longForm, 'long form');
  // A short DID mapped to another DID's long form would hand its messages to the wrong keys.
  // (Whether the long form's suffix really hashes its content is the resolver's check.)
  if (ionShortForm(did) !== ionShortForm(longForm)) {
    throw new IdsyncError('invalid_did', `the long form does not belong to ${ionShortForm(did)}`);
  }
  if (did.startsWith('did:ion:') && !isIonLongForm(longForm)) {
    throw new IdsyncError('invalid_did', `not an ion long form for ${ionShortForm(did)}`);
  }
}

export function didRegistry(store: Store): StoredDidRegistry {
  const dids = store.collection<string>(DIDS_COLLECTION);
  const own = store.collection<OwnDid>(OWN_DIDS_COLLECTION);

  return {
    async get(did) {
      return dids.get(ionShortForm(did));
    },

    async put(did, longForm) {
      checkPair(did, longForm);
      await dids.put(ionShortForm(did), longForm);
    },

    putOp(did, longForm) {
      checkPair(did, longForm);
      return { type: 'put', collection: DIDS_COLLECTION, key: ionShortForm(did), value: longForm };
    },

    async has(did) {
      return (await dids.get(ionShortForm(did))) !== undefined;
    },

    async remove(did) {
      await dids.del(ionShortForm(did));
    },

    async putOwn(rec) {
      checkDid(rec.did, 'did');
      if (typeof rec.createdAt !== 'string') throw new IdsyncError('invalid_did', 'createdAt must be an ISO date string');
      const key = ionShortForm(rec.did);
      const value: OwnDid = { ...rec, ...(key !== rec.did ? { shortDid: key } : {}) };
      const knowsLongForm = !rec.did.startsWith('did:ion:') || isIonLongForm(rec.did);
      await store.batch([
        { type: 'put', collection: OWN_DIDS_COLLECTION, key, value },
        ...(knowsLongForm ? [{ type: 'put' as const, collection: DIDS_COLLECTION, key, value: rec.did }] : []),
      ]);
    },

    async getOwn(did) {
      return own.get(ionShortForm(did));
    },

    async listOwn() {
      return (await own.list()).map((e) => e.value).sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
    },
  };
}
