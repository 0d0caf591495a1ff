// The store: one LevelDB (classic-level on disk through `level`, memory-level in tests)
// holding named, typed collections as sublevels. The only folder that talks to `level`.
import { Level } from 'level';
import { MemoryLevel } from 'memory-level';
import type { AbstractLevel, AbstractSublevel } from 'abstract-level';
import { IdsyncError } from '../errors.js';

export interface ListOptions {
  /** Keys that start with this prefix. */
  prefix?: string;
  gt?: string;
  gte?: string;
  lt?: string;
  lte?: string;
  limit?: number;
  reverse?: boolean;
}

export interface Entry<T> {
  key: string;
  value: T;
}

export interface Collection<T> {
  readonly name: string;
  get(key: string): Promise<T | undefined>;
  put(key: string, value: T): Promise<void>;
  del(key: string): Promise<void>;
  list(options?: ListOptions): Promise<Entry<T>[]>;
  count(options?: ListOptions): Promise<number>;
}

export type BatchOp =
  | { type: 'put'; collection: string; key: string; value: unknown }
  | { type: 'del'; collection: string; key: string };

export interface Store {
  /** A typed collection (a sublevel); the same name always gives the same data. */
  collection<T>(name: string): Collection<T>;
  /** Several writes across collections, all or nothing. */
  batch(ops: BatchOp[]): Promise<void>;
  close(): Promise<void>;
  readonly location: string | null;
}

export interface OpenStoreOptions {
  /** A folder for an on-disk LevelDB; omitted: in memory. */
  path?: string;
}

/** What a collection may be called. */
export const COLLECTION_NAME = /^[a-z][a-z0-9-]{0,63}$/;
const NAME = COLLECTION_NAME;

type Db = AbstractLevel<string | Buffer | Uint8Array, string, unknown>;
type Sub = AbstractSublevel<Db, string | Buffer | Uint8Array, string, unknown>;

/** The bounds of a listing: the tighter of the prefix's and the explicit ones (see range()). */
export interface KeyBounds {
  lower?: { op: 'gt' | 'gte'; key: string };
  upper?: { op: 'lt' | 'lte'; key: string };
}

// Prefix and explicit bounds combine as an intersection: the tighter lower and upper bound
// win. (Passing both `gte` from the prefix and a caller's `gt` down to the backend is
// ambiguous: memory-level and classic-level then ignore one of them.)
export function keyBounds(options: ListOptions = {}): KeyBounds {
  let lower: { op: 'gt' | 'gte'; key: string } | undefined;
  let upper: { op: 'lt' | 'lte'; key: string } | undefined;
  const raise = (op: 'gt' | 'gte', key: string) => {
    if (!lower || key > lower.key || (key === lower.key && op === 'gt')) lower = { op, key };
  };
  const lowerTo = (op: 'lt' | 'lte', key: string) => {
    if (!upper || key < upper.key || (key === upper.key && op === 'lt')) upper = { op, key };
  };
  if (options.prefix !== undefined) {
    raise('gte', options.prefix);
    // '\uffff' sorts after every character a key of ours uses (keys are BMP text).
    lowerTo('lt', options.prefix + '\uffff');
  }
  if (options.gt !== undefined) raise('gt', options.gt);
  if (options.gte !== undefined) raise('gte', options.gte);
  if (options.lt !== undefined) lowerTo('lt', options.lt);
  if (options.lte !== undefined) lowerTo('lte', options.lte);
  return { ...(lower ? { lower } : {}), ...(upper ? { upper } : {}) };
}

function range(options: ListOptions = {}): Record<string, unknown> {
  const { lower, upper } = keyBounds(options);
  const r: Record<string, unknown> = {};
  if (lower) r[lower.op] = lower.key;
  if (upper) r[upper.op] = upper.key;
  if (options.limit !== undefined) r.limit = options.limit;
  if (options.reverse) r.reverse = true;
  return r;
}

function storeError(err: unknown, what: string): IdsyncError {
  const code = (err as { code?: string })?.code;
  const causeCode = ((err as { cause?: { code?: string } })?.cause)?.code;
  if (code === 'LEVEL_LOCKED' || causeCode === 'LEVEL_LOCKED') {
    return new IdsyncError('store_locked', `${what}: the store is already open (another process or another openStore on the same folder)`, { cause: err });
  }
  if (code === 'LEVEL_DATABASE_NOT_OPEN') return new IdsyncError('store_closed', `${what}: the store is closed`, { cause: err });
  return new IdsyncError('store_error', `${what}: ${(err as Error)?.message ?? String(err)}`, { cause: err });
}

