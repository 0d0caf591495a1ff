// The wallet's credentials: every credential that passed verification, with its current status
// ('valid' until a replacement, a revocation or a suspension says otherwise), and, apart from
// them, credentials that were refused (verified false) kept for inspection only.
import { isoNow } from '../clock.js';
import type { Clock } from '../clock.js';
import type { CredentialFormat, VerificationCheck } from '../credentials/types.js';
import { sameDid } from '../didcomm/message.js';
import { IdsyncError } from '../errors.js';
import { keyedLock } from '../keyed-lock.js';
import { setBounded } from '../bounded.js';
import type { BatchOp, Store } from '../store/store.js';

export const CREDENTIALS_COLLECTION = 'wallet-credentials';
/** Refused credentials: never listed with the accepted ones, never 'valid'. */
export const REJECTED_CREDENTIALS_COLLECTION = 'wallet-rejected-credentials';

export type CredentialStatus = 'valid' | 'replaced' | 'revoked' | 'suspended';

export interface StoredCredential {
  /** The credential's `id` (a urn:uuid for ours). */
  id: string;
  type: string[];
  issuer: string;
  subject?: string;
  /** credentialSubject without `id`, nested (residentialAddress {…}). */
  claims: Record<string, unknown>;
  format: CredentialFormat;
  /** Always true here; a refused credential is a RejectedCredential. */
  verified: true;
  status: CredentialStatus;
  /** ISO 8601. */
  receivedAt: string;
  /** The issue-credential thread it arrived on. */
  thid: string;
  /** The credential as it came: a JSON object (ldp) or a VC-JWT string. */
  raw: unknown;
  checks: VerificationCheck[];
  /** The id of the credential this one replaced (offer/issue `replacement_id`, or the VC's `replaces`). */
  replaces?: string;
  /** Set when status is 'replaced'. */
  replacedBy?: string;
  statusChangedAt?: string;
}

/** A credential that failed verification: kept for inspection, clearly not usable. */
export interface RejectedCredential {
  /** `<thid>` of the issue message that carried it. */
  key: string;
  id?: string;
  issuer?: string;
  verified: false;
  status: 'rejected';
  /** The first failed check, e.g. 'proof', 'subject', 'claims'. */
  failedCheck: string;
  failedCode?: string;
  checks: VerificationCheck[];
  receivedAt: string;
  thid: string;
  raw: unknown;
}

export interface CredentialQuery {
  status?: CredentialStatus;
  thid?: string;
}

export interface CredentialStore {
  /** Stores an accepted credential; throws 'conflict' when its id is held from another issuer. */
  put(credential: StoredCredential): Promise<void>;
  /** The store write of put(credential) (same checks), to go into a caller's batch; under hold([credential.id]), as setStatusOp. */
  putOp(credential: StoredCredential): Promise<BatchOp>;
  /**
   * The store write of setStatus(…), to go into a caller's batch. Made from a read of the
   * record: call it under hold([id]) and keep the hold until the batch is stored, or a status
   * change stored in between is written over.
   */
  setStatusOp(id: string, status: CredentialStatus, extra?: { replacedBy?: string }): Promise<BatchOp>;
  /**
   * Holds the records `ids` for a caller's batch: setStatus of any of them waits for the release
   * (and then compares with the record as the batch left it). Each id is taken once, all in one
   * order, so two holders of overlapping ids never wait on each other. The release must be
   * called once the batch is stored or given up; calling it again does nothing.
   */
  hold(ids: string[]): Promise<() => void>;
  get(id: string): Promise<StoredCredential | undefined>;
  /** Accepted credentials, oldest first. */
  list(query?: CredentialQuery): Promise<StoredCredential[]>;
  /**
   * Changes the status of an accepted credential (e.g. 'replaced' with replacedBy). With `from`,
   * only when its status is still that one when written: a status read from an issuer's list
   * does not overwrite a change made meanwhile, 'replaced' above all. Resolves with the
   * credential as stored.
   */
  setStatus(id: string, status: CredentialStatus, extra?: { replacedBy?: string }, from?: CredentialStatus): Promise<StoredCredential>;
  putRejected(rejected: RejectedCredential): Promise<void>;
  putRejectedOp(rejected: RejectedCredential): BatchOp;
  listRejected(): Promise<RejectedCredential[]>;
}

const byReceived = <T extends { receivedAt: string }>(a: T, b: T) => (a.receivedAt < b.receivedAt ? -1 : a.receivedAt > b.receivedAt ? 1 : 0);

