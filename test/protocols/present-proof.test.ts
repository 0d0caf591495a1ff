import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { createRuleRegistry } from '../../src/conformance/registry.js';
import { refusalsOf } from '../../src/conformance/types.js';
import { signPresentation } from '../../src/credentials/presentation.js';
import { createIonDid } from '../../src/did/ion.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import type { PlainMessage } from '../../src/didcomm/types.js';
import { b64uDecode } from '../../src/encoding.js';
import { problemFromError } from '../../src/protocols/report-problem.js';
import {
  PE_DEFINITION_FORMAT,
  PE_SUBMISSION_FORMAT,
  PRESENT_PROOF,
  PRESENT_PROOF_PIURI,
  PRESENT_PROOF_PROVER,
  PRESENT_PROOF_RULES,
  PRESENT_PROOF_VERIFIER,
  SYNC_AUTH_GOAL_CODE,
  buildDidAuthPresentation,
  buildPresentation,
  buildPresentationAck,
  buildProposePresentation,
  buildRequestPresentation,
  parsePresentation,
  parsePresentationAck,
  parseRequestPresentation,
  presentProofProtocol,
  verifyDidAuth,
} from '../../src/protocols/present-proof.js';
import { advanceThread as advance, startThread } from '../../src/protocols/thread-state.js';

/** In these tests every message received comes from the DID its envelope proved: its own `from`. */
const advanceThread: typeof advance = (machine, record, direction, message, sender) =>
  advance(machine, record, direction, message, sender ?? (direction === 'receive' ? message.from : undefined));

const vector = (name: string): PlainMessage =>
  JSON.parse(readFileSync(new URL(`../../fixtures/waci-didcomm/presentation/${name}`, import.meta.url), 'utf8'));

const deps = { clock: new ManualClock(Date.parse('2025-03-01T10:00:00Z')), ids: sequentialIds('pp') };
const SERVICE = 'did:web:127.0.0.1%3A8080';
const wallet = createIonDid();
const walletKey = b64uDecode(wallet.secrets[0].privateKeyJwk.d);
const resolve = documentResolver(createResolver({ cache: false }));

const registry = createRuleRegistry();
for (const [name, rules] of Object.entries(PRESENT_PROOF_RULES)) registry.addProtocolRules(`${PRESENT_PROOF_PIURI}/${name}`, ...rules);
// What idsync's parsers refuse: broken MUSTs and the body fields its handlers need (rows marked refuses).
const failuresOf = (m: PlainMessage) => refusalsOf(registry.check(m)).map((f) => f.rule);

function authRequest(): PlainMessage {
  return buildRequestPresentation({ from: SERVICE, to: wallet.did, challenge: 'ch-1', domain: SERVICE, definitionId: 'def-1' }, deps);
}

function answer(request: PlainMessage, o: { challenge?: string; definitionId?: string } = {}): PlainMessage {
  const req = parseRequestPresentation(request);
  const vp = signPresentation(buildDidAuthPresentation({ holder: wallet.did, definitionId: o.definitionId ?? req.definitionId }), {
    kid: `${wallet.did}#key-1`,
    privateKey: walletKey,
    challenge: o.challenge ?? req.challenge,
    domain: req.domain,
  });
  return buildPresentation({ from: wallet.did, to: SERVICE, thid: req.thid, presentation: vp }, deps);
}

