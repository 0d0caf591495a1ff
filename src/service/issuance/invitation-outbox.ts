// The outbox: every invitation the service sends, on any channel, is recorded here first and
// then updated with the transport's outcome, so nothing sent is lost and a test can pick an
// invitation up (GET /dev/outbox?to=…, or `next()`/`waitFor()` without sleeping).
import { isoNow } from '../../clock.js';
import { EventEmitter } from 'node:events';
import type { Clock, IdGenerator } from '../../clock.js';
import { IdsyncError } from '../../errors.js';
import type { BatchOp, Store } from '../../store/store.js';
import { timeKey } from '../../store/time-key.js';

export const OUTBOX = 'outbox';
/** Entry id → its key in OUTBOX. */
export const OUTBOX_BY_ID = 'outbox-by-id';
/** `<workflow id>\0<key>` and `<target>\0<key>` (the address as matched, targetKey) → the key in OUTBOX. */
export const OUTBOX_BY_WORKFLOW = 'outbox-by-workflow';
export const OUTBOX_BY_TARGET = 'outbox-by-target';

export type OutboxChannel = 'DIDCOMM' | 'EMAIL' | 'SMS';

/**
 * pending: recorded, transport not finished (for DIDCOMM also a send the service dropped and
 * makes again from the invitation's step: its entry is not updated when that one gets through); sent: accepted by SMTP / the SMS gateway / the
 * DIDComm endpoint; queued: DIDComm message waiting for pickup; recorded: no transport
 * configured (dev), only recorded; failed: the transport refused or was unreachable (`error`).
 */
export type OutboxStatus = 'pending' | 'sent' | 'queued' | 'recorded' | 'failed';

/** What a sender records: the message and where it goes. */
export interface OutboxInput {
  channel: OutboxChannel;
  to: string;
  subject?: string;
  text: string;
  invitationUrl: string;
  workflowId?: string;
  tenantId?: string;
  status?: OutboxStatus;
}

/** A recorded message: the input, its id, times, and what its transport made of it. */
export interface OutboxEntry extends Omit<OutboxInput, 'status'> {
  id: string;
  sentAt: string;
  status: OutboxStatus;
  error?: { code: string; message: string };
  /** Transport reference, e.g. the SMTP message id. */
  messageId?: string;
  updatedAt: string;
}

export interface OutboxFilter {
  to?: string;
  channel?: OutboxChannel;
  workflowId?: string;
  tenantId?: string;
}

export type OutboxPatch = Partial<Pick<OutboxEntry, 'status' | 'error' | 'messageId'>>;

export interface Outbox {
  record(input: OutboxInput): Promise<OutboxEntry>;
  update(id: string, patch: OutboxPatch): Promise<OutboxEntry>;
  get(id: string): Promise<OutboxEntry | undefined>;
  /** Oldest first. */
  list(filter?: OutboxFilter & { limit?: number }): Promise<OutboxEntry[]>;
  /** The next entry recorded after this call that matches. */
  next(filter?: OutboxFilter, options?: { signal?: AbortSignal }): Promise<OutboxEntry>;
  /** The latest matching entry already recorded, else the next one. */
  waitFor(filter?: OutboxFilter, options?: { signal?: AbortSignal }): Promise<OutboxEntry>;
  on(name: 'entry' | 'update', listener: (e: OutboxEntry) => void): void;
  off(name: 'entry' | 'update', listener: (e: OutboxEntry) => void): void;
}

// E-mail addresses compare case-insensitively and phone numbers without separators;
// DIDs compare exactly (their method-specific ids are case-sensitive).
function targetKey(to: string): string {
  if (to.startsWith('did:')) return to;
  if (to.includes('@')) return to.toLowerCase();
  return to.replace(/[\s\-().]/g, '');
}

export function matchesOutbox(e: OutboxEntry, f: OutboxFilter = {}): boolean {
  return (
    (f.to === undefined || targetKey(e.to) === targetKey(f.to)) &&
    (f.channel === undefined || e.channel === f.channel) &&
    (f.workflowId === undefined || e.workflowId === f.workflowId) &&
    (f.tenantId === undefined || e.tenantId === f.tenantId)
  );
}


