// Body rules for the protocols of DIDComm Messaging v2 itself: trust-ping 2.0,
// discover-features 2.0, report-problem 2.0 and out-of-band 2.0 invitations.
// Type URIs are spelled out here (they are spec constants) so that conformance reads
// messages without importing the protocol implementations.
import { isDidOrDidUrlWithoutFragment, isPlainObject, isUri } from './plaintext.js';
import { check, fail, pass, type ConformanceResult, type MessageRule } from './types.js';

const L = 'protocol' as const;

/** Problem codes (DIDComm v2 §Problem Codes): sorter `e`|`w`, a scope, then kebab-case descriptors. */
export const PROBLEM_CODE = /^[ew]\.[a-z0-9]+(?:-[a-z0-9]+)*(?:\.[a-z0-9]+(?:-[a-z0-9]+)*)*$/;

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

// Trust Ping 2.0: response_requested is a boolean (default true).
const ping: MessageRule = (m) => [
  check(L, 'trust-ping.response_requested', m.body?.response_requested === undefined || typeof m.body.response_requested === 'boolean', 'body.response_requested must be a boolean'),
];

// Trust Ping 2.0: the response is threaded to the ping.
const pingResponse: MessageRule = (m) => [check(L, 'trust-ping.response-thid', typeof m.thid === 'string', 'a ping-response must carry thid = the ping id')];

// Discover Features 2.0 §queries: one or more query objects {feature-type, match}.
const queries: MessageRule = (m) => {
  const q = m.body?.queries;
  if (!Array.isArray(q) || q.length === 0) return [fail(L, 'discover-features.queries', 'body.queries must be a non-empty array')];
  const bad = q.map((x: unknown, i) => (isPlainObject(x) && typeof x['feature-type'] === 'string' && typeof x.match === 'string' ? -1 : i)).filter((i) => i >= 0);
  return [check(L, 'discover-features.queries', bad.length === 0, `queries ${bad.join(', ')} need string feature-type and match`)];
};

// Discover Features 2.0 §disclose: disclosure objects {feature-type, id, roles?}.
const disclose: MessageRule = (m) => {
  const d = m.body?.disclosures;
  if (!Array.isArray(d)) return [fail(L, 'discover-features.disclosures', 'body.disclosures must be an array')];
  const bad = d
    .map((x: unknown, i) =>
      isPlainObject(x) && typeof x['feature-type'] === 'string' && typeof x.id === 'string' && (x.roles === undefined || isStringArray(x.roles)) ? -1 : i,
    )
    .filter((i) => i >= 0);
  return [check(L, 'discover-features.disclosures', bad.length === 0, `disclosures ${bad.join(', ')} need string feature-type and id, roles an array of strings`)];
};

// DIDComm v2 §Problem Reports.
const problemReport: MessageRule = (m) => {
  const out: ConformanceResult[] = [];
  const b = m.body ?? {};
  out.push(check(L, 'report-problem.pthid', typeof m.pthid === 'string' && m.pthid.length > 0, 'pthid is required: the thid of the thread where the problem occurred'));
  if (typeof b.code !== 'string') out.push(fail(L, 'report-problem.code', 'body.code is required'));
  else {
    out.push(pass(L, 'report-problem.code'));
    out.push(check(L, 'report-problem.code-format', PROBLEM_CODE.test(b.code), `body.code ${b.code} is not <e|w>.<scope>.<descriptors> in lower kebab-case`));
    // §Descriptors: senders SHOULD include at least one descriptor after sorter and scope.
    out.push(check(L, 'report-problem.code-descriptor', b.code.split('.').length >= 3, 'the problem code should have at least one descriptor'));
  }
  if (b.comment !== undefined) out.push(check(L, 'report-problem.comment', typeof b.comment === 'string', 'body.comment must be a string'));
  if (b.args !== undefined) out.push(check(L, 'report-problem.args', isStringArray(b.args), 'body.args must be an array of strings'));
  if (b.escalate_to !== undefined) out.push(check(L, 'report-problem.escalate_to', isUri(b.escalate_to), 'body.escalate_to must be a URI'));
  return out;
};

// Out-of-Band 2.0 §Invitation.
const invitation: MessageRule = (m) => {
  const out: ConformanceResult[] = [];
  const b = m.body ?? {};
  out.push(check(L, 'out-of-band.from', isDidOrDidUrlWithoutFragment(m.from), 'an invitation must carry from: the DID to answer'));
  for (const k of ['goal_code', 'goal']) {
    if (b[k] !== undefined) out.push(check(L, `out-of-band.${k}`, typeof b[k] === 'string', `body.${k} must be a string`));
  }
  if (b.accept !== undefined) out.push(check(L, 'out-of-band.accept', isStringArray(b.accept), 'body.accept must be an array of media type strings'));
  // The invitation id becomes the pthid of the answer; thid has no meaning here.
  if (m.thid !== undefined && m.thid !== m.id) out.push(fail(L, 'out-of-band.thid', 'an invitation starts a new context; thid should be absent'));
  else out.push(pass(L, 'out-of-band.thid'));
  return out;
};

/** Built-in body rules by message type URI (matched across minor versions by the registry). */
export const protocolRules: Record<string, MessageRule[]> = {
  'https://didcomm.org/trust-ping/2.0/ping': [ping],
  'https://didcomm.org/trust-ping/2.0/ping-response': [pingResponse],
  'https://didcomm.org/discover-features/2.0/queries': [queries],
  'https://didcomm.org/discover-features/2.0/disclose': [disclose],
  'https://didcomm.org/report-problem/2.0/problem-report': [problemReport],
  'https://didcomm.org/out-of-band/2.0/invitation': [invitation],
};