describe('present-proof 3.0 messages against the WACI vectors', () => {
  it('builds a DID-auth request shaped like the WACI request', () => {
    const ours = authRequest();
    const waci = vector('3.present-proof_request.json');
    expect(ours.type).toBe(waci.type);
    expect(Object.keys(ours.attachments![0]).sort()).toEqual(Object.keys(waci.attachments![0]).sort());
    expect(ours.attachments![0]).toMatchObject({ format: PE_DEFINITION_FORMAT, media_type: 'application/json' });
    const json = ours.attachments![0].data.json as Record<string, Record<string, unknown>>;
    expect(Object.keys(json).sort()).toEqual(Object.keys(waci.attachments![0].data.json as object).sort());
    expect(json).toEqual({ options: { challenge: 'ch-1', domain: SERVICE }, presentation_definition: { id: 'def-1', input_descriptors: [] } });
    expect(ours.body).toEqual({ goal_code: SYNC_AUTH_GOAL_CODE, will_confirm: true });
    expect(failuresOf(ours)).toEqual([]);
  });

  it('parses every WACI presentation message', () => {
    const propose = vector('2.present-proof_propose.json');
    expect(failuresOf(propose)).toEqual([]);
    const ours = buildProposePresentation({ from: wallet.did, to: SERVICE, pthid: propose.pthid! }, deps);
    expect(ours).toMatchObject({ type: propose.type, thid: ours.id, pthid: propose.pthid, body: {} });

    const req = vector('3.present-proof_request.json');
    expect(parseRequestPresentation(req)).toMatchObject({ thid: req.thid, challenge: '3fa85f64-5717-4562-b3fc-2c963f66afa7', domain: '4jt78h47fh47', definitionId: '3bc5ac72-bdd7-42de-aeba-45816cc4f776', willConfirm: false });

    const pres = vector('4.present-proof_present.json');
    expect(parsePresentation(pres)).toMatchObject({ thid: req.thid, definitionId: '3bc5ac72-bdd7-42de-aeba-45816cc4f776', presentation: { holder: expect.stringMatching(/^did:key:/) } });
    // The vector nests `format` inside `data`: accepted, with a warning.
    expect(registry.check(pres).find((r) => r.rule.endsWith('format-placement'))).toMatchObject({ ok: false, severity: 'advice' });

    const ack = vector('5.present-proof_ack.json');
    expect(parsePresentationAck(ack)).toEqual({ thid: req.thid, status: 'OK' });
  });

  it('threads presentation and ack to the request, like the vectors', () => {
    const req = authRequest();
    const pres = answer(req);
    const waci = vector('4.present-proof_present.json');
    expect(pres).toMatchObject({ type: waci.type, thid: req.id, attachments: [{ format: PE_SUBMISSION_FORMAT, media_type: 'application/json' }] });
    const vp = pres.attachments![0].data.json as Record<string, unknown>;
    expect(vp).toMatchObject({ holder: wallet.did, presentation_submission: { definition_id: 'def-1', descriptor_map: [] }, proof: { cryptosuite: 'eddsa-jcs-2022', challenge: 'ch-1', domain: SERVICE } });
    const ack = buildPresentationAck({ from: SERVICE, to: wallet.did, thid: req.id }, deps);
    expect(ack).toMatchObject({ type: PRESENT_PROOF.ack, thid: req.id, body: { status: 'OK' } });
    expect([...failuresOf(pres), ...failuresOf(ack)]).toEqual([]);
  });

  it('rejects malformed requests and presentations', () => {
    const req = authRequest();
    const noChallenge = { ...req, attachments: [{ ...req.attachments![0], data: { json: { options: { domain: SERVICE }, presentation_definition: { id: 'd', input_descriptors: [] } } } }] };
    expect(() => parseRequestPresentation(noChallenge)).toThrow(expect.objectContaining({ code: 'message_invalid_body' }));
    expect(() => parseRequestPresentation({ ...req, attachments: [] })).toThrow(expect.objectContaining({ code: 'message_invalid_body' }));
    expect(() => parseRequestPresentation({ ...req, body: { will_confirm: 'yes' } })).toThrow(expect.objectContaining({ code: 'message_invalid_body' }));
    const pres = answer(req);
    expect(() => parsePresentation({ ...pres, thid: undefined })).toThrow(expect.objectContaining({ code: 'message_invalid_body' }));
    const unsigned = { ...pres, attachments: [{ ...pres.attachments![0], data: { json: buildDidAuthPresentation({ holder: wallet.did, definitionId: 'def-1' }) } }] };
    expect(failuresOf(unsigned)).toEqual(['present-proof.presentation.submission']);
    expect(() => parsePresentationAck({ ...buildPresentationAck({ thid: req.id }, deps), body: { status: 'MAYBE' } })).toThrow(expect.objectContaining({ code: 'message_invalid_body' }));
  });
});