export function createOutbox(deps: { store: Store; clock: Clock; ids: IdGenerator }): Outbox {
  const col = deps.store.collection<OutboxEntry>(OUTBOX);
  const byId = deps.store.collection<string>(OUTBOX_BY_ID);
  const byWorkflow = deps.store.collection<string>(OUTBOX_BY_WORKFLOW);
  const byTarget = deps.store.collection<string>(OUTBOX_BY_TARGET);
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  // Keys sort by time, then by a per-process counter so entries of one millisecond keep order.
  let seq = 0;

  /** The index entries of `entry` under `key`, written in the entry's batch. */
  const indexOps = (entry: OutboxEntry, key: string): BatchOp[] => [
    { type: 'put', collection: OUTBOX_BY_ID, key: entry.id, value: key },
    { type: 'put', collection: OUTBOX_BY_TARGET, key: `${targetKey(entry.to)}\u0000${key}`, value: key },
    ...(entry.workflowId !== undefined ? [{ type: 'put' as const, collection: OUTBOX_BY_WORKFLOW, key: `${entry.workflowId}\u0000${key}`, value: key }] : []),
  ];

  // A store written before the indexes has entries they lack: this process indexes them once,
  // before its first lookup (a test asking for one workflow's e-mail then reads that entry, not
  // the whole outbox: each flow of a fleet did, a quadratic run).
  let indexed: Promise<void> | undefined;
  const ready = (): Promise<void> =>
    (indexed ??= (async () => {
      const [count, known] = await Promise.all([col.count(), byId.count()]);
      if (known >= count) return;
      const ops = (await col.list()).flatMap((e) => indexOps(e.value, e.key));
      if (ops.length) await deps.store.batch(ops);
    })().catch((err: unknown) => {
      indexed = undefined;
      throw err;
    }));

  async function keyOf(id: string): Promise<string | undefined> {
    await ready();
    return byId.get(id);
  }

  /** The entries under the keys `index` holds for `prefix`, oldest first. */
  async function byIndex(index: typeof byId, prefix: string): Promise<OutboxEntry[]> {
    await ready();
    const keys = (await index.list({ prefix: `${prefix}\u0000` })).map((e) => e.value);
    const entries = await Promise.all(keys.map((k) => col.get(k)));
    return entries.filter((e): e is OutboxEntry => e !== undefined);
  }

  function waitNext(filter: OutboxFilter, signal?: AbortSignal): { promise: Promise<OutboxEntry>; cancel(): void } {
    let listener: (e: OutboxEntry) => void = () => {};
    let onAbort = () => {};
    const cancel = () => {
      emitter.off('entry', listener);
      signal?.removeEventListener('abort', onAbort);
    };
    const promise = new Promise<OutboxEntry>((resolve, reject) => {
      onAbort = () => {
        cancel();
        reject(new IdsyncError('aborted', 'stopped waiting for an outbox entry', { cause: signal?.reason }));
      };
      listener = (e: OutboxEntry) => {
        if (!matchesOutbox(e, filter)) return;
        cancel();
        resolve(e);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      emitter.on('entry', listener);
    });
    return { promise, cancel };
  }

  const outbox: Outbox = {
    async record(input) {
      const now = deps.clock.now();
      const at = new Date(now).toISOString();
      const entry: OutboxEntry = {
        id: deps.ids(),
        channel: input.channel,
        to: input.to,
        text: input.text,
        invitationUrl: input.invitationUrl,
        sentAt: at,
        status: input.status ?? 'pending',
        updatedAt: at,
      };
      if (input.subject !== undefined) entry.subject = input.subject;
      if (input.workflowId !== undefined) entry.workflowId = input.workflowId;
      if (input.tenantId !== undefined) entry.tenantId = input.tenantId;
      const key = `${timeKey(now)}:${String(seq++ % 1e9).padStart(9, '0')}:${entry.id}`;
      await ready();
      await deps.store.batch([{ type: 'put', collection: OUTBOX, key, value: entry }, ...indexOps(entry, key)]);
      emitter.emit('entry', entry);
      return entry;
    },
    async update(id, patch) {
      const key = await keyOf(id);
      const old = key ? await col.get(key) : undefined;
      if (!key || !old) throw new IdsyncError('not_found', `no outbox entry ${id}`);
      const next: OutboxEntry = { ...old, ...patch, updatedAt: isoNow(deps.clock) };
      if (patch.status && patch.status !== 'failed' && !patch.error) delete next.error;
      await col.put(key, next);
      emitter.emit('update', next);
      return next;
    },
    async get(id) {
      const key = await keyOf(id);
      return key ? col.get(key) : undefined;
    },
    async list(filter = {}) {
      // One workflow's or one address's entries are read by their index; only a listing of everything reads everything.
      const candidates =
        filter.workflowId !== undefined ? await byIndex(byWorkflow, filter.workflowId)
        : filter.to !== undefined ? await byIndex(byTarget, targetKey(filter.to))
        : (await col.list()).map((e) => e.value);
      const all = candidates.filter((e) => matchesOutbox(e, filter));
      return filter.limit !== undefined ? all.slice(-filter.limit) : all;
    },
    next: (filter = {}, options = {}) => waitNext(filter, options.signal).promise,
    async waitFor(filter = {}, options = {}) {
      // Listen first so an entry recorded while we read the store is not missed.
      const pending = waitNext(filter, options.signal);
      const existing = (await outbox.list(filter)).at(-1);
      if (existing) {
        pending.cancel();
        return existing;
      }
      return pending.promise;
    },
    on: (name, listener) => void emitter.on(name, listener),
    off: (name, listener) => void emitter.off(name, listener),
  };
  return outbox;
}
