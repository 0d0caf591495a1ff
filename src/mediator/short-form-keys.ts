// The mediator keys every DID by its short form (did/short-form.ts): a did:peer:4's long and short
// forms are one party and one recipient (DID Peer §Method 4: the long form goes in a first message,
// the short form after it). Stores written while only did:ion long forms were shortened hold
// did:peer:4 long forms in their keys; this moves each such record to its short-form key, once per
// store, before the keylist or the queue reads it. Each record moves in one batch with the removal
// of its old key, so a crash midway leaves every record under exactly one of them and the next open
// moves the rest; a mark written at the end says the collection is done, and later opens read no
// more than that mark.
import { ionShortForm } from '../did/ion-form.js';
import { shortForm } from '../did/short-form.js';
import { didOf, sameDid } from '../didcomm/message.js';
import { MOVED_METHOD, moveKeys, onceMarked, pages } from '../store/short-form-moves.js';
import type { BatchOp, Store } from '../store/store.js';

// The fields read here of a grant, a registration and a queued message (keylist.ts, queue.ts,
// which use this file); every other field is carried as it is.
type Grant = { grantedAt: string };
type Registration = { recipientDid: string; owner: string; addedAt: string; removedAt?: string };
type QueuedMessage = { recipient: string };

/** The marks: collection (or group of collections) name → done. */
export const SHORT_FORM_MARKS = 'med-short-keys';

/** Runs `move` over `store` unless its mark in SHORT_FORM_MARKS says it ran (store/short-form-moves.ts). */
const once = (store: Store, mark: string, move: () => Promise<number>): Promise<number> => onceMarked(store, SHORT_FORM_MARKS, mark, move);

export interface KeylistCollections {
  grants: string;
  recipients: string;
  owned: string;
  retired: string;
}

/**
 * Of two registrations of one DID or key id (its two forms, which the mediator took for two), the
 * one kept: the same party's registration over its claim on what waits (keylist.ts retire); else
 * the DID's own party's (a party registering its own DID proved control of it, and its grant ends
 * anyone else's); else the earlier, as registering the other form would have been refused.
 */
function kept(held: Registration, moved: Registration): Registration {
  if (shortForm(held.owner) === shortForm(moved.owner)) return held.removedAt !== undefined && moved.removedAt === undefined ? moved : held;
  const own = [held, moved].filter((r) => sameDid(didOf(r.recipientDid), r.owner));
  if (own.length === 1) return own[0]!;
  return moved.addedAt < held.addedAt ? moved : held;
}

/** The keys of `reg` in its owner's index and retired claims: as written before, and as written now. */
function indexKeys(reg: Registration): string[] {
  return [...new Set([`${ionShortForm(reg.owner)} ${ionShortForm(reg.recipientDid)}`, `${shortForm(reg.owner)} ${shortForm(reg.recipientDid)}`])];
}

/** Moves the keylist's grants, registrations, party indexes and retired claims to short-form keys (keylist.ts layout). */
export function shortFormKeylist(store: Store, names: KeylistCollections): Promise<number> {
  return once(store, 'keylist', async () => {
    let moved = 0;
    // Grants: `<party>`. The party granted again in its other form keeps its first grant time.
    moved += await moveKeys<Grant>(store, {
      collection: names.grants,
      prefix: MOVED_METHOD,
      to: shortForm,
      merge: (grant, held) => (held ? { ...held, grantedAt: held.grantedAt < grant.grantedAt ? held.grantedAt : grant.grantedAt } : grant),
    });
    // Registrations: `<recipient DID or key id>`. Two of one DID keep one; the other party's index
    // entries go with the one not kept (its messages stay, for the DID's holder to collect).
    const recipients = store.collection<Registration>(names.recipients);
    for await (const page of pages(recipients, MOVED_METHOD)) {
      for (const { key, value } of page) {
        const to = shortForm(key);
        if (to === key) continue;
        const held = await recipients.get(to);
        const reg = held ? kept(held, value) : value;
        const dropped = held && shortForm(held.owner) !== shortForm(value.owner) ? (reg === held ? value : held) : undefined;
        const ops: BatchOp[] = [{ type: 'put', collection: names.recipients, key: to, value: reg }, { type: 'del', collection: names.recipients, key }];
        if (dropped) for (const k of indexKeys(dropped)) ops.push({ type: 'del', collection: names.owned, key: k }, { type: 'del', collection: names.retired, key: k });
        await store.batch(ops);
        moved++;
      }
    }
    // A party's index and its retired claims: `<party> <recipient>` (DIDs hold no spaces). An entry
    // stays when its registration (moved above) is still that party's, in that state.
    for (const [name, retired] of [[names.owned, false], [names.retired, true]] as const) {
      for await (const page of pages(store.collection<{ recipientDid: string }>(name))) {
        for (const { key } of page) {
          const space = key.indexOf(' ');
          if (space === -1) continue;
          const party = key.slice(0, space);
          const recipient = key.slice(space + 1);
          const to = `${shortForm(party)} ${shortForm(recipient)}`;
          if (to === key) continue;
          const reg = await recipients.get(shortForm(recipient));
          const still = reg !== undefined && shortForm(reg.owner) === shortForm(party) && (reg.removedAt !== undefined) === retired;
          const ops: BatchOp[] = [{ type: 'del', collection: name, key }];
          if (still) ops.unshift({ type: 'put', collection: name, key: to, value: { recipientDid: reg.recipientDid } });
          await store.batch(ops);
          moved++;
        }
      }
    }
    return moved;
  });
}

/** Moves the queue's messages, `<recipient>/<queue id>`, to their recipient's short-form key (queue.ts layout). */
export function shortFormQueue(store: Store, collection: string): Promise<number> {
  // Queue ids hold no '/'; a recipient DID URL may.
  return once(store, `queue ${collection}`, () =>
    moveKeys<QueuedMessage>(store, {
      collection,
      prefix: MOVED_METHOD,
      to: (key) => {
        const slash = key.lastIndexOf('/');
        return slash === -1 ? key : `${shortForm(key.slice(0, slash))}/${key.slice(slash + 1)}`;
      },
      merge: (message, held) => held ?? { ...message, recipient: shortForm(message.recipient) },
    }),
  );
}
