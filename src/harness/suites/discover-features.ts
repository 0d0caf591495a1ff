// Discover Features 2.0 (DIDComm v2.1 §Discover Features Protocol 2.0): queries are answered by a
// disclose threaded to them, and what is disclosed is really supported — each disclosed protocol
// the harness knows a harmless message of is tried, and must not be refused as unsupported.
import { parseMessageType } from '../../didcomm/message.js';
import type { PlainMessage } from '../../didcomm/types.js';
import { barrier, broke, DISCLOSE, inconclusive, messageRules, ok, PROBLEM_REPORT, QUERIES, skipped, transportRules, type CaseContext, type CaseDefinition } from '../case-kit.js';
import type { Received } from '../counterpart.js';

const SECTION = 'DIDComm Messaging v2.1 §Discover Features Protocol 2.0';
const URL = 'https://identity.foundation/didcomm-messaging/spec/v2.1/#discover-features-protocol-20';

/**
 * A message of a protocol that any agent supporting it takes without side effects worth fearing,
 * and the role that receives it: a protocol disclosed with roles is probed only when the agent
 * plays that role (a pickup recipient rightly refuses a status-request, which is for mediators).
 */
const PROBES: Record<string, { name: string; role?: string; body: Record<string, unknown>; extra?: Partial<PlainMessage> }> = {
  'https://didcomm.org/trust-ping/2': { name: 'ping', role: 'receiver', body: { response_requested: true } },
  'https://didcomm.org/discover-features/2': { name: 'queries', role: 'responder', body: { queries: [{ 'feature-type': 'protocol', match: 'https://didcomm.org/trust-ping/*' }] } },
  'https://didcomm.org/basicmessage/2': { name: 'message', body: { content: 'idsync conformance probe' } },
  'https://didcomm.org/messagepickup/3': { name: 'status-request', role: 'mediator', body: {}, extra: { return_route: 'all' } },
};

async function disclose(c: CaseContext): Promise<{ query: PlainMessage; answer?: Received; broken: ReturnType<typeof transportRules> }> {
  const query = c.cp.draft(QUERIES, { queries: [{ 'feature-type': 'protocol', match: '*' }] });
  const outcome = await c.cp.send(query, { mode: 'authcrypt' });
  const answer = await c.cp.waitFor((r) => r.message?.type === DISCLOSE && r.message.thid === query.id, c.timeoutMs);
  return { query, answer, broken: transportRules(outcome, 'the queries') };
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

export const DISCOVER_FEATURES_CASES: CaseDefinition[] = [
  {
    id: 'discover-features/disclose',
    suite: 'discover-features',
    title: 'Queries for every protocol are answered by a disclose threaded to them',
    section: SECTION,
    url: URL,
    steps: ['send queries [{feature-type: protocol, match: *}]', 'wait for a disclose', 'its thid is the queries id; it is itself conformant'],
    async run(c) {
      const { query, answer, broken } = await disclose(c);
      if (!answer) {
        const other = await c.cp.waitFor((r) => r.message?.type === DISCLOSE, 0);
        if (!other) return inconclusive(`no disclose within ${c.timeoutMs} ms`, broken);
        return { broken: [...broken, broke('discover-features.disclose-thid', `the disclose has thid ${String(other.message!.thid)}, not the queries id ${query.id}`, other.entry.seq), ...messageRules(other, 'the disclose')] };
      }
      return { broken: [...broken, ...messageRules(answer, 'the disclose')] };
    },
  },
  {
    id: 'discover-features/disclosed-supported',
    suite: 'discover-features',
    title: 'Every disclosed protocol the harness can probe is really supported',
    section: SECTION,
    url: URL,
    steps: ['send queries for every protocol', 'for each disclosed protocol with a known harmless message for a role the agent discloses (trust-ping, discover-features, basicmessage, messagepickup), send it', 'none is refused as an unsupported message type'],
    async run(c) {
      const { answer, broken } = await disclose(c);
      if (!answer) return inconclusive(`no disclose within ${c.timeoutMs} ms`, broken);
      const probes: PlainMessage[] = [];
      for (const { id: piuri, roles } of disclosedProtocols(answer)) {
        const major = majorOf(piuri);
        const probe = major ? PROBES[major] : undefined;
        if (!probe || (probe.role && roles && !roles.includes(probe.role))) continue;
        const message = c.cp.draft(`${piuri}/${probe.name}`, probe.body, probe.extra);
        probes.push(message);
        broken.push(...transportRules(await c.cp.send(message, { mode: 'authcrypt', note: `probe of disclosed ${piuri}` }), `the probe of ${piuri}`));
      }
      if (probes.length === 0) return skipped('no disclosed protocol has a probe the harness knows');
      if (!(await barrier(c))) return inconclusive('the barrier ping went unanswered: refusals of the probes cannot be told from silence', broken);
      for (const message of probes) {
        const refusal = c.cp.received.find((r) => r.message?.type === PROBLEM_REPORT && r.message.pthid === message.id && /unsupported/.test(String(r.message.body?.code ?? '')));
        if (refusal) broken.push(broke('discover-features.disclosed-supported', `it disclosed ${message.type.replace(/\/[^/]+$/, '')}, then refused ${message.type} with ${String(refusal.message!.body.code)}`, refusal.entry.seq));
      }
      return broken.length ? { broken } : ok();
    },
  },
];
