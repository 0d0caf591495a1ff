// A store kept in plain Maps: what openStore() gives without a folder (tests, testbeds, the fleet's
// service and its simulated wallets). The same contract as the on-disk LevelDB
// (test/store/store-contract.ts), without a LevelDB in memory: a memory-level database and its
// sublevels cost tens of KB each (transcoders, hooks, queues, a red-black tree), which was most of
// an idle wallet, and their machinery (sublevel prefixes, deferred open, hooks, a promise per
// layer) cost more CPU than the JSON of the values in a sync flow. This costs a Map per
// collection used. Values are kept as JSON text, so what is read is a copy, as from LevelDB, and
// encodes exactly as there.
import { IdsyncError } from '../errors.js';
import { jsonWithKeptText } from '../json-text.js';
import { COLLECTION_NAME, compareKeys, keyBounds, type BatchOp, type Collection, type Entry, type KeyBounds, type ListOptions, type Store } from './contract.js';

class LightCollection<T> implements Collection<T> {
  readonly data = new Map<string, string>();
  /**
   * Keys in order, made at the first listing and brought up to date at the next ones: a
   * collection that is only read and written by key never sorts, and a listing costs a search and
   * a slice, not a pass over every key. The order is LevelDB's (contract.ts compareKeys), kept
   * with `compare` (see there). A key added after the last key goes in at no cost; other
   * keys added or removed wait in `added` / `removed` until a listing needs the order (most
   * collections are listed rarely, e.g. at start-up or by a prune, while their random keys keep
   * coming), then go in one by one, or by a merge when many are waiting.
   */
  private sorted?: string[];
  private added: string[] = [];
  private removed: string[] = [];
  /**
   * How `sorted` and `added` are compared: by code unit (`<`, about three times as fast as
   * compareKeys, which must find the first difference itself) while none of their keys has a
   * surrogate, since the two orders part only at one; by compareKeys from the first key with one
   * (a user id with an emoji) until the order is made anew. A listing whose bounds have one uses
   * compareKeys too (compareWithin).
   */
  private compare: Compare = byCodeUnit;

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
    const s = this.sorted;
    if (s && !this.data.has(key)) {
      if (this.compare === byCodeUnit && hasSurrogate(key)) this.compare = compareKeys;
      // Keys made of times and counters mostly arrive in order: appended at once.
      if (s.length === 0 || this.compare(key, s[s.length - 1]!) > 0) s.push(key);
      else this.wait(this.added, key);
    }
    this.data.set(key, text);
  }

  remove(key: string): void {
    if (this.data.delete(key) && this.sorted) this.wait(this.removed, key);
  }

  /** `key` waits in `list` for the next listing; once more wait than there are keys, the order is made anew then. */
  private wait(list: string[], key: string): void {
    list.push(key);
    if (this.added.length + this.removed.length > Math.max(1024, this.data.size)) {
      this.sorted = undefined;
      this.added = [];
      this.removed = [];
    }
  }

  /** The keys in order, with what was added and removed since the last listing. */
  private order(): string[] {
    let s = this.sorted;
    if (!s) {
      this.added = [];
      this.removed = [];
      const keys = [...this.data.keys()];
      this.compare = keys.some(hasSurrogate) ? compareKeys : byCodeUnit;
      return (this.sorted = keys.sort(this.compare));
    }
    const { added, removed } = this;
    if (added.length === 0 && removed.length === 0) return s;
    this.added = [];
    this.removed = [];
    // A key removed and added again (or the reverse) is in the order exactly when it is in `data`.
    if (removed.length > 0) {
      if (removed.length <= FEW) {
        for (const key of removed) {
          const i = lowerBound(s, key, this.compare);
          if (s[i] === key && !this.data.has(key)) s.splice(i, 1);
        }
      } else {
        s = s.filter((key) => this.data.has(key));
      }
    }
    if (added.length > 0) {
      if (added.length <= FEW) {
        for (const key of added) {
          const i = lowerBound(s, key, this.compare);
          if (s[i] !== key && this.data.has(key)) s.splice(i, 0, key);
        }
      } else {
        s = merge(s, added.filter((key) => this.data.has(key)).sort(this.compare), this.compare);
      }
    }
    return (this.sorted = s);
  }

  private keys(options: ListOptions): string[] {
    this.open();
    const { lower, upper } = keyBounds(options);
    const limit = options.limit !== undefined && options.limit >= 0 ? options.limit : Infinity;
    const reverse = options.reverse === true;
    let s = this.sorted ?? this.order();
    // A small collection (its order is cheap to bring up to date) or many keys waiting: put them in the order first.
    const pending = this.added.length + this.removed.length;
    if (pending > 0 && (s.length < LARGE || pending > PENDING_READ)) s = this.order();
    // After the order is made: a new one decides `compare`.
    const compare = this.compareWithin(lower, upper);
    let window = this.window(s, lower, upper, compare, limit, reverse);
    if (this.added.length + this.removed.length > 0) {
      if ((window.to - window.from) * 4 < s.length) return this.withWaiting(s, window, lower, upper, compare, limit, reverse);
      // A listing of much of the collection: in the order first too.
      s = this.order();
      window = this.window(s, lower, upper, compare, limit, reverse);
    }
    const { from, to } = window;
    if (to <= from) return [];
    if (reverse) return s.slice(Math.max(from, to - limit), to).reverse();
    return s.slice(from, Math.min(to, from + limit));
  }

  /**
   * How a listing between `lower` and `upper` compares: as the order does, or by compareKeys when
   * a bound has a surrogate (a key of the order may have a unit at or above U+E000 where it has).
   */
  private compareWithin(lower: KeyBounds['lower'], upper: KeyBounds['upper']): Compare {
    if (this.compare !== byCodeUnit) return this.compare;
    return (lower && hasSurrogate(lower.key)) || (upper && hasSurrogate(upper.key)) ? compareKeys : byCodeUnit;
  }

  /**
   * The indexes of sorted `s` a listing reads: those within the bounds, cut to `limit` plus the
   * keys removed and still in `s` (at most `removed.length` of them can fall in any stretch).
   */
  private window(s: string[], lower: KeyBounds['lower'], upper: KeyBounds['upper'], compare: Compare, limit: number, reverse: boolean): { from: number; to: number } {
    let from = !lower ? 0 : lower.op === 'gt' ? upperBound(s, lower.key, compare) : lowerBound(s, lower.key, compare);
    let to = !upper ? s.length : upper.op === 'lt' ? lowerBound(s, upper.key, compare) : upperBound(s, upper.key, compare);
    if (to <= from) return { from, to: from };
    const room = limit + this.removed.length;
    if (room < to - from) {
      if (reverse) from = to - room;
      else to = from + room;
    }
    return { from, to };
  }

  /**
   * A short listing while a few keys wait (see `sorted`): the stretch of the order, without the
   * keys removed since, merged with the waiting keys within the bounds. A collection whose keys
   * come in random order (an index by thread or subject) and is read by prefix would otherwise
   * merge every waiting key into the whole order at each listing: a pass over all its keys per
   * read, which grew with the run (3 % of the twin's thread by the end of a 10,000-wallet fleet).
   */
  private withWaiting(s: string[], w: { from: number; to: number }, lower: KeyBounds['lower'], upper: KeyBounds['upper'], compare: Compare, limit: number, reverse: boolean): string[] {
    const data = this.data;
    const stretch = this.removed.length > 0 ? s.slice(w.from, w.to).filter((key) => data.has(key)) : s.slice(w.from, w.to);
    const within = (key: string) => {
      if (lower) {
        const c = compare(key, lower.key);
        if (lower.op === 'gt' ? c <= 0 : c < 0) return false;
      }
      if (upper) {
        const c = compare(key, upper.key);
        if (upper.op === 'lt' ? c >= 0 : c > 0) return false;
      }
      return true;
    };
    // A waiting key also in the order (removed, then added again before a listing) comes out once: merge keeps one of equal keys.
    const waiting = this.added.filter((key) => within(key) && data.has(key)).sort(compare);
    const keys = waiting.length > 0 ? merge(stretch, waiting, compare) : stretch;
    if (reverse) return keys.slice(Math.max(0, keys.length - limit)).reverse();
    return limit < keys.length ? keys.slice(0, limit) : keys;
  }

  async list(options: ListOptions = {}): Promise<Entry<T>[]> {
    return this.keys(options).map((key) => ({ key, value: JSON.parse(this.data.get(key)!) as T }));
  }

  /** Every entry in key order, with its stored text. */
  rawEntries(): [string, string][] {
    return this.keys({}).map((key) => [key, this.data.get(key)!]);
  }

  async count(options: ListOptions = {}): Promise<number> {
    return this.keys(options).length;
  }
}

