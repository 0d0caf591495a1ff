// Records keyed by a DID move once to the key its short form gives (did/short-form.ts). Stores
// written while only did:ion long forms were shortened hold did:peer:4 long forms in their keys;
// DID Peer §Method 4 has a peer write its long form first and its short form after, and both name
// one party, so what was kept under the long form must be found under the short form. Each record
// moves in one batch with the removal of its old key, so a crash at any write leaves every record
// under exactly one of them and the next start moves the rest; a mark written at the end says the
// collection is done, and later starts read no more than that mark.
import { shortForm } from '../did/short-form.js';
import type { BatchOp, Collection, Entry, Store } from './contract.js';

const PAGE = 256;

/** The marks of the service's and the wallet's stores (the mediator keeps its own): move name → done. */
export const SHORT_FORM_KEY_MARKS = 'short-form-keys';

/** The only method whose keys changed: every other DID was keyed by the form it is keyed by now. */
export const MOVED_METHOD = 'did:peer:4';

const running = new WeakMap<Store, Map<string, Promise<number>>>();

/**
 * Runs `move` over `store` unless `mark` in the `marks` collection says it ran; once per store
 * object, again after a failure. Resolves with how many records moved.
 */
export function onceMarked(store: Store, marks: string, mark: string, move: () => Promise<number>): Promise<number> {
  let byMark = running.get(store);
  if (!byMark) running.set(store, (byMark = new Map()));
  const id = `${marks}\u0000${mark}`;
  let run = byMark.get(id);
  if (!run) {
    run = (async () => {
      const col = store.collection<string>(marks);
      if ((await col.get(mark)) !== undefined) return 0;
      const moved = await move();
      await col.put(mark, 'short-form');
      return moved;
    })();
    const mine = byMark;
    run.catch(() => mine.delete(id));
    byMark.set(id, run);
  }
  return run;
}

/** `col`'s entries in key order, a page at a time. */
export async function* pages<T>(col: Collection<T>, prefix?: string): AsyncGenerator<Entry<T>[]> {
  let after: string | undefined;
  for (;;) {
    const page = await col.list({ ...(prefix !== undefined ? { prefix } : {}), ...(after !== undefined ? { gt: after } : {}), limit: PAGE });
    if (page.length) yield page;
    if (page.length < PAGE) return;
    after = page[page.length - 1]!.key;
  }
}

export interface KeyMove<T> {
  collection: string;
  /** Only keys under this prefix may change (default: every key is read). */
  prefix?: string;
  /** The key `key` is kept under now; `key` itself when it stays. */
  to(key: string, value: T): string;
  /** What is kept under the new key: default the record already there, else the moved one. */
  merge?(moved: T, held: T | undefined): T;
}

/** `key` with the DID it starts with, up to `sep`, in its short form (`<DID><sep><rest>` keys). */
export function shortLead(key: string, sep: string): string {
  const at = key.indexOf(sep);
  return at === -1 ? key : shortForm(key.slice(0, at)) + key.slice(at);
}

/** Moves the records of one collection to the keys `move.to` gives them (see the file comment). */
export async function moveKeys<T>(store: Store, move: KeyMove<T>): Promise<number> {
  const col = store.collection<T>(move.collection);
  let moved = 0;
  for await (const page of pages(col, move.prefix)) {
    for (const { key, value } of page) {
      const to = move.to(key, value);
      if (to === key) continue;
      const held = await col.get(to);
      const kept = move.merge ? move.merge(value, held) : (held ?? value);
      const ops: BatchOp[] = [{ type: 'put', collection: move.collection, key: to, value: kept }, { type: 'del', collection: move.collection, key }];
      await store.batch(ops);
      moved++;
    }
  }
  return moved;
}

/**
 * `api` with each of its methods run once `ready` has resolved, started now; a failure is tried
 * again at the next call. After that, a call costs one check.
 */
export function afterReady<T extends object>(ready: () => Promise<unknown>, api: T): T {
  let done = false;
  let pending: Promise<unknown> | undefined;
  const wait = (): Promise<unknown> =>
    (pending ??= ready().then(
      () => void (done = true),
      (err: unknown) => {
        pending = undefined;
        throw err;
      },
    ));
  wait().catch(() => {});
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(api)) {
    out[name] =
      typeof value === 'function'
        ? async (...args: unknown[]) => {
            if (!done) await wait();
            return (value as (...a: unknown[]) => unknown).apply(api, args);
          }
        : value;
  }
  return out as T;
}
