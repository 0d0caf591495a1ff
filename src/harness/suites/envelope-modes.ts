// Envelope modes (DIDComm v2.1 §Message Types, §DIDComm Encrypted Messages): a ping in each mode;
// the agent accepts the mode and answers no weaker than it was asked (an authenticated, encrypted
// request gets an authenticated, encrypted answer), or refuses the mode cleanly (then the case is
// skipped: refusing a mode is the agent's choice).
import type { EnvelopeMode } from '../../didcomm/types.js';
import { answerTo, broke, messageRules, ok, ping, PING_RESPONSE, PROBLEM_REPORT, skipped, transportRules, type CaseDefinition } from '../case-kit.js';

const MODES: Array<{ mode: EnvelopeMode; encrypted: boolean; authenticated: boolean }> = [
  { mode: 'authcrypt', encrypted: true, authenticated: true },
  { mode: 'anoncrypt-authcrypt', encrypted: true, authenticated: true },
  { mode: 'authcrypt-signed', encrypted: true, authenticated: true },
  { mode: 'signed', encrypted: false, authenticated: true },
  { mode: 'anoncrypt', encrypted: true, authenticated: false },
];

export const ENVELOPE_MODE_CASES: CaseDefinition[] = MODES.map(({ mode, encrypted, authenticated }) => ({
  id: `envelope/${mode}`,
  suite: 'envelope',
  title: `A ping in ${mode} is answered in kind, or the mode is refused cleanly`,
  section: 'DIDComm Messaging v2.1 §DIDComm Encrypted Messages',
  url: 'https://identity.foundation/didcomm-messaging/spec/v2.1/#didcomm-encrypted-messages',
  steps: [`send a ping packed ${mode}`, 'wait for its ping-response, a problem report or an HTTP 4xx', encrypted || authenticated ? `the response is ${[encrypted && 'encrypted', authenticated && 'authenticated'].filter(Boolean).join(' and ')}` : 'any answer is conformant'],
  async run(c) {
    const { message, outcome } = await ping(c, { mode, note: mode });
    const broken = transportRules(outcome, `the ${mode} ping`);
    if (outcome.status !== undefined && outcome.status >= 400 && outcome.status < 500) return skipped(`the agent refuses ${mode} (HTTP ${outcome.status})`);
    const answer =
      (await c.cp.waitFor((r) => r.message !== undefined && (r.message.thid === message.id || r.message.pthid === message.id), 0)) ??
      (await Promise.race([answerTo(c, message, PING_RESPONSE, outcome.entry.seq), c.cp.waitFor((r) => r.message?.type === PROBLEM_REPORT && r.message.pthid === message.id, c.timeoutMs)]));
    if (!answer) return broken.length ? { broken } : skipped(`no answer to the ${mode} ping within ${c.timeoutMs} ms: the agent does not take this mode`);
    if (answer.message!.type === PROBLEM_REPORT) return broken.length ? { broken } : skipped(`the agent refuses ${mode}: ${String(answer.message!.body.code)}`);
    const md = answer.check.metadata;
    const got = md ? { encrypted: md.encrypted, authenticated: md.authenticated || md.nonRepudiation } : { encrypted: false, authenticated: false };
    if ((encrypted && !got.encrypted) || (authenticated && !got.authenticated)) {
      broken.push(broke('envelope.reply-in-kind', `the ${mode} ping was answered ${md?.mode ?? answer.entry.mode}`, answer.entry.seq));
    }
    if (answer.message!.type !== PING_RESPONSE) broken.push(broke('trust-ping.response', `a ${String(answer.message!.type)} answered the ping`, answer.entry.seq));
    broken.push(...messageRules(answer, 'the ping-response'));
    return broken.length ? { broken } : ok();
  },
}));
