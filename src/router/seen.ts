// The router's replay memory: message ids received from each sender (DIDComm v2 §Message
// Headers `id`: unique to the sender), so a replay is refused as a duplicate.
//
// An id is claimed while its message is being handled (in memory: two copies arriving at once
// never both run a handler) and written as seen only once the outcome is final: handled, or
// deliberately refused. A handler failure that may pass (a store error, a DID that did not
// resolve, a crash before the write) leaves the id free, so the sender's retry of the same
// packed message is handled instead of refused as a duplicate.
//
// Records are kept for a retention window (`seenRetentionMs`, default 7 days): an older record
// no longer counts, and when the collection can list and delete, old records are deleted
// after every `seenPruneEvery` writes. A replay older than the window meets the thread state
// machines instead (a finished or unknown thread refuses it).
import type { Clock } from '../clock.js';
import { shortForm } from '../did/short-form.js';
import { b64uEncode, sha256 } from '../encoding.js';
import { toIdsyncError } from '../errors.js';
import type { InboundRefusal } from '../didcomm/types.js';
import type { LogLevel, SeenRecord, SeenStore } from './types.js';

export const DEFAULT_SEEN_RETENTION_MS = 7 * 24 * 3600 * 1000;
export const DEFAULT_SEEN_PRUNE_EVERY = 1000;

const PAGE = 500;
/** Longer keys are hashed: an id and an unauthenticated `from` are sender-chosen and unbounded. */
const MAX_KEY_CHARS = 256;

function keyOf(id: unknown, sender: string): string {
  const key = `${String(id).toLowerCase()}|${sender}`;
  return key.length > MAX_KEY_CHARS ? `sha256:${b64uEncode(sha256(key))}` : key;
}

/**
 * DIDComm v2 §Threading: ids are unique per sender and compared case-insensitively. The sender in
 * its short form: a did:ion or did:peer:4 in either form is one sender (DID Peer §Method 4).
 */
export function seenKey(id: unknown, sender: string | undefined): string {
  return keyOf(id, sender ? shortForm(sender) : '');
}

/**
 * The key a message from a did:peer:4 long form was recorded under when only did:ion long forms
 * were shortened, when it differs from seenKey's. Records are kept for the retention window only,
 * so a replay of such a message is looked up under both keys instead of moving the records: a
 * replay is byte for byte its message, and carries the same long form.
 */
export function formerSeenKey(id: unknown, sender: string | undefined): string | undefined {
  return sender !== undefined && sender.startsWith('did:peer:4') && shortForm(sender) !== sender ? keyOf(id, sender) : undefined;
}

/**
 * Problems that may pass, by their DIDComm v2 §Descriptors: internal errors and unavailable
 * resources (`me`, `me.res…`), transport (`xfer`), a timeout (`req.time`, not the
 * `req.time.expired` of an expired message) and a DID that did not resolve.
 */
export function isTransientProblem(code: string): boolean {
  const d = code.split('.').slice(2).join('.');
  return d === 'me' || d.startsWith('me.') || d === 'xfer' || d.startsWith('xfer.') || d === 'req.time' || d === 'did.not-resolved';
}

export interface SeenTracker {
  /**
   * Claims `key` for handling: 'claimed'; else 'handling' while another copy is being handled
   * (its outcome not known yet), or 'seen' when a copy's outcome was final within the window
   * (recorded under `key`, or under `former`: formerSeenKey).
   */
  claim(key: string, former?: string): Promise<'claimed' | 'handling' | 'seen'>;
  /** Ends handling of a claimed key; with `type`, marks it seen first (with the refusal, if any). Never throws. */
  finish(key: string, mark?: { type: unknown; refusal?: InboundRefusal }): Promise<void>;
  /** The refusal a seen key was marked with, if any (a copy of that message gets it too). Never throws. */
  refusalOf(key: string, former?: string): Promise<InboundRefusal | undefined>;
  /** Deletes seen records older than the window (when the collection can list and delete). */
  prune(): Promise<number>;
}

export function seenTracker(
  options: { seen?: SeenStore; seenRetentionMs?: number; seenPruneEvery?: number },
  clock: Clock,
  log: (level: LogLevel, msg: string, data?: Record<string, unknown>) => void,
): SeenTracker {
  const memory = new Map<string, SeenRecord>();
  const seen: SeenStore = options.seen ?? {
    get: async (k) => memory.get(k),
    put: async (k, v) => void memory.set(k, v),
  };
  const retention = options.seenRetentionMs ?? DEFAULT_SEEN_RETENTION_MS;
  const pruneEvery = Math.max(1, options.seenPruneEvery ?? DEFAULT_SEEN_PRUNE_EVERY);
  const inFlight = new Set<string>();
  let writes = 0;
  let pruning: Promise<number> | undefined;

  const stale = (rec: SeenRecord, now: number) => !(typeof rec.at === 'number' && now - rec.at < retention);

  async function prune(): Promise<number> {
    if (!Number.isFinite(retention)) return 0;
    const now = clock.now();
    if (!options.seen) {
      let n = 0;
      for (const [k, v] of memory) if (stale(v, now) && memory.delete(k)) n++;
      return n;
    }
    const { list, del } = seen;
    if (!list || !del) return 0;
    let removed = 0;
    let gt: string | undefined;
    for (;;) {
      const page = await list.call(seen, { ...(gt !== undefined ? { gt } : {}), limit: PAGE });
      for (const { key, value } of page) {
        if (!stale(value, now)) continue;
        await del.call(seen, key);
        removed++;
      }
      if (page.length < PAGE) return removed;
      gt = page[page.length - 1].key;
    }
  }

  /** Opportunistic: after every `pruneEvery` writes, one prune at a time; a failure only logs. */
  async function maybePrune(): Promise<void> {
    writes++;
    if (writes < pruneEvery || pruning) return;
    writes = 0;
    pruning = prune();
    try {
      const removed = await pruning;
      if (removed) log('debug', 'old seen records pruned', { removed });
    } catch (err) {
      log('warn', 'seen records prune failed', { code: toIdsyncError(err).code });
    } finally {
      pruning = undefined;
    }
  }

  return {
    async claim(key, former) {
      // Synchronously, before any await: a second copy arriving meanwhile finds the key taken.
      if (inFlight.has(key)) return 'handling';
      inFlight.add(key);
      try {
        const rec = (await seen.get(key)) ?? (former !== undefined ? await seen.get(former) : undefined);
        if (rec !== undefined && !stale(rec, clock.now())) {
          inFlight.delete(key);
          return 'seen';
        }
        return 'claimed';
      } catch (err) {
        inFlight.delete(key);
        throw err;
      }
    },

    async finish(key, mark) {
      try {
        if (mark) {
          await seen.put(key, { at: clock.now(), ...(typeof mark.type === 'string' ? { type: mark.type } : {}), ...(mark.refusal ? { refusal: mark.refusal } : {}) });
          await maybePrune();
        }
      } catch (err) {
        // The message was handled; only a replay of it would now be handled again.
        log('error', 'could not mark a message id as seen', { code: toIdsyncError(err).code });
      } finally {
        inFlight.delete(key);
      }
    },

    async refusalOf(key, former) {
      try {
        const r = ((await seen.get(key)) ?? (former !== undefined ? await seen.get(former) : undefined))?.refusal;
        return r && typeof r.code === 'string' ? r : undefined;
      } catch {
        return undefined;
      }
    },

    prune: () => prune(),
  };
}
