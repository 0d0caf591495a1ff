// Discover Features 2.0 (DIDComm v2.1 §Discover Features Protocol 2.0): queries are answered by a
// disclose threaded to them, and what is disclosed is really supported — each disclosed protocol
// idsync speaks is tried with a harmless first message (probes.ts), which must not be refused as
// unsupported, by a problem report or by an HTTP 4xx naming it. DIDComm v2.1 does not require an
// agent to speak the protocol (implementers "are *strongly* encouraged to implement support for this
// message"), so an agent that takes the queries and never answers them is skipped, not judged: once
// a ping sent after the queries has been answered, its silence is observed rather than waited out.
import { parseMessageType } from '../../didcomm/message.js';
import type { PlainMessage } from '../../didcomm/types.js';
import { awaitAnswer, barrier, broke, DISCLOSE, inconclusive, messageRules, ordinary, PROBLEM_REPORT, QUERIES, skipped, transportRules, unanswered, verdict, type CaseContext, type CaseDefinition } from '../case-kit.js';
import type { PostOutcome, Received } from '../counterpart.js';
import { clientError, describeAnswer, namesProtocol } from '../refusal.js';
import { PROBES } from './probes.js';

const SECTION = 'DIDComm Messaging v2.1 §Discover Features Protocol 2.0';
const URL = 'https://identity.foundation/didcomm-messaging/spec/v2.1/#discover-features-protocol-20';

/** The key under which CaseContext.blocked keeps why no disclose came, for the cases that need one. */
const NO_DISCLOSE = 'disclose';

/** Why an agent that never answered queries is not judged on discover-features. */
const NOT_REQUIRED = 'DIDComm v2.1 does not require discover-features (§Discover Features Protocol 2.0: implementers of agents "are *strongly* encouraged to implement support for this message")';

async function disclose(c: CaseContext): Promise<{ query: PlainMessage; answer?: Received; broken: ReturnType<typeof transportRules> }> {
  const query = c.cp.draft(QUERIES, { queries: [{ 'feature-type': 'protocol', match: '*' }] });
  const outcome = await c.cp.send(query, { mode: c.mode });
  await ordinary(c, outcome, query, 'the queries');
  const broken = transportRules(outcome, 'the queries');
  const isDisclose = (r: Received) => r.message?.type === DISCLOSE && r.message.thid === query.id;
  let answer = await c.cp.waitFor(isDisclose, 0);
  if (!answer) {
    // A barrier ping shows the silence; it waits out the timeout itself when it goes unanswered.
    const tried = !c.blocked.has('ping');
    const observed = tried && (await barrier(c));
    answer = await awaitAnswer(c, outcome, isDisclose, tried ? 0 : c.timeoutMs);
    const took = `the agent took the queries (${outcome.entry.http ? describeAnswer(outcome.entry.http) : 'sent'})`;
    if (!answer) c.blocked.set(NO_DISCLOSE, `${observed ? `${took} and answered a ping sent after them, but not the queries` : `no disclose${unanswered(c, outcome)}`}: ${NOT_REQUIRED}`);
  }
  return { query, ...(answer ? { answer } : {}), broken };
}

/** The protocols of a disclose, with their roles when given. */
export function disclosedProtocols(answer: Received): Array<{ id: string; roles?: string[] }> {
  const list = answer.message?.body?.disclosures;
  if (!Array.isArray(list)) return [];
  return list
    .filter((d) => d?.['feature-type'] === 'protocol' && typeof d.id === 'string')
    .map((d) => ({ id: d.id as string, ...(Array.isArray(d.roles) ? { roles: d.roles as string[] } : {}) }));
}

/** `https://didcomm.org/trust-ping/2.0` → `https://didcomm.org/trust-ping/2` (any minor version). */
function majorOf(piuri: string): string | undefined {
  const parts = parseMessageType(`${piuri}/x`);
  return parts ? parts.majorKey.replace(/\/x$/, '') : undefined;
}

/** A problem report that refuses a message as of a type or protocol the agent does not support. */
function refusesAsUnsupported(r: Received): boolean {
  const code = String(r.message?.body?.code ?? '');
  return /unsupported|unrecogni[sz]ed|not-supported/.test(code) || namesProtocol(String(r.message?.body?.comment ?? ''), undefined) !== undefined;
}

