// What a durable step is called: the thread a message belongs to (a problem report names it in
// pthid, DIDComm v2 §Problem Reports), and a short step name from its type for crash points
// (`send:offer-credential`) and resend counts.
import { threadId } from '../../didcomm/message.js';
import type { PlainMessage } from '../../didcomm/types.js';
import { setBounded } from '../../bounded.js';

export const PROBLEM_REPORT = /\/report-problem\/2\.\d+\/problem-report$/;

/** Warnings and "I had that already" do not end a thread (DIDComm v2 §Problem Codes). */
export const nonEnding = (code: unknown): boolean => typeof code === 'string' && (code.startsWith('w.') || /^e\.p\.msg\.duplicate/.test(code));

/** The thread a message belongs to (a problem report names it in pthid). */
export function stepThread(message: PlainMessage): string {
  return PROBLEM_REPORT.test(String(message.type)) && message.pthid ? message.pthid : threadId(message);
}

/** Step names by message type: named at every tracked send (crash points), from a few types. */
const stepNames = new Map<string, string>();

/** The last path segment of the type, for crash point names: `send:offer-credential`. */
export function stepName(message: Pick<PlainMessage, 'type'>): string {
  const t = String(message.type);
  let step = stepNames.get(t);
  if (step === undefined) {
    const parts = t.split('/');
    const proto = parts.slice(-3, -2)[0] ?? '';
    const name = parts.pop() ?? t;
    // present-proof and issue-credential both have `ack`; data-pipe and pickup both have `request`-ish names.
    step = name === 'ack' || name === 'request' || name === 'close' ? `${proto}.${name}` : name;
    setBounded(stepNames, t, step, 64);
  }
  return step;
}

/**
 * Messages sent again, by every party of this thread, by step (`presentation`, `given-up:…`,
 * `redeliver:…`): a fleet run reports them, since under overload a retry adds load exactly when
 * the peer is saturated.
 */
export const resendTally = new Map<string, number>();
export const tally = (key: string): void => void resendTally.set(key, (resendTally.get(key) ?? 0) + 1);