export function credentialStore(store: Store, clock: Clock): CredentialStore {
  const col = store.collection<StoredCredential>(CREDENTIALS_COLLECTION);
  const rejected = store.collection<RejectedCredential>(REJECTED_CREDENTIALS_COLLECTION);
  const writes = recordWrites();

  async function putOp(credential: StoredCredential): Promise<BatchOp> {
    if (credential.verified !== true) throw new IdsyncError('invalid_argument', 'only verified credentials are stored as accepted');
    // Ids are the issuers' choice: a record is never overwritten by a credential of another
    // issuer (ion long and short forms are the same issuer).
    const held = await col.get(credential.id);
    if (held && !sameDid(held.issuer, credential.issuer)) {
      throw new IdsyncError('conflict', `credential ${credential.id} is already held from another issuer`, { details: { id: credential.id } });
    }
    return { type: 'put', collection: CREDENTIALS_COLLECTION, key: credential.id, value: credential };
  }

  async function stored(id: string): Promise<StoredCredential> {
    const old = await col.get(id);
    if (!old) throw new IdsyncError('not_found', `no credential ${id}`);
    return old;
  }
  const withStatus = (old: StoredCredential, status: StoredCredential['status'], extra: { replacedBy?: string }): StoredCredential => ({
    ...old,
    status,
    statusChangedAt: isoNow(clock),
    ...(extra.replacedBy ? { replacedBy: extra.replacedBy } : {}),
  });

  return {
    async put(credential) {
      await store.batch([await putOp(credential)]);
    },
    putOp,
    async setStatusOp(id, status, extra = {}) {
      return { type: 'put', collection: CREDENTIALS_COLLECTION, key: id, value: withStatus(await stored(id), status, extra) };
    },
    get: (id) => col.get(id),
    async list(query = {}) {
      return (await col.list())
        .map((e) => e.value)
        .filter((c) => (query.status === undefined || c.status === query.status) && (query.thid === undefined || c.thid === query.thid))
        .sort(byReceived);
    },
    hold: (ids) => writes.hold(ids),
    async setStatus(id, status, extra = {}, from) {
      // Read outside the lock, so a replacement's step never waits behind it; compared and
      // written under the lock, with the record read again when a write was stored since.
      const seen = writes.version(id);
      const read = await stored(id);
      return writes.exclusive(id, async () => {
        const old = writes.version(id) === seen ? read : await stored(id);
        if (from !== undefined && old.status !== from) return old;
        const next = withStatus(old, status, extra);
        await col.put(id, next);
        return next;
      });
    },
    async putRejected(rec) {
      await rejected.put(rec.key, rec);
    },
    putRejectedOp: (rec) => ({ type: 'put', collection: REJECTED_CREDENTIALS_COLLECTION, key: rec.key, value: rec }),
    async listRejected() {
      return (await rejected.list()).map((e) => e.value).sort(byReceived);
    },
  };
}

/** Ids whose last write's version is kept (see recordWrites). */
const MAX_VERSIONS = 4096;

/**
 * The writes to one record, in this process (one wallet per store): made one at a time under a
 * per-id lock, and versioned when each ends, so that a read made before the version moved is
 * known to be stale. A status from an issuer's list read just before a replacement's batch would
 * otherwise be written over its 'replaced' and replacedBy. Versions come from one sequence, so
 * none repeats; only the last MAX_VERSIONS ids keep theirs (a long-running wallet writes many),
 * and an id without one gets a version never given before: a read of it is always read again.
 */
function recordWrites() {
  const lock = keyedLock();
  let sequence = 0;
  const versions = new Map<string, number>();
  const ended = (id: string) => setBounded(versions, id, ++sequence, MAX_VERSIONS);
  const exclusive = <T>(id: string, fn: () => Promise<T>): Promise<T> =>
    lock(id, async () => {
      try {
        return await fn();
      } finally {
        ended(id);
      }
    });
  /** Resolves once `id` is locked, with the release of the lock. */
  const take = (id: string): Promise<() => void> =>
    new Promise((taken) => {
      void exclusive(id, () => new Promise<void>((release) => taken(release)));
    });
  return {
    version: (id: string) => versions.get(id) ?? -++sequence,
    exclusive,
    async hold(ids: string[]): Promise<() => void> {
      const releases: Array<() => void> = [];
      for (const id of [...new Set(ids)].sort()) releases.push(await take(id));
      let released = false;
      return () => {
        if (released) return;
        released = true;
        for (const release of releases) release();
      };
    },
  };
}