describe('DID authentication (docs/protocols.md Sync step 1)', () => {
  it('verifies the wallet’s answer against the request', async () => {
    const req = authRequest();
    const result = await verifyDidAuth(parseRequestPresentation(req), parsePresentation(answer(req)), { resolve, expectedHolder: wallet.shortDid });
    expect(result).toMatchObject({ verified: true, holder: wallet.did });
  });

  it('fails with e.p.trust.sync.authentication-failed on a wrong challenge, definition or holder', async () => {
    const req = authRequest();
    const parsed = parseRequestPresentation(req);
    const attempts = [
      () => verifyDidAuth(parsed, parsePresentation(answer(req, { challenge: 'replayed' })), { resolve }),
      () => verifyDidAuth(parsed, parsePresentation(answer(req, { definitionId: 'def-other' })), { resolve }),
      () => verifyDidAuth(parsed, parsePresentation(answer(req)), { resolve, expectedHolder: createIonDid().did }),
    ];
    const checks: unknown[] = [];
    for (const attempt of attempts) {
      const err = await attempt().then(() => undefined, (e) => e);
      expect(err).toMatchObject({ code: 'authentication_failed' });
      expect(problemFromError(err).code).toBe('e.p.trust.sync.authentication-failed');
      checks.push(err.details.check);
    }
    expect(checks).toEqual(['challenge_mismatch', 'definition_id', 'holder_mismatch']);
  });
});

describe('present-proof 3.0 states', () => {
  it('runs verifier and prover to done and refuses out-of-order messages', () => {
    const req = authRequest();
    const pres = answer(req);
    const ack = buildPresentationAck({ from: SERVICE, to: wallet.did, thid: req.id }, deps);
    let verifier = startThread(PRESENT_PROOF_VERIFIER, 'send', req);
    let prover = startThread(PRESENT_PROOF_PROVER, 'receive', req);
    expect([verifier.state, prover.state]).toEqual(['request-sent', 'request-received']);
    expect(() => advanceThread(PRESENT_PROOF_VERIFIER, verifier, 'send', ack)).toThrow(expect.objectContaining({ code: 'unexpected_message' }));
    expect(() => advanceThread(PRESENT_PROOF_PROVER, prover, 'receive', ack)).toThrow(expect.objectContaining({ code: 'unexpected_message' }));
    verifier = advanceThread(PRESENT_PROOF_VERIFIER, verifier, 'receive', pres);
    prover = advanceThread(PRESENT_PROOF_PROVER, prover, 'send', pres);
    verifier = advanceThread(PRESENT_PROOF_VERIFIER, verifier, 'send', ack);
    prover = advanceThread(PRESENT_PROOF_PROVER, prover, 'receive', ack);
    expect([verifier.state, prover.state]).toEqual(['done', 'done']);
    expect(verifier.messages).toEqual([req.id, pres.id, ack.id]);
    expect(() => advanceThread(PRESENT_PROOF_VERIFIER, verifier, 'receive', { ...pres, id: 'again' })).toThrow(expect.objectContaining({ code: 'unexpected_message' }));
  });

  it('refuses a presentation with no request and abandons on a problem report', () => {
    expect(() => startThread(PRESENT_PROOF_VERIFIER, 'receive', answer(authRequest()))).toThrow(expect.objectContaining({ code: 'unexpected_message' }));
    const req = authRequest();
    const verifier = startThread(PRESENT_PROOF_VERIFIER, 'send', req);
    const problem = { id: 'p-1', type: 'https://didcomm.org/report-problem/2.0/problem-report', from: wallet.did, pthid: req.id, body: { code: 'e.p.req.declined' } };
    expect(advanceThread(PRESENT_PROOF_VERIFIER, verifier, 'receive', problem).state).toBe('abandoned');
  });

  it('makes a module with roles, goal code and rules for the router', () => {
    const m = presentProofProtocol({ presentation: () => undefined }, ['verifier']);
    expect(m).toMatchObject({ piuri: PRESENT_PROOF_PIURI, roles: ['verifier'], goalCodes: [SYNC_AUTH_GOAL_CODE] });
    expect(Object.keys(m.handlers)).toEqual(['presentation']);
    expect(Object.keys(m.rules!)).toEqual(['propose-presentation', 'request-presentation', 'presentation', 'ack']);
  });
});
