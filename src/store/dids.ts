// DIDs the store knows: the long form of each short did:ion and did:peer:4 seen (so a short DID
// resolves offline once its long form was learnt: DID Peer §Method 4 "Short form"), and our own
// DIDs with their metadata, each keyed by its short form (did/short-form.ts). Private keys of our
// DIDs live in the secrets collection, never here.
import type { DidRegistry } from '../did/types.js';
import { isIonLongForm } from '../did/ion-form.js';
import { shortForm } from '../did/short-form.js';
import { IdsyncError } from '../errors.js';
import { afterReady, MOVED_METHOD, moveKeys, onceMarked, SHORT_FORM_KEY_MARKS } from './short-form-moves.js';
import type { BatchOp, Store } from './store.js';

export const DIDS_COLLECTION = 'dids';
export const OWN_DIDS_COLLECTION = 'own-dids';

/** One of our own DIDs. */
export interface OwnDid {
  /** The DID as created (ion: the long form). */
  did: string;
  /** ion: `did:ion:<suffix>`; did:peer:4: `did:peer:4<hash>`. */
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
  /** Remembers `longForm` for `did`. For ion and did:peer:4 both must have one short form. */
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
  if (shortForm(did) !== shortForm(longForm)) {
    throw new IdsyncError('invalid_did', `the long form does not belong to ${shortForm(did)}`);
  }
  if (did.startsWith('did:ion:') && !isIonLongForm(longForm)) {
    throw new IdsyncError('invalid_did', `not an ion long form for ${shortForm(did)}`);
  }
  if (did.startsWith(MOVED_METHOD) && !isLongForm(longForm)) {
    throw new IdsyncError('invalid_did', `not a did:peer:4 long form for ${shortForm(did)}`);
  }
}

/** A long form is a DID whose short form differs (did:ion, did:peer:4). */
const isLongForm = (did: string): boolean => shortForm(did) !== did;

/** An own DID's record with its short form named, when it has one. */
const withShortDid = (rec: OwnDid): OwnDid => {
  const key = shortForm(rec.did);
  return { ...rec, ...(key !== rec.did ? { shortDid: key } : {}) };
};

/**
 * Moves, once per store, what was kept under a did:peer:4 long form (only did:ion long forms were
 * shortened then) to its short form: the long form a short form names is kept (a record already
 * under the short form may name the short form itself), our own DID records as they were.
 */
function moveDidKeys(store: Store): Promise<number> {
  return onceMarked(store, SHORT_FORM_KEY_MARKS, DIDS_COLLECTION, async () => {
    const longForms = await moveKeys<string>(store, {
      collection: DIDS_COLLECTION,
      prefix: MOVED_METHOD,
      to: shortForm,
      merge: (moved, held) => (held !== undefined && isLongForm(held) ? held : moved),
    });
    const own = await moveKeys<OwnDid>(store, {
      collection: OWN_DIDS_COLLECTION,
      prefix: MOVED_METHOD,
      to: shortForm,
      merge: (moved, held) => held ?? withShortDid(moved),
    });
    return longForms + own;
  });
}

export function didRegistry(store: Store): StoredDidRegistry {
  const dids = store.collection<string>(DIDS_COLLECTION);
  const own = store.collection<OwnDid>(OWN_DIDS_COLLECTION);

  // Reads and writes wait for the move of older keys; putOp only adds a write to a caller's batch,
  // which the move keeps (a record already under the short form stays).
  const waiting = afterReady(() => moveDidKeys(store), {
    async get(did: string) {
      return dids.get(shortForm(did));
    },

    async put(did: string, longForm: string) {
      checkPair(did, longForm);
      await dids.put(shortForm(did), longForm);
    },

    async has(did: string) {
      return (await dids.get(shortForm(did))) !== undefined;
    },

    async remove(did: string) {
      await dids.del(shortForm(did));
    },

    async putOwn(rec: OwnDid) {
      checkDid(rec.did, 'did');
      if (typeof rec.createdAt !== 'string') throw new IdsyncError('invalid_did', 'createdAt must be an ISO date string');
      const value = withShortDid(rec);
      const key = value.shortDid ?? rec.did;
      // A short form of a did:ion or did:peer:4 is not a long form to resolve it by.
      const knowsLongForm = !(rec.did.startsWith('did:ion:') || rec.did.startsWith(MOVED_METHOD)) || isLongForm(rec.did);
      await store.batch([
        { type: 'put', collection: OWN_DIDS_COLLECTION, key, value },
        ...(knowsLongForm ? [{ type: 'put' as const, collection: DIDS_COLLECTION, key, value: rec.did }] : []),
      ]);
    },

    async getOwn(did: string) {
      return own.get(shortForm(did));
    },

    async listOwn() {
      return (await own.list()).map((e) => e.value).sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
    },
  });

  return {
    ...waiting,
    putOp(did, longForm) {
      checkPair(did, longForm);
      return { type: 'put', collection: DIDS_COLLECTION, key: shortForm(did), value: longForm };
    },
  };
}
