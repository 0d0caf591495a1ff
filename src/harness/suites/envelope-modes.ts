// Envelope modes (DIDComm v2.1 §IANA Media Types, §DIDComm Encrypted Messages, §DIDComm Signed
// Messages): a ping in each mode the spec names for one hop. The agent answers no weaker than it
// was asked (an authenticated, encrypted request gets an authenticated, encrypted answer). Refusing
// a mode the spec requires recipients to process (authcrypt and anoncrypt on X25519 with
// A256CBC-HS512, a JWS in General and in Flattened form) breaks that MUST; refusing one it leaves to
// the agent (plaintext, an anonymous sender, authcrypt around a signature) is a note. The case of the
// run's own mode runs first: its refusal blocks every case that would use it. One-layer modes run
// before the nested ones. A nested mode one of whose layers the agent refuses on its own is still
// tried (an answer passes it), but its refusal, or its silence (shown by a ping in a mode the agent
// answers, not waited out), blocks it: that layer's refusal is judged already, and says nothing of
// the nesting.
import type { PlainMessage } from '../../didcomm/types.js';
import type { PostOutcome, Received } from '../counterpart.js';
import { modePolicy, modeRequirement } from '../modes.js';
import { severityOf } from '../../conformance/catalogue.js';
import { describeAnswer, namesProtocol, refusalOf } from '../refusal.js';
import type { HarnessMode } from '../types.js';
import {
  answerTo, awaitAnswer, blocked, broke, inconclusive, inKindRules, messageRules, ok, ping, PING, PING_RESPONSE, PROBLEM_REPORT, recordRefusal, skipped, socketClosed, transportRules, unanswered, whatIsRefused,
  type CaseContext, type CaseDefinition, type CaseOutcome,
} from '../case-kit.js';

export const ENVELOPE_MODES: HarnessMode[] = ['authcrypt', 'signed', 'signed-flattened', 'anoncrypt', 'plaintext', 'anoncrypt-authcrypt', 'anoncrypt-signed', 'authcrypt-signed'];

/**
 * The one-layer modes a nested mode is made of, besides anoncrypt (whose refusal is the agent's
 * policy about anonymous senders, not about the authenticated layer inside it).
 */
const LAYERS_OF: Partial<Record<HarnessMode, HarnessMode[]>> = {
  'anoncrypt-authcrypt': ['authcrypt'],
  'anoncrypt-signed': ['signed'],
  'authcrypt-signed': ['authcrypt', 'signed'],
};

const SECTION = 'DIDComm Messaging v2.1 §IANA Media Types; §Curves and Content Encryption Algorithms; §DIDComm Signed Messages';
const URL = 'https://identity.foundation/didcomm-messaging/spec/v2.1/#iana-media-types';

const LAYERS: Record<HarnessMode, string> = {
  authcrypt: 'authcrypt(plaintext): ECDH-1PU+A256KW, X25519, A256CBC-HS512',
  'anoncrypt-authcrypt': 'anoncrypt(authcrypt(plaintext)): ECDH-ES+A256KW around ECDH-1PU+A256KW, X25519, A256CBC-HS512 both',
  'anoncrypt-signed': 'anoncrypt(sign(plaintext)): ECDH-ES+A256KW, X25519, A256CBC-HS512 around an EdDSA JWS',
  signed: 'sign(plaintext): an EdDSA JWS, General JSON serialization',
  'signed-flattened': 'sign(plaintext): an EdDSA JWS, Flattened JSON serialization',
  'authcrypt-signed': 'authcrypt(sign(plaintext)): ECDH-1PU+A256KW around an EdDSA JWS',
  anoncrypt: 'anoncrypt(plaintext): ECDH-ES+A256KW, X25519, A256CBC-HS512; the sender is not authenticated',
  plaintext: 'plaintext, no envelope',
};

/** A problem report that refuses the ping's type (not its envelope). */
const refusesType = (r: Received) => namesProtocol(`${String(r.message?.body?.code ?? '')} ${String(r.message?.body?.comment ?? '')}`, PING) || /unsupported|unrecogni/.test(String(r.message?.body?.code ?? ''));

/** The verdict on a refusal of `mode` (an HTTP 4xx or 5xx, or a problem report), `seq` the message that shows it. */
function refused(mode: HarnessMode, how: string, seq: number, before: CaseOutcome['broken'], clean = true): CaseOutcome {
  const required = modeRequirement(mode);
  if (required) return { broken: [...before, broke(required.rule, `the ${mode} ping was refused (${how}); ${required.quote}`, seq)] };
  return { broken: before, notes: [`${mode} refused${clean ? ' cleanly' : ''} (${how}): ${modePolicy(mode)}`] };
}

