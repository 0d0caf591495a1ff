// Proof that the harness judges correctly: an agent built here on raw didcomm-node passes when it
// behaves, and each deliberate fault fails exactly the cases it should, with the rule it breaks, or,
// where the spec gives that rule no RFC 2119 keyword, is listed as advice on the case it concerns
// (and fails it under the strict profile).
import { afterEach, describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { runConformance } from '../../src/harness/run.js';
import { startWrongAgent, type WrongAgent, type WrongAgentFault } from './wrong-agent.js';

let agent: WrongAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

async function run(faults: WrongAgentFault[]) {
  agent = await startWrongAgent(faults);
  return runConformance({ target: agent.did, resolve: documentResolver(createResolver({})), timeoutMs: 2000 });
}

const failed = (r: Awaited<ReturnType<typeof run>>) => Object.fromEntries(r.cases.filter((c) => c.status === 'failed').map((c) => [c.id, c.failedRules]));
/** The advice each case listed, for the cases that listed `rule`. */
const advised = (r: Awaited<ReturnType<typeof run>>, rule: string) => Object.fromEntries(r.cases.filter((c) => c.advice?.includes(rule)).map((c) => [c.id, [rule]]));
const other = (r: Awaited<ReturnType<typeof run>>) => r.cases.filter((c) => c.status === 'inconclusive').map((c) => `${c.id}: ${c.detail}`);

describe('the harness against an agent on raw didcomm-node', () => {
  it('without faults it fails nothing (it refuses modes without an authenticated sender: skipped)', async () => {
    const r = await run([]);
    expect(failed(r)).toEqual({});
    expect(other(r)).toEqual([]);
    expect(r.cases.filter((c) => c.status === 'skipped').map((c) => c.id)).toEqual(['envelope/anoncrypt']);
  }, 20_000);

  it.each<[WrongAgentFault, Record<string, string[]>]>([['ping-thid', { 'trust-ping/response': ['trust-ping.response-thid'] }]])(
    '%s fails exactly the right cases with the right rules',
    async (fault, expected) => {
      const r = await run([fault]);
      expect(failed(r)).toEqual(expected);
      expect(other(r)).toEqual([]);
    },
    20_000,
  );

  // No keyword in DIDComm v2.1 for these: advice, listed on the case and failing nothing.
  it.each<[WrongAgentFault, string, string[]]>([
    ['disclose-refuse', 'discover-features.disclosed-supported', ['discover-features/disclosed-supported']],
    ['junk-5xx', 'transport.no-server-error', ['transport/junk']],
    ['plaintext-reply', 'envelope.reply-in-kind', ['envelope/authcrypt', 'envelope/anoncrypt-authcrypt', 'envelope/authcrypt-signed', 'envelope/signed']],
  ])('%s is listed as advice (%s) on exactly the right cases', async (fault, rule, cases) => {
    const r = await run([fault]);
    expect(failed(r)).toEqual({});
    expect(advised(r, rule)).toEqual(Object.fromEntries(cases.map((c) => [c, [rule]])));
    expect(other(r)).toEqual([]);
  }, 20_000);

  // The WACI profile gives these no keyword either: they fail under the strict profile.
  it.each<[WrongAgentFault[], Record<string, string[]>]>([
    [[], {}],
    [['offer-mismatch'], { 'waci/streamlined-vc': ['issue-credential.issue.matches-preview'] }],
    [['plaintext-reply'], { 'waci/streamlined-vc': ['envelope.reply-in-kind'] }],
  ])('as a WACI issuer with faults %j it fails %j (strict profile)', async (faults, expected) => {
    agent = await startWrongAgent(faults);
    const r = await runConformance({ target: agent.invitationUrl(), resolve: documentResolver(createResolver({})), timeoutMs: 2000, profile: 'strict' });
    expect(r.cases.map((c) => `${c.id} ${c.status}`)).toEqual(['out-of-band/invitation passed', `waci/streamlined-vc ${faults.length ? 'failed' : 'passed'}`, 'waci/streamlined-vp skipped', 'data-pipe/establish skipped']);
    expect(failed(r)).toEqual(expected);
    expect(other(r)).toEqual([]);
    expect(r.cases[1]!.messages.map((m) => m.type?.split('/').pop())).toEqual(['propose-credential', 'offer-credential', 'request-credential', 'issue-credential', 'ack']);
  }, 20_000);

  it.each<[WrongAgentFault[], Record<string, string[]>]>([
    [[], {}],
    [['plaintext-reply'], { 'waci/streamlined-vp': ['envelope.reply-in-kind'] }],
  ])('as a WACI verifier with faults %j it fails %j (strict profile)', async (faults, expected) => {
    agent = await startWrongAgent(faults);
    const r = await runConformance({ target: agent.invitationUrl('streamlined-vp'), resolve: documentResolver(createResolver({})), timeoutMs: 2000, profile: 'strict' });
    expect(r.cases.map((c) => `${c.id} ${c.status}`)).toEqual(['out-of-band/invitation passed', 'waci/streamlined-vc skipped', `waci/streamlined-vp ${faults.length ? 'failed' : 'passed'}`, 'data-pipe/establish skipped']);
    expect(failed(r)).toEqual(expected);
    expect(r.cases[2]!.messages.map((m) => m.type?.split('/').pop())).toEqual(['propose-presentation', 'request-presentation', 'presentation', 'ack']);
  }, 20_000);

  it.each<[WrongAgentFault[], Record<string, string[]>]>([
    [[], {}],
    [['wrong-challenge'], { 'prover/streamlined-vp': ['present-proof.presentation.signed'] }],
  ])('--role prover: as a prover with faults %j it fails %j (strict profile)', async (faults, expected) => {
    agent = await startWrongAgent(faults);
    const a = agent;
    const r = await runConformance({ role: 'prover', profile: 'strict', resolve: documentResolver(createResolver({})), timeoutMs: 2000, acceptTimeoutMs: 5000, onInvitation: (url) => void a.acceptInvitation(url) });
    expect(r.target).toBe(agent.did);
    expect(failed(r)).toEqual(expected);
    expect(other(r)).toEqual([]);
    expect(r.cases[0]!.messages.map((m) => `${m.direction} ${m.type?.split('/').pop()}`)).toEqual(['received propose-presentation', 'sent request-presentation', 'received presentation', 'sent ack']);
  }, 20_000);
});
