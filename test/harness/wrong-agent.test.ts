// Proof that the harness judges correctly: an agent built here on raw didcomm-node passes when it
// behaves, and each deliberate fault fails exactly the cases it should, with the rule it breaks.
import { afterEach, describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { runExitCode } from '../../src/harness/exit-code.js';
import { runConformance, type RunOptions } from '../../src/harness/run.js';
import { startWrongAgent, type WrongAgent, type WrongAgentFault } from './wrong-agent.js';

let agent: WrongAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

async function run(faults: WrongAgentFault[], options: Partial<RunOptions> = {}) {
  agent = await startWrongAgent(faults);
  return runConformance({ target: agent.did, resolve: documentResolver(createResolver({})), timeoutMs: 2000, ...options });
}

type Report = Awaited<ReturnType<typeof run>>;
const other = (r: Report) => r.cases.filter((c) => c.status === 'inconclusive' || c.status === 'blocked').map((c) => `${c.id}: ${c.detail}`);
/** Every case that broke a rule: its status and the rules, of any severity. */
const broken = (r: Report) => Object.fromEntries(r.cases.filter((c) => c.broken.length).map((c) => [c.id, `${c.status}: ${[...new Set(c.broken.map((b) => `${b.rule} (${b.severity})`))].join(', ')}`]));

describe('the harness against an agent on raw didcomm-node', () => {
  it('without faults it breaks nothing; its refusals of plaintext and of an anonymous sender are notes, not verdicts', async () => {
    const r = await run([]);
    expect(broken(r)).toEqual({});
    expect(other(r)).toEqual([]);
    expect(r.cases.filter((c) => c.status === 'skipped').map((c) => c.id)).toEqual([]);
    // DIDComm v2.1 leaves both to the agent: a clean HTTP 400 is noted with the sentence that says so.
    expect(r.cases.find((c) => c.id === 'envelope/anoncrypt')!.notes).toEqual([expect.stringMatching(/^anoncrypt refused cleanly \(HTTP 400\): DIDComm v2\.1 §Anonymous Encryption/)]);
    expect(r.cases.find((c) => c.id === 'envelope/plaintext')!.notes).toEqual([expect.stringMatching(/^plaintext refused cleanly \(HTTP 400\)/)]);
    expect(r.cases.at(-1)).toMatchObject({ id: 'run/sent-messages', status: 'passed' });
    expect(runExitCode(r)).toBe(0);
  }, 20_000);

  // Each fault breaks exactly these rules in these cases. A MUST fails its case; a rule v2.1 gives
  // no RFC 2119 keyword (advice: idsync's profile, interop practice) is listed and fails nothing.
  it.each<[WrongAgentFault, Record<string, string>, number]>([
    ['ping-thid', { 'trust-ping/response': 'failed: trust-ping.response-thid (error)' }, 1],
    // The problem report says e.p.msg.unsupported for a protocol it disclosed.
    ['disclose-refuse', { 'discover-features/disclosed-supported': 'passed: discover-features.disclosed-supported (advice)' }, 0],
    // An HTTP 400 naming the type of a protocol it disclosed (issue-credential 3.0, as issuer).
    ['disclose-refuse-400', { 'discover-features/disclosed-supported': 'passed: discover-features.disclosed-supported (advice)' }, 0],
    ['junk-5xx', { 'transport/junk': 'passed: transport.no-server-error (advice)' }, 0],
    // didcomm-node by itself refuses a flattened JWS; DIDComm v2.1 §DIDComm Signed Messages: recipients "MUST be able to process both forms".
    ['no-flattened', { 'envelope/signed-flattened': 'failed: envelope.signed-supported (error)' }, 1],
    // DIDComm v2.1 §Message Headers: `id` "MUST be unique to the sender, across all messages they send".
    ['reuse-id', { 'run/sent-messages': 'failed: plaintext.id-unique (error)' }, 1],
    // A status with message_count -1, sent back on the status-request's own HTTP answer (return route); Message Pickup 3.0: message_count REQUIRED.
    ['pickup-return-route', { 'discover-features/disclosed-supported': 'failed: messagepickup.status.message_count (error)' }, 1],
    [
      'plaintext-reply',
      Object.fromEntries(['authcrypt', 'anoncrypt-authcrypt', 'anoncrypt-signed', 'signed', 'signed-flattened', 'authcrypt-signed'].map((m) => [`envelope/${m}`, 'passed: envelope.reply-in-kind (advice)'])),
      0,
    ],
  ])('%s breaks exactly the right rules in the right cases', async (fault, expected, exit) => {
    const r = await run([fault]);
    expect(broken(r)).toEqual(expected);
    expect(other(r)).toEqual([]);
    expect(runExitCode(r)).toBe(exit);
  }, 20_000);

  it('an agent that takes queries and never answers them is not judged on discover-features (DIDComm v2.1 does not require the protocol): both cases are skipped, the second at once, and nothing waits out the timeout', async () => {
    const r = await run(['no-disclose'], { cases: ['discover-features/disclose', 'discover-features/disclosed-supported'], timeoutMs: 5000 });
    expect(r.cases.map((c) => `${c.id} ${c.status}`)).toEqual(['discover-features/disclose skipped', 'discover-features/disclosed-supported skipped', 'run/sent-messages passed']);
    const [disclose, supported] = r.cases;
    expect(disclose!.detail).toBe('the agent took the queries (HTTP 202) and answered a ping sent after them, but not the queries: DIDComm v2.1 does not require discover-features (§Discover Features Protocol 2.0: implementers of agents "are *strongly* encouraged to implement support for this message")');
    // The silence was observed behind a barrier ping, not waited out.
    expect(disclose!.messages.map((m) => `${m.direction} ${m.type?.split('/').pop()}`)).toEqual(['sent queries', 'sent ping', 'received ping-response']);
    expect(supported!.detail).toBe(`nothing disclosed to try (discover-features/disclose): ${disclose!.detail}`);
    expect(supported!.messages).toEqual([]);
    expect(r.durationMs).toBeLessThan(5000);
    expect(runExitCode(r)).toBe(3);
  }, 20_000);

  const invitationCases = (vc: string, vp: string) => ['out-of-band/invitation passed', `waci/streamlined-vc ${vc}`, `waci/streamlined-vp ${vp}`, 'data-pipe/establish skipped', 'run/sent-messages passed'];

  it.each<[WrongAgentFault[], Record<string, string>]>([
    [[], {}],
    [['offer-mismatch'], { 'waci/streamlined-vc': 'passed: issue-credential.issue.matches-preview (advice)' }],
    // VC DM 2.0 §1.4: "A conforming issuer implementation MUST secure the conforming documents it
    // produces": a credential secured but naming another subject breaks no such MUST.
    [['other-subject'], { 'waci/streamlined-vc': 'passed: credential.issued-as-offered (advice)' }],
    [['plaintext-reply'], { 'waci/streamlined-vc': 'passed: envelope.reply-in-kind (advice)' }],
  ])('as a WACI issuer with faults %j it breaks %j', async (faults, expected) => {
    agent = await startWrongAgent(faults);
    const r = await runConformance({ target: agent.invitationUrl(), resolve: documentResolver(createResolver({})), timeoutMs: 2000 });
    expect(r.cases.map((c) => `${c.id} ${c.status}`)).toEqual(invitationCases('passed', 'skipped'));
    expect(broken(r)).toEqual(expected);
    expect(other(r)).toEqual([]);
    expect(r.cases[1]!.messages.map((m) => m.type?.split('/').pop())).toEqual(['propose-credential', 'offer-credential', 'request-credential', 'issue-credential', 'ack']);
  }, 20_000);

  it.each<[WrongAgentFault[], Record<string, string>]>([
    [[], {}],
    [['plaintext-reply'], { 'waci/streamlined-vp': 'passed: envelope.reply-in-kind (advice)' }],
  ])('as a WACI verifier with faults %j it breaks %j', async (faults, expected) => {
    agent = await startWrongAgent(faults);
    const r = await runConformance({ target: agent.invitationUrl('streamlined-vp'), resolve: documentResolver(createResolver({})), timeoutMs: 2000 });
    expect(r.cases.map((c) => `${c.id} ${c.status}`)).toEqual(invitationCases('skipped', 'passed'));
    expect(broken(r)).toEqual(expected);
    expect(r.cases[2]!.messages.map((m) => m.type?.split('/').pop())).toEqual(['propose-presentation', 'request-presentation', 'presentation', 'ack']);
  }, 20_000);

  it.each<[WrongAgentFault[], Record<string, string>]>([
    [[], {}],
    [['wrong-challenge'], { 'prover/streamlined-vp': 'passed: present-proof.presentation.signed (advice)' }],
  ])('--role prover: as a prover with faults %j it breaks %j', async (faults, expected) => {
    agent = await startWrongAgent(faults);
    const a = agent;
    const r = await runConformance({ role: 'prover', resolve: documentResolver(createResolver({})), timeoutMs: 2000, acceptTimeoutMs: 5000, onInvitation: (url) => void a.acceptInvitation(url) });
    expect(r.target).toBe(agent.did);
    expect(broken(r)).toEqual(expected);
    expect(other(r)).toEqual([]);
    expect(r.cases[0]!.messages.map((m) => `${m.direction} ${m.type?.split('/').pop()}`)).toEqual(['received propose-presentation', 'sent request-presentation', 'received presentation', 'sent ack']);
  }, 20_000);

  // WACI-DIDComm §Encryption: "Each message described in this specification MUST be encrypted
  // before transmission" — encrypted, not authcrypted: an anoncrypted propose breaks no MUST (the
  // harness cannot answer its unauthenticated sender: inconclusive); a plaintext one does.
  it.each<[WrongAgentFault, Record<string, string>, string[]]>([
    ['anoncrypt-propose', { 'prover/streamlined-vp': 'inconclusive: envelope.sender-authenticated (advice)', 'run/sent-messages': 'passed: envelope.sender-authenticated (advice)' }, ['prover/streamlined-vp: the propose came anoncrypt: encrypted, but not authcrypted, and the harness answers only the authcrypt sender']],
    ['plaintext-propose', { 'prover/streamlined-vp': 'failed: present-proof.propose.encrypted (error)' }, []],
  ])('--role prover: a propose-presentation sent with %s', async (fault, expected, inconclusive) => {
    agent = await startWrongAgent([fault]);
    const a = agent;
    const r = await runConformance({ role: 'prover', resolve: documentResolver(createResolver({})), timeoutMs: 2000, acceptTimeoutMs: 5000, onInvitation: (url) => void a.acceptInvitation(url) });
    expect(broken(r)).toEqual(expected);
    expect(other(r)).toEqual(inconclusive);
  }, 20_000);
});
