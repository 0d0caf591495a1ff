// The store: one LevelDB on disk (classic-level through `level`) holding named, typed collections
// as sublevels; without a folder, plain Maps with the same contract (light-store.ts). The only
// folder that talks to `level`.
import { Level } from 'level';
import type { AbstractLevel, AbstractSublevel } from 'abstract-level';
import { IdsyncError } from '../errors.js';
import { openLightStore } from './light-store.js';
import { COLLECTION_NAME, keyBounds, type BatchOp, type Collection, type Entry, type ListOptions, type Store } from './contract.js';

export { COLLECTION_NAME, keyBounds, type BatchOp, type Collection, type Entry, type KeyBounds, type ListOptions, type Store } from './contract.js';

export interface OpenStoreOptions {
  /** A folder for an on-disk LevelDB; omitted: in memory (plain Maps, light-store.ts). */
  path?: string;
}

const NAME = COLLECTION_NAME;

type Db = AbstractLevel<string | Buffer | Uint8Array, string, unknown>;
type Sub = AbstractSublevel<Db, string | Buffer | Uint8Array, string, unknown>;

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
  // Opening failed for a reason of its own (LEVEL_CORRUPTION, LEVEL_IO_ERROR: a damaged or
  // missing file): that reason, not "closed", which sent users looking for who closed it.
  const reason = (err as { cause?: { message?: unknown } })?.cause?.message;
  if (code === 'LEVEL_DATABASE_NOT_OPEN' && causeCode !== undefined && typeof reason === 'string') {
    return new IdsyncError('store_error', `${what}: the store cannot be opened (${causeCode}): ${reason}`, { cause: err });
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
  if (!options.path) return openLightStore();
  const db = new Level<string, unknown>(options.path, { valueEncoding: 'json' }) as unknown as Db;
  try {
    await db.open();
  } catch (err) {
    throw storeError(err, `open ${options.path}`);
  }
  return new LevelStore(db, options.path);
}
