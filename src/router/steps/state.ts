// A thread's durable-step record: per thread, the peer's last message handled, the last message
// we sent (stored apart, under `<thread>\0<message id>`, written once and never re-encoded as the
// state moves) with the id of the peer's message it answered, the ids we sent, and — while we wait
// for the peer's answer — the deadline of the retries.
import type { EnvelopeMode, PlainMessage } from '../../didcomm/types.js';

/**
 * 'retry': the message waits for an answer; 'deliver': sent again only until the peer took it
 * (its answer may come from a person, much later); 'answer': kept to answer replays.
 */
export type StepKind = 'retry' | 'deliver' | 'answer';

export interface StepOut {
  message: PlainMessage;
  to: string;
  mode: EnvelopeMode;
  /** The id of the peer's message this one answered (the last one handled on the thread before it). */
  after?: string;
  sentAt: number;
}

/** A thread's record as its users see it: its state and its last message. */
export interface StepRecord {
  thid: string;
  /** The last message of the peer handled on this thread. */
  lastIn?: string;
  out?: StepOut;
  /**
   * While we wait for the peer: the retries' deadline (injected clock ms). Records written by
   * earlier versions also hold `attempts` and `nextAt`, which are not read: after a start every
   * pending step is due at once.
   */
  retry?: { deadlineAt: number; attempts?: number; nextAt?: number };
  /** The deadline passed without an answer. */
  givenUp?: boolean;
  /** Ids of the messages we sent on this thread (the last few): sending one again is a resend, never a new step. */
  sent?: string[];
  /** When the record last changed (injected clock ms): a record nothing waits on is deleted `keepMs` after. */
  at?: number;
}

/**
 * A thread's record as stored: its last message is named by `last` and kept apart (records
 * written by earlier versions may hold it inline in `out`).
 */
export interface StepState extends Omit<StepRecord, 'out'> {
  out?: StepOut;
  /** The last message we sent on the thread (stored apart), the id of the peer's message it answered, and whom it went to. */
  last?: { id: string; after?: string; to?: string };
}

/** Where a thread's last message is kept. */
export const outKey = (thid: string, id: string): string => `${thid}\u0000${id}`;

/** The last message a state names: its id and the peer's message it answered. */
export function lastOf(s: StepState): { id: string; after?: string; to?: string } | undefined {
  if (s.last) return s.last;
  return s.out ? { id: s.out.message.id, ...(s.out.after !== undefined ? { after: s.out.after } : {}), to: s.out.to } : undefined;
}

/** `s` without its last message (neither named nor inline). */
export function withoutLast(s: StepState): StepState {
  const { out: _out, last: _last, ...rest } = s;
  return rest;
}