class LevelCollection<T> implements Collection<T> {
  private made?: Sub;
  // The sublevel is made on first use: an agent names a dozen collections when it starts, and
  // each sublevel costs a few KB (its transcoders, hooks, queues) though most stay empty while a
  // wallet is idle.
  constructor(readonly name: string, private readonly make: () => Sub) {}

  private get sub(): Sub {
    return (this.made ??= this.make());
  }

  async get(key: string): Promise<T | undefined> {
    try {
      return (await this.sub.get(key)) as T | undefined;
    } catch (err) {
      throw storeError(err, `get from ${this.name}`);
    }
  }

  async put(key: string, value: T): Promise<void> {
    try {
      await this.sub.put(key, value);
    } catch (err) {
      throw storeError(err, `put to ${this.name}`);
    }
  }

  async del(key: string): Promise<void> {
    try {
      await this.sub.del(key);
    } catch (err) {
      throw storeError(err, `delete from ${this.name}`);
    }
  }

  async list(options?: ListOptions): Promise<Entry<T>[]> {
    try {
      const out: Entry<T>[] = [];
      for await (const [key, value] of this.sub.iterator(range(options))) out.push({ key, value: value as T });
      return out;
    } catch (err) {
      throw storeError(err, `list ${this.name}`);
    }
  }

  async count(options?: ListOptions): Promise<number> {
    let n = 0;
    try {
      for await (const _ of this.sub.keys(range(options))) n++;
    } catch (err) {
      throw storeError(err, `count ${this.name}`);
    }
    return n;
  }
}

class LevelStore implements Store {
  private readonly collections = new Map<string, LevelCollection<unknown>>();
  private readonly subs = new Map<string, Sub>();
  constructor(private readonly db: Db, readonly location: string | null) {}

  // One sublevel per name for the store's lifetime: every sublevel registers itself as a
  // resource of the parent db, so making a fresh one per batch op would leak.
  private sub(name: string): Sub {
    let sub = this.subs.get(name);
    if (!sub) {
      if (!NAME.test(name)) throw new IdsyncError('invalid_collection', `invalid collection name: ${name}`);
      sub = this.db.sublevel<string, unknown>(name, { valueEncoding: 'json' }) as unknown as Sub;
      this.subs.set(name, sub);
    }
    return sub;
  }

  collection<T>(name: string): Collection<T> {
    let c = this.collections.get(name);
    if (!c) {
      if (!NAME.test(name)) throw new IdsyncError('invalid_collection', `invalid collection name: ${name}`);
      c = new LevelCollection<unknown>(name, () => this.sub(name));
      this.collections.set(name, c);
    }
    return c as Collection<T>;
  }

  async batch(ops: BatchOp[]): Promise<void> {
    try {
      await this.db.batch(
        ops.map((op) => {
          // Checked here so that an unknown op type fails the whole batch instead of deleting.
          if (op.type === 'put') return { type: 'put' as const, sublevel: this.sub(op.collection), key: op.key, value: op.value };
          if (op.type === 'del') return { type: 'del' as const, sublevel: this.sub(op.collection), key: op.key };
          throw new IdsyncError('store_invalid_op', "batch op type must be 'put' or 'del'");
        }) as never,
      );
    } catch (err) {
      if (err instanceof IdsyncError) throw err;
      throw storeError(err, 'batch');
    }
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}

export async function openStore(options: OpenStoreOptions = {}): Promise<Store> {
  const db = (options.path
    ? new Level<string, unknown>(options.path, { valueEncoding: 'json' })
    : // Kept as strings: stored as Buffers (the default), each small key and value is a slice of an
      // 8 KB pool slab and keeps it alive (~1 MB of slabs per active wallet in a 100-wallet run),
      // and every read and write transcodes. Our keys are BMP text, where code-unit order is
      // LevelDB's byte order, so listings sort as before.
      new MemoryLevel<string, unknown>({ valueEncoding: 'json', storeEncoding: 'utf8' } as { valueEncoding: 'json' })) as unknown as Db;
  try {
    await db.open();
  } catch (err) {
    throw storeError(err, `open ${options.path ?? 'memory store'}`);
  }
  return new LevelStore(db, options.path ?? null);
}
