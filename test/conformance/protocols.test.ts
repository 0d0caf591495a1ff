import { describe, expect, it } from 'vitest';
import { protocolRules } from '../../src/conformance/protocol-rules.js';
import { checkMessage, createRuleRegistry } from '../../src/conformance/registry.js';
import { check, type ConformanceResult, type MessageRule } from '../../src/conformance/types.js';
import { DISCOVER_FEATURES } from '../../src/protocols/discover-features.js';
import { OUT_OF_BAND } from '../../src/protocols/out-of-band.js';
import { PRESENT_PROOF, PRESENT_PROOF_RULES } from '../../src/protocols/present-proof.js';
import { parseAck } from '../../src/protocols/ack.js';
import { PROBLEM_REPORT } from '../../src/protocols/report-problem.js';
import { TRUST_PING } from '../../src/protocols/trust-ping.js';

const base = { id: 'm-1', from: 'did:example:alice', to: ['did:example:bob'], body: {} };

function failed(results: ConformanceResult[]): string[] {
  return results.filter((r) => !r.ok).map((r) => `${r.severity}:${r.rule}`);
}

describe('protocol body rules', () => {
  it('has rules for every message type the basic protocols define', () => {
    const types = [...Object.values(TRUST_PING), ...Object.values(DISCOVER_FEATURES), PROBLEM_REPORT, OUT_OF_BAND.invitation];
    expect(Object.keys(protocolRules).sort()).toEqual(types.sort());
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['a good ping', { type: TRUST_PING.ping, body: { response_requested: true } }, []],
    ['a ping with response_requested as a string', { type: TRUST_PING.ping, body: { response_requested: 'yes' } }, ['advice:trust-ping.response_requested']],
    ['a ping-response without thid', { type: TRUST_PING.pingResponse }, ['error:trust-ping.response-thid']],
    ['good queries', { type: DISCOVER_FEATURES.queries, body: { queries: [{ 'feature-type': 'protocol', match: '*' }] } }, []],
    ['queries without queries', { type: DISCOVER_FEATURES.queries }, ['advice:discover-features.queries']],
    ['queries with a query lacking match', { type: DISCOVER_FEATURES.queries, body: { queries: [{ 'feature-type': 'protocol' }] } }, ['advice:discover-features.queries']],
    ['a proactive disclose', { type: DISCOVER_FEATURES.disclose, body: { disclosures: [{ 'feature-type': 'protocol', id: 'x', roles: ['a'] }] } }, []],
    ['a disclose with roles as a string', { type: DISCOVER_FEATURES.disclose, body: { disclosures: [{ 'feature-type': 'protocol', id: 'x', roles: 'a' }] } }, ['advice:discover-features.disclosures']],
    ['a good problem report', { type: PROBLEM_REPORT, pthid: 't', body: { code: 'e.p.xfer.cant-use-endpoint', comment: 'x {1}', args: ['a'], escalate_to: 'mailto:a@b.c' } }, []],
    ['a problem report without pthid', { type: PROBLEM_REPORT, body: { code: 'e.p.me' } }, ['error:report-problem.pthid']],
    ['a problem report with an upper-case code', { type: PROBLEM_REPORT, pthid: 't', body: { code: 'E.P.ME' } }, ['advice:report-problem.code-format']],
    ['a problem report with no descriptor', { type: PROBLEM_REPORT, pthid: 't', body: { code: 'e.p' } }, ['warning:report-problem.code-descriptor']],
    ['a problem report with numeric args', { type: PROBLEM_REPORT, pthid: 't', body: { code: 'e.p.me', args: [1] } }, ['advice:report-problem.args']],
    ['a good invitation', { type: OUT_OF_BAND.invitation, body: { goal_code: 'streamlined-vc', accept: ['didcomm/v2'] } }, []],
    ['an invitation without from', { type: OUT_OF_BAND.invitation, from: undefined }, ['error:out-of-band.from']],
    ['an invitation with a thid', { type: OUT_OF_BAND.invitation, thid: 'other' }, ['advice:out-of-band.thid']],
  ])('checks %s', (_, change, expected) => {
    const m: Record<string, unknown> = { ...base, ...change };
    for (const k of Object.keys(change)) if (change[k] === undefined) delete m[k];
    expect(failed(checkMessage(m))).toEqual(expected);
  });

  it('applies the rules of x.0 to x.y messages and not to other major versions', () => {
    expect(failed(checkMessage({ ...base, type: 'https://didcomm.org/trust-ping/2.7/ping-response' }))).toEqual(['error:trust-ping.response-thid']);
    expect(failed(checkMessage({ ...base, type: 'https://didcomm.org/trust-ping/3.0/ping-response' }))).toEqual([]);
  });
});

describe('rule registry', () => {
  it('takes rules from later protocols and reports a rule that throws instead of throwing', () => {
    const registry = createRuleRegistry();
    const needsGoal: MessageRule = (m) => [check('protocol', 'issue-credential.goal', typeof m.body.goal_code === 'string', 'goal_code is required')];
    const broken: MessageRule = () => {
      throw new Error('bug');
    };
    registry.addProtocolRules('https://didcomm.org/issue-credential/3.0/offer-credential', needsGoal, broken);
    const results = registry.check({ ...base, type: 'https://didcomm.org/issue-credential/3.0/offer-credential' });
    expect(failed(results)).toEqual(['error:issue-credential.goal', 'advice:conformance.rule-crashed']);
    expect(registry.types()).toContain('https://didcomm.org/issue-credential/3.0/offer-credential');
    expect(failed(checkMessage({ ...base, type: 'https://didcomm.org/issue-credential/3.0/offer-credential' }, undefined, { registry }))).toHaveLength(2);
  });

  it('rules added after a type was checked apply to its next message (also in another minor version)', () => {
    const registry = createRuleRegistry();
    const type = 'https://didcomm.org/issue-credential/3.0/request-credential';
    expect(failed(registry.check({ ...base, type }))).toEqual([]);
    registry.addProtocolRules('https://didcomm.org/issue-credential/3.1/request-credential', (m) => [check('protocol', 'issue-credential.goal', typeof m.body.goal_code === 'string', 'goal_code is required')]);
    expect(failed(registry.check({ ...base, type }))).toEqual(['error:issue-credential.goal']);
    expect(failed(registry.check({ ...base, type, body: { goal_code: 'x' } }))).toEqual([]);
  });

  it('can start empty', () => {
    expect(createRuleRegistry({ builtins: false }).check({ nonsense: true })).toEqual([]);
  });
});

describe('the ack present-proof and issue-credential adopt (WACI-DIDComm §Ack)', () => {
  // "The `body` property of an `Acknowledgement` message MUST contain a `status` property."
  const ack = { ...base, type: PRESENT_PROOF.ack, thid: 't-1' };
  const judge = (m: Record<string, unknown>) => failed(PRESENT_PROOF_RULES.ack!.flatMap((r) => r(m as never, {})));

  it('fails an ack without status, as the WACI vector of present-proof has it, and reads it as OK all the same', () => {
    expect(judge({ ...ack, body: {} })).toEqual(['error:present-proof.ack.status-present']);
    expect(parseAck({ ...ack, body: {} } as never, 'present-proof')).toEqual({ thid: 't-1', status: 'OK' });
  });

  it('passes a status of Aries RFC 0015 and fails any other', () => {
    expect(judge({ ...ack, body: { status: 'PENDING' } })).toEqual([]);
    expect(judge({ ...ack, body: { status: 'DONE' } })).toEqual(['error:present-proof.ack.status']);
  });
});
