// What every store is (store.ts on disk, light-store.ts in memory): named, typed collections of
// JSON values under text keys, listed in key order (compareKeys), and batches across them.

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
 * The order of keys in every store: LevelDB's, by their UTF-8 bytes, which is Unicode code point
 * order. JavaScript's `<` compares UTF-16 code units, which agrees with it except where, at the
 * first difference, a character outside the BMP (a surrogate pair, e.g. an emoji in a user id)
 * meets one at or above U+E000: UTF-16 puts the pair first, UTF-8 last. There both units are at
 * or above U+D800, and moving U+E000–U+FFFF below the surrogates gives code point order. A lone
 * surrogate (which LevelDB cannot keep: it writes U+FFFD) sorts after U+FFFF, consistently.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  const x = a.charCodeAt(i);
  const y = b.charCodeAt(i);
  return x >= 0xd800 && y >= 0xd800 ? unitRank(x) - unitRank(y) : x - y;
}

/** A code unit at or above U+D800 placed in code point order: U+E000–U+FFFF first, then the surrogates. */
function unitRank(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/**
 * The first key after every key that starts with `prefix` (compareKeys order): its last character
 * raised by one, or, for U+10FFFF, the one before it raised. Not `prefix + '\uffff'`: a key with
 * a character outside the BMP after the prefix sorts past that, and listings would leave it out.
 */
function prefixEnd(prefix: string): string | undefined {
  let end = prefix.length;
  while (end > 0) {
    const last = prefix.charCodeAt(end - 1);
    // Most prefixes end in ASCII (`<tenantId>/`).
    if (last < 0xd7ff) return prefix.slice(0, end - 1) + String.fromCharCode(last + 1);
    const start = end >= 2 && isLowSurrogate(last) && isHighSurrogate(prefix.charCodeAt(end - 2)) ? end - 2 : end - 1;
    const next = nextCharacter(prefix.slice(start, end));
    if (next !== undefined) return prefix.slice(0, start) + next;
    end = start;
  }
  return undefined;
}

/**
 * The character after `char` (one character: a BMP unit, a surrogate pair, or a lone surrogate) in
 * compareKeys order, undefined after the last. The surrogates are no characters in UTF-8: after
 * U+D7FF comes U+E000, after U+FFFF U+10000. A lone surrogate is a unit of its own there, the
 * last of them U+DFFF.
 */
function nextCharacter(char: string): string | undefined {
  const code = char.codePointAt(0)!;
  if (char.length === 1 && code >= 0xd800 && code <= 0xdfff) return code === 0xdfff ? undefined : String.fromCharCode(code + 1);
  if (code === 0x10ffff) return undefined;
  return String.fromCodePoint(code === 0xd7ff ? 0xe000 : code + 1);
}

const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

// Module functions rather than closures per call: every listing computes its bounds.
function raise(lower: KeyBounds['lower'], op: 'gt' | 'gte', key: string): KeyBounds['lower'] {
  if (!lower) return { op, key };
  const c = compareKeys(key, lower.key);
  return c > 0 || (c === 0 && op === 'gt') ? { op, key } : lower;
}

function lowerTo(upper: KeyBounds['upper'], op: 'lt' | 'lte', key: string): KeyBounds['upper'] {
  if (!upper) return { op, key };
  const c = compareKeys(key, upper.key);
  return c < 0 || (c === 0 && op === 'lt') ? { op, key } : upper;
}