function envelopeCase(mode: HarnessMode): CaseDefinition {
  const required = modeRequirement(mode);
  return {
    id: `envelope/${mode}`,
    suite: 'envelope',
    title: required ? `A ping in ${mode} is taken and answered in kind (${severityOf(required.rule) === 'error' ? 'recipients must process' : 'the spec expects recipients to process'} ${mode})` : `A ping in ${mode} is answered in kind, or refused cleanly`,
    section: SECTION,
    url: URL,
    steps: [`send a ping packed ${LAYERS[mode]}`, 'wait for its ping-response, a problem report or an HTTP 4xx', required ? `a refusal breaks ${required.rule}; the response is no weaker than the ping` : 'a clean refusal is a note; a response is no weaker than the ping'],
    judges: [...(required ? [required.rule] : []), 'envelope.reply-in-kind', 'transport.no-server-error'],
    needs: [],
    async run(c) {
      const layer = refusedLayer(c, mode);
      const { message, outcome } = await ping(c, { mode, note: mode });
      const broken = transportRules(outcome, `the ${mode} ping`);
      if (outcome.errorKind === 'network') c.blocked.set('reachable', `the agent's endpoint could not be reached: ${outcome.error}`);
      if (outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300) c.accepted.add(mode);
      const first = refusalOf(outcome, mode, PING);
      // A refusal of a nesting whose layer is refused on its own is that refusal again, judged there.
      if (first && layer) return blocked(`the ${mode} ping was refused (${first.answer}); ${layer}`, broken);
      if (first) {
        // The ping or the envelope? Asked again with a query in the same envelope (whatIsRefused).
        const r = await whatIsRefused(c, first, PING);
        if (r === 'message' || r.kind === 'protocol') {
          recordRefusal(c, { ...first, kind: 'protocol' }, PING);
          return skipped(`the agent does not take trust-ping (${first.answer}): ${mode} cannot be judged by a ping`);
        }
        recordRefusal(c, r, PING);
        return refused(mode, r.answer, outcome.entry.seq, broken, !r.serverError);
      }
      const answer = layer ? await answerOrBarrier(c, message, outcome) : await answerOf(c, message, outcome);
      if (!answer) {
        if (layer) return blocked(`the ${mode} ping was taken (${outcome.entry.http ? describeAnswer(outcome.entry.http) : 'sent'}) and not answered; ${layer}`, broken);
        if (broken.length) return { broken };
        const why = unanswered(c, outcome);
        if (mode === c.mode) c.blocked.set('ping', `no answer to a ping in ${mode}${why} (envelope/${mode})`);
        return required ? inconclusive(`no answer to the ${mode} ping${why}`) : skipped(`no answer to the ${mode} ping${why}${socketClosed(outcome) ? '' : `: the agent ignores ${mode} messages, or takes long`}`);
      }
      if (answer.message!.type === PROBLEM_REPORT) {
        const code = String(answer.message!.body?.code);
        if (refusesType(answer)) {
          if (mode === c.mode) c.blocked.set('ping', `the agent refuses trust-ping: problem report ${code}`);
          return skipped(`the agent does not take trust-ping (problem report ${code}): ${mode} cannot be judged by a ping`);
        }
        c.blocked.set(`mode:${mode}`, `the agent refuses ${mode} messages: problem report ${code}`);
        return refused(mode, `problem report ${code}`, answer.entry.seq, [...broken, ...messageRules(answer, 'the problem report')]);
      }
      broken.push(...inKindRules(answer, 'the ping-response', mode));
      if (answer.message!.type !== PING_RESPONSE) broken.push(broke('trust-ping.response', `a ${String(answer.message!.type)} answered the ping`, answer.entry.seq));
      broken.push(...messageRules(answer, 'the ping-response'));
      if (answer.message!.type === PING_RESPONSE) c.answered.add(mode);
      return broken.length ? { broken } : ok();
    },
  };
}

/** Why a layer of nested `mode` is refused on its own (its envelope case blocked it), if one is. */
function refusedLayer(c: CaseContext, mode: HarnessMode): string | undefined {
  for (const layer of LAYERS_OF[mode] ?? []) {
    const reason = c.blocked.get(`mode:${layer}`);
    if (reason) return `${reason} (envelope/${layer}), and ${layer} is a layer of ${mode}`;
  }
  return undefined;
}

/**
 * The answer to a ping the agent may never answer (a layer of it is refused): once a ping in a
 * mode the agent was seen to answer has been answered too, the agent is done with it, so silence
 * is observed instead of waited out. Without such a mode, the ordinary wait.
 */
async function answerOrBarrier(c: CaseContext, message: PlainMessage, on: PostOutcome): Promise<Received | undefined> {
  const answered = ENVELOPE_MODES.find((m) => c.answered.has(m));
  if (!answered) return answerOf(c, message, on);
  const threaded = (r: Received) => r.message !== undefined && (r.message.thid === message.id || r.message.pthid === message.id);
  const bar = await ping(c, { mode: answered, note: `barrier in ${answered}: answered once the agent is done with the ${message.id} ping` });
  await answerTo(c, bar.message, PING_RESPONSE, bar.outcome);
  return c.cp.waitFor(threaded, 0);
}

/** What answered the ping: anything threaded to it, else a ping-response after it or a problem report about it. */
async function answerOf(c: CaseContext, message: PlainMessage, on: PostOutcome): Promise<Received | undefined> {
  return (
    (await c.cp.waitFor((r) => r.message !== undefined && (r.message.thid === message.id || r.message.pthid === message.id), 0)) ??
    (await Promise.race([answerTo(c, message, PING_RESPONSE, on), awaitAnswer(c, on, (r) => r.message?.type === PROBLEM_REPORT && r.message.pthid === message.id)]))
  );
}

export const ENVELOPE_MODE_CASES: CaseDefinition[] = ENVELOPE_MODES.map(envelopeCase);