/** Waiting keys put in one by one up to this many (a search and a move each); more: one merge. */
const FEW = 16;
/** Keys waiting (added and removed) up to which a short listing reads around them rather than putting them in the order. */
const PENDING_READ = 256;
/**
 * Keys in order from which reading around the waiting keys pays: below it, putting one or two keys
 * in place (a search and a short move) costs less than filtering the waiting ones at every listing.
 */
const LARGE = 4096;

type Compare = (a: string, b: string) => number;

/** UTF-16 order: compareKeys's for keys without a surrogate (see LightCollection `compare`). */
const byCodeUnit: Compare = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

const SURROGATE = /[\uD800-\uDFFF]/;

/** Whether `key` has a surrogate: half of a character outside the BMP, where UTF-16 order and LevelDB's part. */
function hasSurrogate(key: string): boolean {
  return SURROGATE.test(key);
}

/** Sorted `a` and sorted `b` as one sorted list, each key once. */
function merge(a: string[], b: string[], compare: Compare): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && compare(a[i]!, b[j]!) <= 0) ? a[i++]! : b[j++]!;
    if (out.length === 0 || out[out.length - 1] !== next) out.push(next);
  }
  return out;
}

/** The first index whose key is >= `key` in sorted `s`. */
function lowerBound(s: string[], key: string, compare: Compare): number {
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(s[mid]!, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index whose key is > `key` in sorted `s`. */
function upperBound(s: string[], key: string, compare: Compare): number {
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(s[mid]!, key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * JSON text of a value, refused like the json value encoding refuses it. A member whose text was
 * written already (json-text.ts: a plaintext as packed) is copied, not written again.
 */
function encode(value: unknown): string {
  const text = jsonWithKeptText(value) ?? JSON.stringify(value);
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

  text(names: Iterable<string>): StoreText {
    this.open();
    const out: StoreText = [];
    for (const name of names) {
      const c = this.collections.get(name);
      if (!c || c.data.size === 0) continue;
      out.push([name, c.rawEntries()]);
    }
    return out;
  }

  load(content: StoreText): void {
    for (const [name, entries] of content) {
      const c = this.col(name);
      for (const [key, text] of entries) c.set(key, text);
    }
  }
}

/** A new, empty store in plain Maps (see the top of this file). */
export function openLightStore(): Store {
  return new LightStore();
}

/** A store's content as JSON text: each collection's entries in key order, each value its stored text. */
export type StoreText = [collection: string, entries: [key: string, json: string][]][];

/**
 * The content of `names` (non-empty collections only) as their stored JSON text, or undefined
 * when `store` is not a light store. What a wallet page is made of (fleet/wallet-pages.ts):
 * taken as it is kept, not parsed and encoded again.
 */
export function lightStoreText(store: Store, names: Iterable<string>): StoreText | undefined {
  if (!(store instanceof LightStore)) return undefined;
  return store.text(names);
}

/**
 * A new store in plain Maps holding `content`, whose texts are kept as they are: they must be
 * what a store encoded (lightStoreText, or JSON.stringify of a value), as no value is parsed here.
 */
export function openLightStoreWith(content: StoreText): Store {
  const store = new LightStore();
  store.load(content);
  return store;
}
