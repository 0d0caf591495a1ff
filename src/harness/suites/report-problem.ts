// Bad input (DIDComm v2.1 §Problem Reports, §Message Headers, §Message IDs, §DIDComm Encrypted
// Messages): an unknown message type, a message without id, an expired message, a tampered
// ciphertext, a message for another recipient, junk. The agent refuses each — with a problem report
// threaded to it when the sender is known and reachable, or with an HTTP 4xx — never acts on it,
// and never answers 5xx. A replayed message is sent too: v2.1 only makes ids unique to their
// sender, so answering a replay again is advice against (idsync's profile), never a failure.
import { createPeerDid } from '../../did/peer.js';
import type { PlainMessage } from '../../didcomm/types.js';
import { MEDIA_TYPES } from '../../didcomm/types.js';
import { MAX_REDIRECTS } from '../agent-link.js';
import type { PostOutcome, RawMode } from '../counterpart.js';
import { isEncrypted } from '../modes.js';
import {
  answerTo, barrier, broke, inconclusive, ok, ordinary, ping, PING, PING_RESPONSE, problemAbout, problemRules, PROBLEM_REPORT, skipped, transportRules, unanswered,
  type BrokenRuleList, type CaseContext, type CaseDefinition, type CaseOutcome,
} from '../case-kit.js';

const SECTION = 'DIDComm Messaging v2.1 §Problem Reports';
const URL = 'https://identity.foundation/didcomm-messaging/spec/v2.1/#problem-reports';

/**
 * A refusal the sender can be told of: a problem report threaded to `sent` (checked), or an HTTP
 * 4xx. Silence (2xx and nothing) is a SHOULD broken; a 5xx a MUST.
 */
async function expectRefusal(c: CaseContext, sent: PlainMessage, outcome: PostOutcome, what: string): Promise<BrokenRuleList> {
  const broken = transportRules(outcome, what);
  if (outcome.error !== undefined) return broken;
  // An HTTP 4xx tells the sender; a WebSocket frame has no status, so only a report can.
  if (outcome.status !== undefined && outcome.status >= 400) return broken;
  const report = await problemAbout(c, sent, outcome);
  if (!report) broken.push(broke('report-problem.reply', `${what} was accepted (${outcome.status !== undefined ? `HTTP ${outcome.status}` : 'WebSocket'}) and no problem report came${unanswered(c, outcome)}`, outcome.entry.seq));
  else broken.push(...problemRules(report, sent));
  return broken;
}

/** After a barrier: the agent must not have acted on `sent` (no answer threaded to it but a problem report). */
async function notActedOn(c: CaseContext, sent: PlainMessage, rule: string, what: string): Promise<BrokenRuleList | undefined> {
  if (!(await barrier(c))) return undefined;
  const acted = c.cp.received.find((r) => r.message?.thid === sent.id && r.message.type !== PROBLEM_REPORT);
  return acted ? [broke(rule, `${what}, yet it was answered with ${String(acted.message!.type)}`, acted.entry.seq)] : [];
}

function done(broken: BrokenRuleList | undefined, before: BrokenRuleList, notes: string[] = []): CaseOutcome {
  if (broken === undefined) return inconclusive('the barrier ping went unanswered: whether the agent acted on the message cannot be observed', before);
  const all = [...before, ...broken];
  return all.length ? { broken: all, ...(notes.length ? { notes } : {}) } : ok(notes);
}

/** The envelope a message idsync refuses to pack goes in: the run's mode if it can, else the first the agent is not known to refuse. */
function rawModeFor(c: CaseContext): RawMode | undefined {
  const raw: RawMode[] = ['authcrypt', 'anoncrypt', 'plaintext'];
  const candidates = raw.includes(c.mode as RawMode) ? [c.mode as RawMode] : raw;
  return candidates.find((m) => !c.blocked.has(`mode:${m}`));
}

/** Tampering and misaddressing need a ciphertext: skipped when the run's mode has none. */
const needsEncryption = (c: CaseContext) => (isEncrypted(c.mode) ? undefined : skipped(`the run's mode ${c.mode} has no ciphertext to tamper with or to encrypt for someone else`));

function flipOne(text: string, member: 'ciphertext'): string {
  const jwe = JSON.parse(text) as Record<string, string>;
  const v = jwe[member]!;
  const i = Math.floor(v.length / 2);
  jwe[member] = v.slice(0, i) + (v[i] === 'A' ? 'B' : 'A') + v.slice(i + 1);
  return JSON.stringify(jwe);
}

const rp = (id: string, title: string, steps: string[], judges: string[], run: CaseDefinition['run'], needs: CaseDefinition['needs'] = ['mode', 'ping']): CaseDefinition => ({ id, suite: 'report-problem', title, section: SECTION, url: URL, steps, judges, needs, run });

