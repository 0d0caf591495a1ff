// What every store is (store.ts on disk, light-store.ts in memory): named, typed collections of
// JSON values under text keys, listed in key order, and batches across them.

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
  /** A typed collection; the same name always gives the same data. */
  collection<T>(name: string): Collection<T>;
  /** Several writes across collections, all or nothing. */
  batch(ops: BatchOp[]): Promise<void>;
  close(): Promise<void>;
  readonly location: string | null;
}

/** What a collection may be called. */
export const COLLECTION_NAME = /^[a-z][a-z0-9-]{0,63}$/;

/** The bounds of a listing: the tighter of the prefix's and the explicit ones (store.ts range(), light-store.ts). */
export interface KeyBounds {
  lower?: { op: 'gt' | 'gte'; key: string };
  upper?: { op: 'lt' | 'lte'; key: string };
}

// Prefix and explicit bounds combine as an intersection: the tighter lower and upper bound
// win. (Passing both `gte` from the prefix and a caller's `gt` down to the backend is
// ambiguous: memory-level and classic-level then ignore one of them.)
export function keyBounds(options: ListOptions = {}): KeyBounds {
  let lower: KeyBounds['lower'];
  let upper: KeyBounds['upper'];
  if (options.prefix !== undefined) {
    lower = raise(lower, 'gte', options.prefix);
    const end = prefixEnd(options.prefix);
    if (end !== undefined) upper = lowerTo(upper, 'lt', end);
  }
  if (options.gt !== undefined) lower = raise(lower, 'gt', options.gt);
  if (options.gte !== undefined) lower = raise(lower, 'gte', options.gte);
  if (options.lt !== undefined) upper = lowerTo(upper, 'lt', options.lt);
  if (options.lte !== undefined) upper = lowerTo(upper, 'lte', options.lte);
  return { ...(lower ? { lower } : {}), ...(upper ? { upper } : {}) };
}

/**
 * The first key after every key that starts with `prefix`, in both backends' orders: its last
 * character raised by one. LevelDB orders keys by their UTF-8 bytes, the in-memory store by
 * UTF-16 code units; the two agree on characters below U+D800 but not on the ones above (a
 * user id with an emoji). `prefix + '\uffff'` was the end in UTF-16 only: on disk a key with a
 * character outside the BMP after the prefix sorted past it, and listings left it out. A prefix
 * ending in a character the orders disagree on keeps that end (no such prefix is made here).
 */
function prefixEnd(prefix: string): string | undefined {
  if (prefix === '') return undefined;
  const last = prefix.charCodeAt(prefix.length - 1);
  return last < 0xd7ff ? prefix.slice(0, -1) + String.fromCharCode(last + 1) : prefix + '\uffff';
}

// Module functions rather than closures per call: every listing computes its bounds.
function raise(lower: KeyBounds['lower'], op: 'gt' | 'gte', key: string): KeyBounds['lower'] {
  return !lower || key > lower.key || (key === lower.key && op === 'gt') ? { op, key } : lower;
}

function lowerTo(upper: KeyBounds['upper'], op: 'lt' | 'lte', key: string): KeyBounds['upper'] {
  return !upper || key < upper.key || (key === upper.key && op === 'lt') ? { op, key } : upper;
}
