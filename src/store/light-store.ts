// A store kept in plain Maps, for many short-lived agents in one process (simulated wallets in a
// fleet): the same contract as openStore() in memory (store.ts; test/store/store-contract.ts),
// without a LevelDB per agent. A memory-level database and its sublevels cost tens of KB each
// (transcoders, hooks, queues, a red-black tree), which is most of an idle wallet; this costs a
// Map per collection used. Values are kept as JSON text, so what is read is a copy, as from
// LevelDB, and encodes exactly as there.
import { IdsyncError } from '../errors.js';
import { COLLECTION_NAME, keyBounds, type BatchOp, type Collection, type Entry, type ListOptions, type Store } from './store.js';

class LightCollection<T> implements Collection<T> {
  readonly data = new Map<string, string>();
  /** Keys in order, made again on the next listing after a key was added or removed. */
  private sorted?: string[];

  constructor(readonly name: string, private readonly open: () => void) {}

  async get(key: string): Promise<T | undefined> {
    this.open();
    const text = this.data.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  async put(key: string, value: T): Promise<void> {
    this.open();
    this.set(key, encode(value));
  }

  async del(key: string): Promise<void> {
    this.open();
    this.remove(key);
  }

  set(key: string, text: string): void {
    if (!this.data.has(key)) this.sorted = undefined;
    this.data.set(key, text);
  }

  remove(key: string): void {
    if (this.data.delete(key)) this.sorted = undefined;
  }

  private keys(options: ListOptions): string[] {
    this.open();
    // Code-unit order is LevelDB's byte order for the BMP text our keys are (store.ts range()).
    this.sorted ??= [...this.data.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const { lower, upper } = keyBounds(options);
    let keys = this.sorted.filter(
      (k) =>
        (!lower || (lower.op === 'gt' ? k > lower.key : k >= lower.key)) &&
        (!upper || (upper.op === 'lt' ? k < upper.key : k <= upper.key)),
    );
    if (options.reverse) keys = keys.reverse();
    if (options.limit !== undefined && options.limit >= 0) keys = keys.slice(0, options.limit);
    return keys;
  }

  async list(options: ListOptions = {}): Promise<Entry<T>[]> {
    return this.keys(options).map((key) => ({ key, value: JSON.parse(this.data.get(key)!) as T }));
  }

  async count(options: ListOptions = {}): Promise<number> {
    return this.keys(options).length;
  }
}

/** JSON text of a value, refused like the json value encoding refuses it. */
function encode(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new IdsyncError('store_error', 'the value cannot be stored as JSON');
  return text;
}

class LightStore implements Store {
  readonly location = null;
  private readonly collections = new Map<string, LightCollection<unknown>>();
  private closed = false;
  private readonly open = () => {
    if (this.closed) throw new IdsyncError('store_closed', 'the store is closed');
  };

  private col(name: string): LightCollection<unknown> {
    let c = this.collections.get(name);
    if (!c) {
      if (!COLLECTION_NAME.test(name)) throw new IdsyncError('invalid_collection', `invalid collection name: ${name}`);
      c = new LightCollection<unknown>(name, this.open);
      this.collections.set(name, c);
    }
    return c;
  }

  collection<T>(name: string): Collection<T> {
    return this.col(name) as Collection<T>;
  }

  async batch(ops: BatchOp[]): Promise<void> {
    this.open();
    // Checked and encoded first: all or nothing.
    const ready = ops.map((op) => {
      if (op.type === 'put') return { put: true, col: this.col(op.collection), key: op.key, text: encode(op.value) };
      if (op.type === 'del') return { put: false, col: this.col(op.collection), key: op.key, text: '' };
      throw new IdsyncError('store_invalid_op', "batch op type must be 'put' or 'del'");
    });
    for (const op of ready) {
      if (op.put) op.col.set(op.key, op.text);
      else op.col.remove(op.key);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.collections.clear();
  }
}

/** A new, empty store in plain Maps (see the top of this file). */
export function openLightStore(): Store {
  return new LightStore();
}