export const REPORT_PROBLEM_CASES: CaseDefinition[] = [
  rp('report-problem/unknown-type', 'A message of an unknown type is refused with a problem report threaded to it',
    ['send a message of a type no agent supports, in the run\'s mode', 'wait for a problem report (or an HTTP 4xx)', 'its pthid is the thread of the message; it is itself conformant'],
    ['report-problem.reply', 'report-problem.pthid-thread'],
    async (c) => {
      const sent = c.cp.draft('https://didcomm.org/idsync-conformance-unknown/1.0/nothing', {});
      const outcome = await c.cp.send(sent, { mode: c.mode, note: 'a type no agent supports' });
      const broken = await expectRefusal(c, sent, outcome, 'the message of an unknown type');
      return broken.length ? { broken } : ok();
    }, ['mode']),
  rp('report-problem/missing-header', 'A message without the required id header is not acted on',
    ['send a ping that has no id, in the run\'s mode (DIDComm v2.1 §Message IDs: such a message "MUST NOT be interpreted as part of a multi-message interaction")', 'send a barrier ping and wait for its response', 'no ping-response answered the ping without id; no 5xx'],
    ['plaintext.id-missing-refused', 'transport.no-server-error'],
    async (c) => {
      const sent = c.cp.draft(PING, { response_requested: true });
      const { id: _id, ...withoutId } = sent;
      // idsync's packer refuses to write a message without id: it is encrypted (or posted plain) by
      // hand, in the run's mode when it can be, else in one the agent is not known to refuse (a
      // refusal of the envelope would pass for a refusal of the missing id).
      const mode = rawModeFor(c);
      if (!mode) return skipped(`a message without id can be sent in authcrypt, anoncrypt or plaintext only, and the agent refuses all three (${c.blocked.get('mode:authcrypt')})`);
      const outcome = await c.cp.sendRaw(JSON.stringify(withoutId), 'no id header', { type: sent.type }, mode);
      const before = transportRules(outcome, 'the ping without id');
      const notes = mode !== c.mode ? [`sent ${mode === 'plaintext' ? 'as plaintext' : `${mode}ed`}: idsync cannot pack a message without id in the run's mode ${c.mode}`] : [];
      if (!(await barrier(c))) return done(undefined, before);
      // An answer to it cannot be threaded to an id it lacks: the ping-responses after it, less the
      // barrier's (threaded to the barrier, or, from an agent that threads wrongly, one of them).
      const barrierId = c.cp.log.filter((e) => e.direction === 'sent' && e.type === PING).at(-1)!.id;
      const after = c.cp.received.filter((r) => r.message?.type === PING_RESPONSE && r.entry.seq > outcome.entry.seq);
      const others = after.some((r) => r.message!.thid === barrierId) ? after.filter((r) => r.message!.thid !== barrierId) : after.slice(1);
      const acted = others[0];
      return done(acted ? [broke('plaintext.id-missing-refused', `a ping without id was answered with a ping-response (thid ${String(acted.message!.thid)})`, acted.entry.seq)] : [], before, notes);
    }),
  rp('report-problem/expired', 'An expired message is refused, not acted on',
    ['send a ping whose expires_time has passed', 'wait for a problem report (or an HTTP 4xx)', 'after a barrier ping: no ping-response answered it'],
    ['report-problem.reply', 'plaintext.expires_time-honoured'],
    async (c) => {
      const now = Math.floor(Date.now() / 1000);
      const { message, outcome } = await ping(c, { extra: { created_time: now - 120, expires_time: now - 60 }, note: 'expired a minute ago' });
      const refusal = await expectRefusal(c, message, outcome, 'the expired ping');
      return done(await notActedOn(c, message, 'plaintext.expires_time-honoured', 'the ping had expired'), refusal);
    }),
  rp('report-problem/replayed-id', 'A replayed message id: answering it again is advice against (idsync profile), never a failure',
    ['send a ping and wait for its response', 'send the very same packed message again', 'after a barrier ping: count the ping-responses to that id (DIDComm v2.1 §Message Headers makes ids "unique to the sender"; a receiver need not refuse a replay)'],
    ['plaintext.id-replayed', 'transport.no-server-error'],
    async (c) => {
      const first = c.cp.draft(PING, { response_requested: true });
      const o1 = await c.cp.send(first, { mode: c.mode });
      await ordinary(c, o1, first, 'the ping');
      const answered = await answerTo(c, first, PING_RESPONSE, o1);
      if (!answered) return inconclusive(`the first ping went unanswered${unanswered(c, o1)}`, transportRules(o1, 'the ping'));
      const o2 = await c.cp.send(first, { mode: c.mode, note: 'the same id again (a replay)' });
      const before = [...transportRules(o1, 'the ping'), ...transportRules(o2, 'the replay')];
      if (!(await barrier(c))) return inconclusive('the barrier ping went unanswered', before);
      // Responses after the first answer and before the barrier's: answers to the replay, however threaded.
      const barrierSent = c.cp.log.filter((e) => e.direction === 'sent' && e.type === PING).at(-1)!.seq;
      const answers = c.cp.received.filter((r) => r.message?.type === PING_RESPONSE && (r.message.thid === first.id || (r.entry.seq > answered.entry.seq && r.entry.seq < barrierSent)));
      const refusedReplay = o2.status !== undefined && o2.status >= 400 && o2.status < 500 ? `refused with HTTP ${o2.status}` : undefined;
      // Answering a replay breaks no RFC 2119 keyword of v2.1: idsync's profile advises dropping it (advice).
      const again = answers.length > 1 ? [broke('plaintext.id-replayed', `the replay of ${first.id} was answered again (${answers.length} ping-responses)`, answers.at(-1)!.entry.seq)] : [];
      const note = answers.length > 1 ? `the replay was answered again (${answers.length} ping-responses)` : `the replay was not answered again${refusedReplay ? ` (${refusedReplay})` : ''}`;
      return done(again, before, [note]);
    }),
  rp('report-problem/tampered', 'A message whose ciphertext was changed is refused, never acted on',
    ['pack a ping in the run\'s (encrypted) mode and change one character of its ciphertext', 'send it: a 2xx or 4xx, not 5xx', 'after a barrier ping: nothing answered it'],
    ['envelope.tampered-refused'],
    async (c) => {
      const skip = needsEncryption(c);
      if (skip) return skip;
      const { message, outcome } = await ping(c, { mangle: (p) => flipOne(p, 'ciphertext'), note: 'ciphertext tampered' });
      return done(await notActedOn(c, message, 'envelope.tampered-refused', 'the ciphertext had been changed'), transportRules(outcome, 'the tampered message'));
    }),
  rp('report-problem/wrong-recipient', 'A message encrypted for another recipient is refused, never acted on',
    ['pack a ping in the run\'s (encrypted) mode to another DID\'s keys and post it to the agent', 'a 2xx or 4xx, not 5xx', 'after a barrier ping: nothing answered it'],
    ['envelope.tampered-refused'],
    async (c) => {
      const skip = needsEncryption(c);
      if (skip) return skip;
      const other = createPeerDid({});
      const resolve = c.cp.ctx.resolve;
      c.cp.ctx.resolve = async (did) => (did === other.did ? other.document : resolve(did));
      try {
        const sent = c.cp.draft(PING, { response_requested: true }, { to: [other.did] });
        const outcome = await c.cp.send(sent, { mode: c.mode, to: other.did, note: `encrypted for ${other.did.slice(0, 24)}…` });
        return done(await notActedOn(c, sent, 'envelope.tampered-refused', 'the message was encrypted for someone else'), transportRules(outcome, 'the message for another recipient'));
      } finally {
        c.cp.ctx.resolve = resolve;
      }
    }),
  { ...rp('transport/junk', 'Junk posted to the endpoint is refused with a 4xx, not a 5xx',
    ['POST a body that is not JSON with the encrypted media type', 'POST a JSON object that is no DIDComm message', 'POST an empty body', 'each is answered 2xx or 4xx'],
    ['transport.no-server-error', 'transport.redirect-temporary'],
    async (c) => {
      const broken = [];
      const redirected: string[] = [];
      for (const [text, note] of [['this is not a DIDComm message', 'not JSON'], ['{"hello":"world"}', 'JSON, not DIDComm'], ['', 'empty body']] as const) {
        const outcome = await c.cp.post(text, MEDIA_TYPES.encrypted, { note });
        broken.push(...transportRules(outcome, `junk (${note})`));
        if (outcome.status !== undefined && outcome.status >= 300 && outcome.status < 400) redirected.push(`${note}: HTTP ${outcome.status}${outcome.redirects?.length ? ` after ${outcome.redirects.length} redirects followed` : ''}`);
      }
      if (broken.some((b) => b.rule !== 'transport.redirect-temporary')) return { broken };
      // A redirect the harness does not follow (§Transports HTTPS: "HTTPS Redirects SHOULD be
      // followed. Only temporary redirects (307) are acceptable."; it follows a 307) is neither
      // the refusal the case looks for nor a fault: the endpoint's handling of junk was not seen.
      return redirected.length ? inconclusive(`the endpoint redirected instead of answering (${redirected.join('; ')}); the harness follows a 307 up to ${MAX_REDIRECTS} times, and no other redirect`, broken) : ok();
    }, []), suite: 'transport' },
];
