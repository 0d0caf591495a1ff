// DIDComm connections: one record per (their DID, my DID) relationship, found by id or by
// the other party's DID in either form of a did:ion or did:peer:4 (indexed by the short form,
// did/short-form.ts; DID Peer §Method 4: a peer writes its long form first, its short form after).
import { isoNow, systemClock } from '../clock.js';
import type { Clock } from '../clock.js';
import { shortForm } from '../did/short-form.js';
import { IdsyncError } from '../errors.js';
import { afterReady, MOVED_METHOD, moveKeys, onceMarked, SHORT_FORM_KEY_MARKS, shortLead } from './short-form-moves.js';
import type { BatchOp, Store } from './store.js';

export const CONNECTIONS_COLLECTION = 'connections';
/** Index: `<their short DID>\0<connection id>` → connection id. */
export const CONNECTIONS_BY_DID_COLLECTION = 'connections-by-did';

/** Suggested states; protocols may use others. */
export type ConnectionState = 'invited' | 'requested' | 'established' | 'closed' | (string & {});

export interface ConnectionRecord {
  id: string;
  theirDid: string;
  myDid: string;
  state: ConnectionState;
  /** ISO 8601. */
  createdAt: string;
  updatedAt: string;
  /** The out-of-band invitation the connection came from (its pthid). */
  invitationId?: string;
  theirLabel?: string;
  theirEndpoint?: string;
  /** Return route the other party asked for (DIDComm v2 return_route). */
  returnRoute?: 'all' | 'thread' | 'none';
  meta?: Record<string, unknown>;
}

export interface ConnectionQuery {
  state?: ConnectionState;
  myDid?: string;
  limit?: number;
}

export interface Connections {
  /** Stores the record as given (the caller sets the dates). */
  put(rec: ConnectionRecord): Promise<void>;
  get(id: string): Promise<ConnectionRecord | undefined>;
  /** The store writes of put(rec), to go into a caller's batch. */
  putOps(rec: ConnectionRecord): Promise<BatchOp[]>;
  /** The record update(id, patch) would write, and its store writes for a caller's batch. */
  updateOps(id: string, patch: Partial<Omit<ConnectionRecord, 'id' | 'createdAt'>>): Promise<{ connection: ConnectionRecord; ops: BatchOp[] }>;
  /** Merges `patch` into the record and sets `updatedAt` from the clock. */
  update(id: string, patch: Partial<Omit<ConnectionRecord, 'id' | 'createdAt'>>): Promise<ConnectionRecord>;
  remove(id: string): Promise<void>;
  list(query?: ConnectionQuery): Promise<ConnectionRecord[]>;
  /** All connections with this DID, most recently updated first. */
  listByTheirDid(did: string): Promise<ConnectionRecord[]>;
  /** The most recently updated connection with this DID (and `myDid` when given). */
  findByTheirDid(did: string, options?: { myDid?: string }): Promise<ConnectionRecord | undefined>;
}

const SEP = '\u0000';

function check(rec: ConnectionRecord): void {
  for (const k of ['id', 'theirDid', 'myDid', 'state', 'createdAt', 'updatedAt'] as const) {
    if (typeof rec?.[k] !== 'string' || rec[k].length === 0) throw new IdsyncError('invalid_connection', `connection ${k} must be a non-empty string`);
  }
  if (rec.id.includes(SEP)) throw new IdsyncError('invalid_connection', 'connection id must not contain NUL');
}

function indexKey(rec: Pick<ConnectionRecord, 'id' | 'theirDid'>): string {
  return `${shortForm(rec.theirDid)}${SEP}${rec.id}`;
}

/** Moves, once per store, index entries under a did:peer:4 long form (before only ion long forms were shortened) to its short form. */
function moveIndexKeys(store: Store): Promise<number> {
  return onceMarked(store, SHORT_FORM_KEY_MARKS, CONNECTIONS_BY_DID_COLLECTION, () =>
    moveKeys<string>(store, { collection: CONNECTIONS_BY_DID_COLLECTION, prefix: MOVED_METHOD, to: (key) => shortLead(key, SEP) }),
  );
}