export const DISCOVER_FEATURES_CASES: CaseDefinition[] = [
  {
    id: 'discover-features/disclose',
    suite: 'discover-features',
    title: 'Queries for every protocol are answered by a disclose threaded to them',
    section: SECTION,
    url: URL,
    steps: ['send queries [{feature-type: protocol, match: *}]', 'wait for a disclose', 'its thid is the queries id; it is itself conformant'],
    judges: ['discover-features.disclose-thid'],
    async run(c) {
      const { query, answer, broken } = await disclose(c);
      if (!answer) {
        const other = await c.cp.waitFor((r) => r.message?.type === DISCLOSE, 0);
        if (!other) return { ...skipped(c.blocked.get(NO_DISCLOSE) ?? 'no disclose'), broken };
        return { broken: [...broken, broke('discover-features.disclose-thid', `the disclose has thid ${String(other.message!.thid)}, not the queries id ${query.id}`, other.entry.seq), ...messageRules(other, 'the disclose')] };
      }
      return { broken: [...broken, ...messageRules(answer, 'the disclose')] };
    },
  },
  {
    id: 'discover-features/disclosed-supported',
    suite: 'discover-features',
    title: 'Every disclosed protocol idsync speaks is really supported',
    section: SECTION,
    url: URL,
    steps: [
      'send queries for every protocol',
      'for each disclosed protocol idsync speaks (trust-ping, discover-features, basicmessage, messagepickup, issue-credential, present-proof, report-problem), in a role the agent discloses, send a harmless message of it (for the credential protocols, one the role must take, in a thread that does not exist)',
      'none is refused as unsupported: no problem report saying so, no HTTP 4xx naming it',
    ],
    judges: ['discover-features.disclosed-supported'],
    needs: ['mode', 'ping'],
    async run(c) {
      const none = c.blocked.get(NO_DISCLOSE);
      if (none) return skipped(`nothing disclosed to try (discover-features/disclose): ${none}`);
      const { answer, broken } = await disclose(c);
      if (!answer) return { ...skipped(c.blocked.get(NO_DISCLOSE) ?? 'no disclose'), broken };
      const notes: string[] = [];
      const probes: Array<{ message: PlainMessage; piuri: string; outcome: PostOutcome }> = [];
      for (const { id: piuri, roles } of disclosedProtocols(answer)) {
        const major = majorOf(piuri);
        const probe = major ? PROBES[major] : undefined;
        if (!probe) {
          notes.push(`${piuri} not probed: idsync knows no harmless message of it`);
          continue;
        }
        if (probe.role && roles && !roles.includes(probe.role)) {
          notes.push(`${piuri} not probed: disclosed for ${roles.join(', ')}; its probe, ${probe.name}, is for the ${probe.role}`);
          continue;
        }
        const message = probe.build(c.cp, `${piuri}/${probe.name}`);
        const outcome = await c.cp.send(message, { mode: c.mode, note: `probe of disclosed ${piuri}` });
        probes.push({ message, piuri, outcome });
        broken.push(...transportRules(outcome, `the probe of ${piuri}`));
        const refused = clientError(outcome);
        // The disclose came in this envelope, so an answer saying the type is unsupported is about the protocol.
        if (refused && namesProtocol(refused.body, message.type) !== undefined) {
          broken.push(broke('discover-features.disclosed-supported', `it disclosed ${piuri}, then refused ${message.type}: ${describeAnswer(refused)}`, outcome.entry.seq));
        } else if (refused) {
          notes.push(`the probe of ${piuri} was refused without naming the protocol: ${describeAnswer(refused)}`);
        }
      }
      if (probes.length === 0) return skipped(`no disclosed protocol is one idsync can probe${notes.length ? ` (${notes.join('; ')})` : ''}`);
      if (!(await barrier(c))) return inconclusive('the barrier ping went unanswered: refusals of the probes cannot be told from silence', broken);
      for (const { message, piuri } of probes) {
        const threads = new Set([message.id, message.thid].filter(Boolean));
        const refusal = c.cp.received.find((r) => r.message?.type === PROBLEM_REPORT && (threads.has(r.message.pthid) || threads.has(r.message.thid)) && refusesAsUnsupported(r));
        if (refusal) broken.push(broke('discover-features.disclosed-supported', `it disclosed ${piuri}, then refused ${message.type} with ${String(refusal.message!.body.code)}`, refusal.entry.seq));
      }
      notes.unshift(`probed ${probes.map((p) => p.piuri).join(', ')}`);
      return verdict(broken, notes);
    },
  },
];
