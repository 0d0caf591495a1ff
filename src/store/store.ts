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

const NAME = /^[a-z][a-z0-9-]{0,63}$/;

type Db = AbstractLevel<string | Buffer | Uint8Array, string, unknown>;
type Sub = AbstractSublevel<Db, string | Buffer | Uint8Array, string, unknown>;

function range(options: ListOptions = {}): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  if (options.prefix !== undefined) {
    r.gte = options.prefix;
    // '\uffff' sorts after every character a key of ours uses.
    r.lt = options.prefix + '\uffff';
  }
  for (const k of ['gt', 'gte', 'lt', 'lte'] as const) if (options[k] !== undefined) r[k] = options[k];
  if (options.limit !== undefined) r.limit = options.limit;
  if (options.reverse) r.reverse = true;
  return r;
}

function storeError(err: unknown, what: string): IdsyncError {
  const code = (err as { code?: string })?.code;
  const causeCode = ((err as { cause?: { code?: string } })?.cause)?.code;
  if (code === 'LEVEL_LOCKED' || causeCode === 'LEVEL_LOCKED') {
    return new IdsyncError('store_locked', `${what}: the store is open in another process`, { cause: err });
  }
  return new IdsyncError('store_error', `${what}: ${(err as Error)?.message ?? String(err)}`, { cause: err });
}

class LevelCollection<T> implements Collection<T> {
  constructor(readonly name: string, private readonly sub: Sub) {}

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
  private readonly subs = new Map<string, LevelCollection<unknown>>();
  constructor(private readonly db: Db, readonly location: string | null) {}

  private sub(name: string): Sub {
    if (!NAME.test(name)) throw new IdsyncError('invalid_collection', `invalid collection name: ${name}`);
    return this.db.sublevel<string, unknown>(name, { valueEncoding: 'json' }) as unknown as Sub;
  }

  collection<T>(name: string): Collection<T> {
    let c = this.subs.get(name);
    if (!c) {
      c = new LevelCollection<unknown>(name, this.sub(name));
      this.subs.set(name, c);
    }
    return c as Collection<T>;
  }

  async batch(ops: BatchOp[]): Promise<void> {
    try {
      await this.db.batch(
        ops.map((op) =>
          op.type === 'put'
            ? { type: 'put' as const, sublevel: this.sub(op.collection), key: op.key, value: op.value }
            : { type: 'del' as const, sublevel: this.sub(op.collection), key: op.key },
        ) as never,
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
    : new MemoryLevel<string, unknown>({ valueEncoding: 'json' })) as unknown as Db;
  try {
    await db.open();
  } catch (err) {
    throw storeError(err, `open ${options.path ?? 'memory store'}`);
  }
  return new LevelStore(db, options.path ?? null);
}
