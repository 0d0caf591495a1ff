// One model of transport answers: every HTTP answer is recorded; a 4xx to a well-formed message in a
// mode the harness judges recipients on is listed under that mode's rule, naming the mode and quoting
// the sentence (advice for authcrypt: no sentence of DIDComm v2.1 obliges a recipient to process it);
// the cases that need the refused mode are blocked at once (no timeouts); a 2xx body that is no
// DIDComm message is a transport answer, not a message.
import { afterEach, describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { runExitCode } from '../../src/harness/exit-code.js';
import { namesProtocol } from '../../src/harness/refusal.js';
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

describe('an agent that answers HTTP 400 to authcrypt', () => {
  it('lists the refusal of envelope/authcrypt as advice (no sentence obliges a recipient to process authcrypt), and blocks every authcrypt case at once', async () => {
    const r = await run(['authcrypt-400']);
    const authcrypt = r.cases.find((c) => c.id === 'envelope/authcrypt')!;
    expect(authcrypt).toMatchObject({ status: 'passed', failedRules: [], advice: ['envelope.authcrypt-supported'] });
    // Names the mode and the answer, and quotes DIDComm v2.1 §Message Encryption.
    const finding = authcrypt.broken.find((b) => b.rule === 'envelope.authcrypt-supported')!;
    expect(finding).toMatchObject({ severity: 'advice' });
    expect(finding.detail).toContain('the authcrypt ping was refused (HTTP 400 (text/plain): this agent does not decrypt ECDH-1PU)');
    expect(finding.detail).toContain('DIDComm Messaging v2.1 §Message Encryption: "DIDComm supports two types of message encryption: Authenticated Sender Encryption ("authcrypt") and Anonymous Sender Encryption ("anoncrypt")."');
    // The refusal itself is recorded: status, content type, body.
    expect(authcrypt.messages[0]!.http).toEqual({ status: 400, contentType: 'text/plain', body: 'this agent does not decrypt ECDH-1PU' });

    const blocked = r.cases.filter((c) => c.status === 'blocked');
    expect(blocked.map((c) => c.id)).toEqual([
      'envelope/authcrypt-signed',
      'trust-ping/response', 'trust-ping/no-response', 'transport/redirect-followed', 'discover-features/disclose', 'discover-features/disclosed-supported',
      'report-problem/unknown-type', 'report-problem/missing-header', 'report-problem/expired', 'report-problem/replayed-id', 'report-problem/tampered', 'report-problem/wrong-recipient',
    ]);
    for (const c of blocked.slice(1)) {
      // With the mode, --mode offers, in which the agent answered a ping.
      expect(c.detail).toBe('the agent refuses authcrypt messages: HTTP 400 (text/plain): this agent does not decrypt ECDH-1PU; it answered pings in signed: --mode signed runs this case');
      expect(c.messages).toEqual([]);
    }
    // No case waited for an answer that could not come.
    expect(r.cases.filter((c) => c.status === 'inconclusive')).toEqual([]);
    expect(r.durationMs).toBeLessThan(2000);
    // Authcrypt around a signature ("implementations MAY accept it") cannot be judged when authcrypt
    // itself is refused: not a pass on a clean refusal, but blocked by the layer's own verdict.
    expect(blocked[0]!.detail).toBe('the authcrypt-signed ping was refused (HTTP 400 (text/plain): this agent does not decrypt ECDH-1PU); the agent refuses authcrypt messages: HTTP 400 (text/plain): this agent does not decrypt ECDH-1PU (envelope/authcrypt), and authcrypt is a layer of authcrypt-signed');
    // Authcrypt inside anoncrypt is another matter: this agent opens and answers it.
    expect(r.cases.find((c) => c.id === 'envelope/anoncrypt-authcrypt')).toMatchObject({ status: 'passed' });
    // Nothing failed: no MUST was broken.
    expect(runExitCode(r)).toBe(0);
  }, 20_000);

  it('meeting the refusal inside a case (the envelope case not run) blocks that case, quoting why it is no verdict, and the next', async () => {
    const r = await run(['authcrypt-400'], { cases: ['trust-ping/response', 'trust-ping/no-response'] });
    expect(r.cases.map((c) => `${c.id} ${c.status} ${c.failedRules.join(',')}`)).toEqual([
      'trust-ping/response blocked ',
      'trust-ping/no-response blocked ',
      'run/sent-messages skipped ',
    ]);
  }, 20_000);

  it('with --mode signed the same agent is judged on everything else', async () => {
    const r = await run(['authcrypt-400'], { mode: 'signed' });
    expect(r.cases[0]!.id).toBe('envelope/signed');
    expect(r.cases.filter((c) => c.status === 'failed')).toEqual([]);
    expect(r.cases.find((c) => c.id === 'envelope/authcrypt')).toMatchObject({ status: 'passed', advice: ['envelope.authcrypt-supported'] });
    expect(r.cases.filter((c) => c.status === 'blocked' || c.status === 'inconclusive').map((c) => c.id)).toEqual(['envelope/authcrypt-signed']);
    // Tampering with a ciphertext needs an encrypted mode; a message without id, which idsync cannot
    // sign, an envelope the agent takes (it refuses authcrypt, and anoncrypt and plaintext by policy).
    expect(r.cases.filter((c) => c.status === 'skipped').map((c) => c.id)).toEqual(['report-problem/missing-header', 'report-problem/tampered', 'report-problem/wrong-recipient']);
    const ping = r.cases.find((c) => c.id === 'trust-ping/response')!;
    expect(ping.status).toBe('passed');
    expect(ping.messages.filter((m) => m.direction === 'sent').map((m) => m.mode)).toEqual(['signed']);
  }, 20_000);
});

describe('an agent that refuses authcrypt and opens one layer of a nested envelope only', () => {
  it('is not judged on anoncrypt(authcrypt): taken and never answered, it is blocked by the authcrypt refusal once a ping in a mode the agent answers is answered, without waiting out the timeout', async () => {
    const r = await run(['authcrypt-400', 'one-layer'], { cases: ['envelope/authcrypt', 'envelope/signed', 'envelope/anoncrypt-authcrypt'], timeoutMs: 5000 });
    const c = r.cases.find((x) => x.id === 'envelope/anoncrypt-authcrypt')!;
    expect(c).toMatchObject({ status: 'blocked', failedRules: [] });
    expect(c.detail).toBe('the anoncrypt-authcrypt ping was taken (HTTP 200 (application/json): {}) and not answered; the agent refuses authcrypt messages: HTTP 400 (text/plain): this agent does not decrypt ECDH-1PU (envelope/authcrypt), and authcrypt is a layer of anoncrypt-authcrypt');
    // The barrier: a signed ping (the first mode seen answered), answered.
    expect(c.messages.map((m) => `${m.direction} ${m.mode} ${m.type?.split('/').pop()}`)).toEqual(['sent anoncrypt-authcrypt ping', 'sent signed ping', 'received authcrypt ping-response']);
    expect(c.durationMs).toBeLessThan(5000);
  }, 20_000);
});

describe('a message idsync cannot pack (no id) when the agent refuses authcrypt', () => {
  it('goes in an envelope the agent is not known to refuse, so that a refusal of authcrypt does not pass for a refusal of the missing id', async () => {
    const r = await run(['authcrypt-400'], { mode: 'signed', cases: ['envelope/authcrypt', 'report-problem/missing-header'] });
    const c = r.cases.find((x) => x.id === 'report-problem/missing-header')!;
    const idless = c.messages.find((m) => m.note === 'no id header')!;
    expect(idless.mode).toBe('anoncrypt');
    expect(c.notes).toEqual(["sent anoncrypted: idsync cannot pack a message without id in the run's mode signed"]);
  }, 20_000);
});

describe('an agent that answers HTTP 500 to authcrypt', () => {
  it('lists envelope/authcrypt refused and the server error as advice, and blocks the rest at once', async () => {
    const r = await run(['authcrypt-500']);
    expect(r.cases[0]).toMatchObject({ id: 'envelope/authcrypt', status: 'passed', failedRules: [], advice: ['transport.no-server-error', 'envelope.authcrypt-supported'] });
    expect(r.cases.filter((c) => c.status === 'blocked' && c.id !== 'envelope/authcrypt-signed').map((c) => c.detail)).toEqual(Array(11).fill('the agent refuses authcrypt messages: HTTP 500 (application/json): {"error":"Internal Server Error"}; it answered pings in signed: --mode signed runs this case'));
    expect(r.cases.filter((c) => c.status === 'inconclusive')).toEqual([]);
  }, 20_000);
});

describe('a refusal of the first message of an invitation flow', () => {
  async function invitee(faults: WrongAgentFault[]) {
    agent = await startWrongAgent(faults);
    return runConformance({ target: agent.invitationUrl(), resolve: documentResolver(createResolver({})), timeoutMs: 2000, cases: ['waci/streamlined-vc'] });
  }

  it('is the message refused when a ping in the same mode is taken: the case judges it by the flow\'s rule, not the mode\'s', async () => {
    const r = await invitee(['propose-400']);
    const c = r.cases[0]!;
    // WACI gives the issuer's offer no RFC 2119 keyword: the flow's rule is advice, the mode's is not named.
    expect(c).toMatchObject({ status: 'passed', failedRules: [], advice: ['issue-credential.offer'] });
    expect(c.broken).toEqual([expect.objectContaining({ rule: 'issue-credential.offer', detail: 'the agent refused the propose-credential: HTTP 400 (text/plain): invitation already used' })]);
    expect(c.messages.map((m) => `${m.direction} ${m.type?.split('/').pop()} ${m.httpStatus ?? ''}`.trim())).toEqual(['sent propose-credential 400', 'sent ping 202']);
  }, 20_000);

  it('is the mode refused when the ping is refused too: no MUST obliges it to take authcrypt, so the flow is blocked', async () => {
    const r = await invitee(['authcrypt-400']);
    expect(r.cases[0]).toMatchObject({ status: 'blocked', failedRules: [] });
  }, 20_000);
});

describe('HTTP answers that are not DIDComm messages', () => {
  it('a 200 with a JSON body is recorded as a transport answer, never read as a message, and judges nothing', async () => {
    const r = await run(['json-200']);
    expect(r.cases.filter((c) => c.status !== 'passed').map((c) => c.id)).toEqual([]);
    const sent = r.cases.flatMap((c) => c.messages).filter((m) => m.direction === 'sent' && m.http?.status === 200);
    expect(sent.length).toBeGreaterThan(10);
    for (const m of sent) expect(m.http).toEqual({ status: 200, contentType: 'application/json', body: '{"ok":true}' });
    expect(r.cases.flatMap((c) => c.messages).filter((m) => m.direction === 'received' && (m.mode === 'unreadable' || m.via === 'return-route'))).toEqual([]);
  }, 20_000);
});

describe('a return route answered with a JSON receipt', () => {
  it('is a transport answer: a body that is no DIDComm message is not judged as one, even when a return route was asked for', async () => {
    const r = await run(['pickup-json-receipt'], { cases: ['discover-features/disclosed-supported'] });
    const c = r.cases[0]!;
    expect(c.status).toBe('passed');
    const probe = c.messages.find((m) => m.type?.endsWith('/status-request'))!;
    expect(probe.http).toMatchObject({ status: 200, contentType: 'application/json' });
    expect(probe.http!.readAsMessage).toBeUndefined();
    expect(c.messages.filter((m) => m.via === 'return-route')).toEqual([]);
  }, 20_000);
});

describe('what a refusal names', () => {
  it.each([
    ['No handler for trust-ping', 'named'],
    ['unsupported message type https://didcomm.org/trust-ping/2.0/ping', 'named'],
    // Says a type is unsupported, but not which: the protocol or the envelope (Veramo says this of an envelope it cannot open).
    ['Unsupported message type', 'unnamed'],
    ['Message type not supported', 'unnamed'],
    ['unsupported message type https://didcomm.org/issue-credential/3.0/request-credential', 'unnamed'],
    ['unsupported algorithm ECDH-1PU+A256KW', undefined],
    ['Malformed: Message is not a valid JWE, JWS or JWM', undefined],
    ['', undefined],
  ])('%j of a ping: %s', (body, says) => {
    expect(namesProtocol(body, 'https://didcomm.org/trust-ping/2.0/ping')).toBe(says);
  });
});

describe('a refusal that says "unsupported message type" without naming one', () => {
  it('of every authcrypted message is a refusal of authcrypt: a query in authcrypt is refused too', async () => {
    const r = await run(['authcrypt-unsupported']);
    const c = r.cases[0]!;
    expect(c).toMatchObject({ id: 'envelope/authcrypt', status: 'passed', failedRules: [], advice: ['envelope.authcrypt-supported'] });
    expect(c.messages.filter((m) => m.direction === 'sent').map((m) => `${m.type?.split('/').pop()} ${m.httpStatus}`)).toEqual(['ping 400', 'queries 400']);
    expect(r.cases.filter((x) => x.status === 'blocked').length).toBe(12);
  }, 20_000);

  it('of pings only is a refusal of trust-ping: the envelope cases cannot judge by a ping, the cases that need pings are blocked', async () => {
    const r = await run(['no-trust-ping']);
    expect(r.cases.find((c) => c.id === 'envelope/authcrypt')).toMatchObject({ status: 'skipped', detail: 'the agent does not take trust-ping (HTTP 400 (text/html): Unsupported message type): authcrypt cannot be judged by a ping' });
    expect(r.cases.find((c) => c.id === 'trust-ping/response')).toMatchObject({ status: 'blocked' });
    expect(r.cases.find((c) => c.id === 'discover-features/disclose')).toMatchObject({ status: 'passed' });
    expect(r.cases.filter((c) => c.status === 'failed')).toEqual([]);
  }, 20_000);
});