const newestFirst = (a: ConnectionRecord, b: ConnectionRecord) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0);

export function connections(store: Store, clock: Clock = systemClock): Connections {
  const col = store.collection<ConnectionRecord>(CONNECTIONS_COLLECTION);
  const byDid = store.collection<string>(CONNECTIONS_BY_DID_COLLECTION);

  async function writeOps(rec: ConnectionRecord): Promise<BatchOp[]> {
    check(rec);
    const old = await col.get(rec.id);
    const ops: BatchOp[] = [
      { type: 'put', collection: CONNECTIONS_COLLECTION, key: rec.id, value: rec },
      { type: 'put', collection: CONNECTIONS_BY_DID_COLLECTION, key: indexKey(rec), value: rec.id },
    ];
    if (old && indexKey(old) !== indexKey(rec)) ops.push({ type: 'del', collection: CONNECTIONS_BY_DID_COLLECTION, key: indexKey(old) });
    return ops;
  }

  async function write(rec: ConnectionRecord): Promise<void> {
    await store.batch(await writeOps(rec));
  }

  async function updated(id: string, patch: Partial<Omit<ConnectionRecord, 'id' | 'createdAt'>>): Promise<ConnectionRecord> {
    const old = await col.get(id);
    if (!old) throw new IdsyncError('not_found', `no connection ${id}`);
    return { ...old, ...patch, id: old.id, createdAt: old.createdAt, updatedAt: patch.updatedAt ?? isoNow(clock) };
  }

  async function listByTheirDid(did: string): Promise<ConnectionRecord[]> {
    const short = shortForm(did);
    const out: ConnectionRecord[] = [];
    for (const { value: id } of await byDid.list({ prefix: `${short}${SEP}` })) {
      const rec = await col.get(id);
      // Skip index entries a concurrent update left behind.
      if (rec && shortForm(rec.theirDid) === short) out.push(rec);
    }
    return out.sort(newestFirst);
  }

  // Every call waits for the move of older index keys: a write would otherwise leave an old entry
  // behind (writeOps removes the entry under the key the record has now).
  return afterReady(() => moveIndexKeys(store), {
    put: write,
    putOps: writeOps,

    get: (id: string) => col.get(id),

    async update(id: string, patch: Partial<Omit<ConnectionRecord, 'id' | 'createdAt'>>) {
      const rec = await updated(id, patch);
      await write(rec);
      return rec;
    },

    async updateOps(id: string, patch: Partial<Omit<ConnectionRecord, 'id' | 'createdAt'>>) {
      const rec = await updated(id, patch);
      return { connection: rec, ops: await writeOps(rec) };
    },

    async remove(id: string) {
      const old = await col.get(id);
      if (!old) return;
      await store.batch([
        { type: 'del', collection: CONNECTIONS_COLLECTION, key: id },
        { type: 'del', collection: CONNECTIONS_BY_DID_COLLECTION, key: indexKey(old) },
      ]);
    },

    async list(q: ConnectionQuery = {}) {
      const out: ConnectionRecord[] = [];
      const myDid = q.myDid === undefined ? undefined : shortForm(q.myDid);
      for (const { value } of await col.list()) {
        if (q.state !== undefined && value.state !== q.state) continue;
        if (myDid !== undefined && shortForm(value.myDid) !== myDid) continue;
        out.push(value);
        if (q.limit !== undefined && out.length >= q.limit) break;
      }
      return out;
    },

    listByTheirDid,

    async findByTheirDid(did: string, options: { myDid?: string } = {}) {
      const all = await listByTheirDid(did);
      const my = options.myDid === undefined ? undefined : shortForm(options.myDid);
      return all.find((c) => my === undefined || shortForm(c.myDid) === my);
    },
  });
}
