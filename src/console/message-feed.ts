// What the console knows of a party's DIDComm traffic beyond its message log: the log's records as
// they are written (store/messages.ts watchMessageLog), the packed form of each message seen since
// the console started (the router's events carry it; the log keeps only the plaintext), which send
// of a message a record is (a message sent again has one record per send), and the faults a fault
// switch applied, tied to the record of the message they hit where that record exists.
import { setBounded } from '../bounded.js';
import type { Clock } from '../clock.js';
import { messageLog, watchMessageLog, type LoggedMessage, type MessageLog } from '../store/messages.js';
import type { Store } from '../store/store.js';
import type { AppliedFault } from '../testing/fault-plan.js';

/** One packed message as it travelled, as a party's events tell it. */
export interface PackedSighting {
  direction: 'in' | 'out';
  /** The message id (absent when it could not be opened). */
  id?: string;
  packed: string;
}

export interface NotedFault extends AppliedFault {
  /** When the console saw it applied (ISO 8601). */
  at: string;
  /** The log record (its seq) of the message it hit, when that message was logged. */
  record?: string;
}

export type FeedEvent = { kind: 'record' | 'update'; message: LoggedMessage } | { kind: 'fault'; fault: NotedFault };

export interface MessageFeed {
  readonly log: MessageLog;
  /** The packed form of record `seq`, when the console saw it travel. */
  packed(seq: string): string | undefined;
  /** 1 for a message's first send or arrival, 2 and up when the same message id came again. */
  attempt(seq: string): number | undefined;
  faultsOf(seq: string): NotedFault[];
  /** The faults applied since the console started, oldest first (at most the last 1000). */
  faults(): NotedFault[];
  watch(listener: (e: FeedEvent) => void): () => void;
  close(): void;
}

export interface MessageFeedOptions {
  store: Store;
  clock: Clock;
  /** Subscribes to the party's packed messages; returns the unsubscribe function. */
  packedSource?: (listener: (p: PackedSighting) => void) => () => void;
  /** Subscribes to applied faults; returns the unsubscribe function. */
  faultSource?: (listener: (f: AppliedFault) => void) => () => void;
  /** The fault stream label of what this party sends (the service's: 'to-wallet'). */
  outboundLabel?: string;
  /** Packed forms kept (default 2000, the oldest go first). */
  maxPacked?: number;
}

const MAX_FAULTS = 1000;
const MAX_INDEX = 20_000;

export function messageFeed(o: MessageFeedOptions): MessageFeed {
  const log = messageLog(o.store, o.clock);
  const maxPacked = o.maxPacked ?? 2000;
  const packedBySeq = new Map<string, string>();
  // `${direction}:${id}` → the newest record of that message; and how many records it has had.
  const latest = new Map<string, string>();
  const sends = new Map<string, number>();
  const attempts = new Map<string, number>();
  const latestOutByType = new Map<string, string>();
  let lastUndecryptable: string | undefined;
  const faultsBySeq = new Map<string, NotedFault[]>();
  const faults: NotedFault[] = [];
  const listeners = new Set<(e: FeedEvent) => void>();
  const tell = (e: FeedEvent) => {
    for (const l of [...listeners]) l(e);
  };

  const onLog = watchMessageLog(o.store, (c) => {
    const m = c.message;
    const key = `${m.direction}:${m.id}`;
    if (c.kind === 'record') {
      setBounded(latest, key, m.seq, MAX_INDEX);
      const n = (sends.get(key) ?? 0) + 1;
      setBounded(sends, key, n, MAX_INDEX);
      setBounded(attempts, m.seq, n, MAX_INDEX);
      if (m.direction === 'out' && m.type) setBounded(latestOutByType, m.type, m.seq, 1000);
      if (m.result === 'undecryptable') lastUndecryptable = m.seq;
    }
    tell(c);
  });

  const offPacked = o.packedSource?.((p) => {
    let seq = p.id !== undefined ? latest.get(`${p.direction}:${p.id}`) : undefined;
    if (seq === undefined && p.direction === 'in' && lastUndecryptable !== undefined && !packedBySeq.has(lastUndecryptable)) seq = lastUndecryptable;
    if (seq !== undefined) setBounded(packedBySeq, seq, p.packed, maxPacked);
  });

  const offFaults = o.faultSource?.((f) => {
    // What this party sends is logged before it goes out: the fault hit its newest record of that type.
    const seq = f.direction === o.outboundLabel && f.type ? latestOutByType.get(f.type) : undefined;
    const noted: NotedFault = { ...f, at: new Date(o.clock.now()).toISOString(), ...(seq ? { record: seq } : {}) };
    faults.push(noted);
    if (faults.length > MAX_FAULTS) faults.shift();
    if (seq) setBounded(faultsBySeq, seq, [...(faultsBySeq.get(seq) ?? []), noted], MAX_FAULTS);
    tell({ kind: 'fault', fault: noted });
  });

  return {
    log,
    packed: (seq) => packedBySeq.get(seq),
    attempt: (seq) => attempts.get(seq),
    faultsOf: (seq) => faultsBySeq.get(seq) ?? [],
    faults: () => [...faults],
    watch(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    close() {
      onLog();
      offPacked?.();
      offFaults?.();
      listeners.clear();
    },
  };
}
