// Every message the agent sends during a run is judged, and counted in a verdict: its catalogue
// findings (check.ts ran on it as it arrived) go to the case it belongs to — the case whose
// message it answers (by thid or pthid), else the case during which it arrived — or, when that case
// has already ended, to the run-level case `run/sent-messages`, which also judges what only the
// whole run shows: two different messages from the agent with one id (DIDComm v2.1 §Message
// Headers: `id` "MUST be unique to the sender, across all messages they send").
import { createSenderIdCheck } from '../conformance/sender-ids.js';
import type { PlainMessage } from '../didcomm/types.js';
import { broke } from './case-kit.js';
import type { BrokenRule, CaseInfo, ExchangedMessage, RunProfile } from './types.js';

export const RUN_CASE: CaseInfo = {
  id: 'run/sent-messages',
  suite: 'run',
  title: 'Everything the agent sent during the run conforms, and no two of its messages share an id',
  section: 'DIDComm Messaging v2.1 §Message Headers',
  url: 'https://identity.foundation/didcomm-messaging/spec/v2.1/#message-headers',
  steps: [
    'every message the agent sent (answers, problem reports, return-routed bodies, messages idsync could not open) was checked against the catalogue as it arrived',
    'what arrived after its own case had ended is judged here',
    'two different messages from the agent with one id break plaintext.id-unique',
  ],
  judges: ['plaintext.id-unique'],
};

/** Which case owns what: the ids of the messages each case sent. */
export class MessageOwners {
  private readonly bySentId = new Map<string, string>();

  /** Records the messages a case sent (ids and threads it started). */
  addSent(caseId: string, entries: ExchangedMessage[]): void {
    for (const e of entries) {
      if (e.direction !== 'sent') continue;
      if (e.id && !this.bySentId.has(e.id)) this.bySentId.set(e.id, caseId);
      if (e.thid && !this.bySentId.has(e.thid)) this.bySentId.set(e.thid, caseId);
    }
  }

  /** The case whose message `e` answers, if any. */
  ownerOf(e: ExchangedMessage): string | undefined {
    return (e.thid && this.bySentId.get(e.thid)) || (e.pthid && this.bySentId.get(e.pthid)) || undefined;
  }
}

/** The broken rules of `e`'s findings not yet in `already` (same rule on the same message). */
export function findingsOf(e: ExchangedMessage, already: BrokenRule[]): BrokenRule[] {
  const have = new Set(already.map((b) => `${b.rule}@${b.seq ?? ''}`));
  const what = `${e.via === 'return-route' ? 'the return-routed ' : ''}message #${e.seq}${e.type ? ` (${e.type.split('/').slice(-3).join('/')})` : ' (not opened)'}`;
  return (e.findings ?? []).filter((f) => !have.has(`${f.rule}@${e.seq}`)).map((f) => ({ rule: f.rule, severity: f.severity, detail: `${what}: ${f.detail}`, seq: e.seq }));
}

/**
 * Splits the messages the agent sent during a case (`window`) into the case's own and those of a
 * case that has ended. A case that sent nothing (blocked, skipped at once) owns nothing: what
 * arrives then belongs to the run.
 */
export function attribute(caseId: string, window: ExchangedMessage[], owners: MessageOwners): { own: ExchangedMessage[]; late: ExchangedMessage[] } {
  const sentSomething = window.some((e) => e.direction === 'sent');
  const own: ExchangedMessage[] = [];
  const late: ExchangedMessage[] = [];
  for (const e of window) {
    if (e.direction !== 'received') continue;
    const owner = owners.ownerOf(e);
    if (sentSomething && (owner === undefined || owner === caseId)) own.push(e);
    else late.push(e);
  }
  return { own, late };
}

/**
 * Two different messages from the agent with one id (conformance/sender-ids.ts compares their
 * content, whatever the order of its members; the same message sent again is no fault).
 */
export function reusedIds(received: ExchangedMessage[]): BrokenRule[] {
  const ids = createSenderIdCheck();
  const firstSeq = new Map<string, ExchangedMessage>();
  const out: BrokenRule[] = [];
  for (const e of received) {
    if (e.direction !== 'received' || !e.id || e.plaintext === undefined) continue;
    let message: PlainMessage;
    try {
      message = JSON.parse(e.plaintext) as PlainMessage;
    } catch {
      continue;
    }
    // One sender: the agent under test, whatever its messages say in from.
    const result = ids.check(message, 'the agent');
    if (!firstSeq.has(e.id)) firstSeq.set(e.id, e);
    if (result && !result.ok) {
      const first = firstSeq.get(e.id)!;
      out.push(broke('plaintext.id-unique', `messages #${first.seq} (${first.type ?? '?'}) and #${e.seq} (${e.type ?? '?'}) are different messages with one id, ${e.id}`, e.seq));
    }
  }
  return out;
}

/** Whether a broken rule fails a case under `profile`: a MUST always; under strict, every rule. */
export function fails(b: BrokenRule, profile: RunProfile = 'liberal'): boolean {
  return profile === 'strict' || b.severity === 'error';
}
