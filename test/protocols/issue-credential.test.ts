import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { createRuleRegistry } from '../../src/conformance/registry.js';
import { addIdsyncRules } from '../../src/protocols/idsync-rules.js';
import { refusalsOf } from '../../src/conformance/types.js';
import { issueCredential } from '../../src/credentials/issue.js';
import { credentialManifestFor, defaultKycProfile } from '../../src/credentials/manifest.js';
import { signPresentation, verifyPresentation } from '../../src/credentials/presentation.js';
import { verifyCredential } from '../../src/credentials/verify.js';
import { createIonDid } from '../../src/did/ion.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import type { PlainMessage } from '../../src/didcomm/types.js';
import { b64uDecode } from '../../src/encoding.js';
import {
  APPLICATION_FORMAT,
  CREDENTIAL_PREVIEW_TYPE,
  FULFILLMENT_FORMAT,
  ISSUE_CREDENTIAL,
  ISSUE_CREDENTIAL_HOLDER,
  ISSUE_CREDENTIAL_ISSUER,
  ISSUE_CREDENTIAL_PIURI,
  MANIFEST_FORMAT,
  STATUS_LIST_FORMAT,
  STREAMLINED_VC,
  buildCredentialApplication,
  buildIssueAck,
  buildIssueCredential,
  buildOffer,
  buildProposeCredential,
  buildRequestCredential,
  datapointsFromPreview,
  issueCredentialProtocol,
  parseIssueAck,
  parseIssueCredential,
  parseOffer,
  parseProposeCredential,
  parseRequestCredential,
  previewFromDatapoints,
  wireCredential,
} from '../../src/protocols/issue-credential.js';
import { advanceThread as advance, startThread, type ThreadRecord } from '../../src/protocols/thread-state.js';

/** In these tests every message received comes from the DID its envelope proved: its own `from`. */
const advanceThread: typeof advance = (machine, record, direction, message, sender) =>
  advance(machine, record, direction, message, sender ?? (direction === 'receive' ? message.from : undefined));

const vector = (name: string): PlainMessage => JSON.parse(readFileSync(new URL(`../../fixtures/waci-didcomm/issuance/${name}`, import.meta.url), 'utf8'));
const clock = new ManualClock(Date.parse('2025-03-01T10:00:00Z'));
const deps = { clock, ids: sequentialIds('ic') };

const issuer = createIonDid();
const issuerKey = { did: issuer.did, kid: `${issuer.did}#key-1`, privateKey: b64uDecode(issuer.secrets[0].privateKeyJwk.d) };
const wallet = createIonDid();
const walletKey = b64uDecode(wallet.secrets[0].privateKeyJwk.d);
const resolve = documentResolver(createResolver({ cache: false }));
const manifest = credentialManifestFor(defaultKycProfile(), issuer.did, 'Provider') as unknown as Record<string, unknown>;
const datapoints = { lastName: 'Doe', firstName: 'Jane', birthDate: '1990-02-01', residentialAddressCountry: 'FR' };

const registry = addIdsyncRules(createRuleRegistry());
// What idsync's parsers refuse: broken MUSTs and the body fields its handlers need (rows marked refuses).
const failuresOf = (m: PlainMessage) => refusalsOf(registry.check(m)).map((f) => f.rule);

/** The whole WACI exchange as the two parties build it (wallet proposes, as in issuance workflows). */
async function exchange(format: 'ldp' | 'jwt' = 'ldp') {
  const propose = buildProposeCredential({ from: wallet.did, to: issuer.did, pthid: 'inv-1' }, deps);
  const offer = buildOffer(
    { from: issuer.did, to: wallet.did, thid: propose.id, pthid: 'inv-1', manifest, preview: previewFromDatapoints(datapoints), challenge: 'ch-1', domain: issuer.did, replacementId: 'urn:uuid:old' },
    deps,
  );
  const parsedOffer = parseOffer(offer);
  const application = signPresentation(buildCredentialApplication({ holder: wallet.did, manifestId: manifest.id as string }), {
    kid: `${wallet.did}#key-1`,
    privateKey: walletKey,
    challenge: parsedOffer.challenge,
    domain: parsedOffer.domain,
  });
  const request = buildRequestCredential({ from: wallet.did, to: issuer.did, thid: parsedOffer.thid, pthid: 'inv-1', application }, deps);
  const issued = await issueCredential({ format, issuer: issuerKey, subjectDid: wallet.did, claims: datapoints, clock });
  const issue = buildIssueCredential(
    { from: issuer.did, to: wallet.did, thid: propose.id, pthid: 'inv-1', manifestId: manifest.id as string, ...wireCredential(issued), replacementId: 'urn:uuid:old', statusListCredential: { id: 'https://x.example/status/1' } },
    deps,
  );
  const ack = buildIssueAck({ from: wallet.did, to: issuer.did, thid: propose.id, pthid: 'inv-1' }, deps);
  return { propose, offer, request, issue, ack, issued };
}

describe('credential preview ↔ datapoints', () => {
  it('lists datapoints in vocabulary order and reads them back', () => {
    const preview = previewFromDatapoints(datapoints);
    expect(preview).toEqual({
      type: CREDENTIAL_PREVIEW_TYPE,
      attributes: [
        { name: 'firstName', value: 'Jane' },
        { name: 'lastName', value: 'Doe' },
        { name: 'birthDate', value: '1990-02-01' },
        { name: 'residentialAddressCountry', value: 'FR' },
      ],
    });
    expect(datapointsFromPreview(preview)).toEqual(datapoints);
    expect(datapointsFromPreview({ type: CREDENTIAL_PREVIEW_TYPE, attributes: [{ name: 'residentialAddressountry', value: 'FR' }] })).toEqual({ residentialAddressCountry: 'FR' });
  });

  it('refuses names outside the vocabulary, binary values, duplicates and non-strings', () => {
    const bad = [
      [{ name: 'shoeSize', value: '42' }],
      [{ name: 'firstName', value: 'Jane', media_type: 'image/png' }],
      [{ name: 'firstName', value: 'Jane' }, { name: 'firstName', value: 'John' }],
      [{ name: 'firstName', value: 42 }],
    ];
    for (const attributes of bad) {
      expect(() => datapointsFromPreview({ type: CREDENTIAL_PREVIEW_TYPE, attributes } as never)).toThrow(expect.objectContaining({ code: 'message_invalid_body' }));
    }
  });
});

describe('issue-credential 3.0 against the WACI vectors', () => {
  it('parses every WACI issuance message', () => {
    const propose = vector('2.issue-credential_propose.json');
    expect(parseProposeCredential(propose)).toEqual({ id: propose.id, thid: propose.id, pthid: propose.pthid });
    const offer = parseOffer(vector('3.issue-credential_offer.json'));
    expect(offer).toMatchObject({ thid: propose.id, pthid: propose.pthid, challenge: 'b2bf0373-cbe5-4e27-b485-f1d3ab2f3bcd', domain: 'https://example.com', manifest: { id: 'dcc75a16-19f5-4273-84ce-4da69ee2b7fe' } });
    expect(offer.preview).toBeUndefined();
    expect(registry.check(vector('3.issue-credential_offer.json')).find((r) => r.rule === 'issue-credential.offer.credential_preview-missing')).toMatchObject({ ok: false, severity: 'advice' });
    expect(parseRequestCredential(vector('4.issue-credential_request.json'))).toMatchObject({ thid: propose.id, manifestId: 'dcc75a16-19f5-4273-84ce-4da69ee2b7fe', applicationId: '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d' });
    const issue = parseIssueCredential(vector('5.issue-credential_issue.json'));
    expect(issue).toMatchObject({ thid: propose.id, fulfillmentId: 'a30e3b91-fb77-4d22-95fa-871689c322e2', credentials: [{ descriptorId: 'prc_output', format: 'ldp_vc', credential: { id: 'https://example.com/credentials/83627465' } }] });
    expect(parseIssueAck(vector('6.issue-credential_ack.json'))).toEqual({ thid: propose.id, status: 'OK' });
  });

  it('builds each step with the WACI threading, formats and fields', async () => {
    const { propose, offer, request, issue, ack } = await exchange();
    const waci = Object.fromEntries(['2.issue-credential_propose', '3.issue-credential_offer', '4.issue-credential_request', '5.issue-credential_issue', '6.issue-credential_ack'].map((n, i) => [i, vector(`${n}.json`)]));
    const ours = [propose, offer, request, issue, ack];
    ours.forEach((m, i) => {
      expect(m.type).toBe(waci[i].type);
      // WACI: every message carries thid = the propose id and pthid = the invitation.
      expect({ thid: m.thid, pthid: m.pthid }).toEqual({ thid: propose.id, pthid: 'inv-1' });
      expect(failuresOf(m)).toEqual([]);
    });
    expect(offer.body).toEqual({ goal_code: STREAMLINED_VC, replacement_id: 'urn:uuid:old', credential_preview: previewFromDatapoints(datapoints) });
    expect(offer.attachments).toEqual([{ id: expect.any(String), media_type: 'application/json', format: MANIFEST_FORMAT, data: { json: { options: { challenge: 'ch-1', domain: issuer.did }, credential_manifest: manifest } } }]);
    const waciManifest = waci[1].attachments![0];
    expect(Object.keys(offer.attachments![0]).sort()).toEqual(Object.keys(waciManifest).sort());
    expect(request.attachments![0]).toMatchObject({ format: APPLICATION_FORMAT, media_type: 'application/json', data: { json: { type: ['VerifiablePresentation', 'CredentialApplication'], holder: wallet.did, credential_application: { manifest_id: manifest.id } } } });
    expect(issue.body).toEqual({ replacement_id: 'urn:uuid:old' });
    expect(issue.attachments!.map((a) => a.format)).toEqual([FULFILLMENT_FORMAT, STATUS_LIST_FORMAT]);
    const fulfillment = issue.attachments![0].data.json as Record<string, unknown>;
    expect(Object.keys(fulfillment).sort()).toEqual(['@context', 'credential_fulfillment', 'type', 'verifiableCredential']);
    expect(fulfillment).toMatchObject({ type: ['VerifiablePresentation', 'CredentialFulfillment'], credential_fulfillment: { manifest_id: manifest.id, descriptor_map: [{ id: 'kyc_output', format: 'ldp_vc', path: '$.verifiableCredential[0]' }] } });
    expect(ack.body).toEqual(waci[4].body);
  });

  it('carries a verifiable application and credential end to end (ldp and jwt)', async () => {
    for (const format of ['ldp', 'jwt'] as const) {
      const { offer, request, issue } = await exchange(format);
      const o = parseOffer(offer);
      expect(o.datapoints).toEqual(datapoints);
      const r = parseRequestCredential(request);
      expect(await verifyPresentation(r.application, { resolve, challenge: o.challenge, domain: o.domain, expectedHolder: wallet.did })).toMatchObject({ verified: true });
      const i = parseIssueCredential(issue);
      expect(i).toMatchObject({ replacementId: 'urn:uuid:old', manifestId: manifest.id, statusListCredential: { id: 'https://x.example/status/1' } });
      expect(i.credentials[0].format).toBe(format === 'ldp' ? 'ldp_vc' : 'jwt_vc');
      expect(typeof i.credentials[0].credential).toBe(format === 'ldp' ? 'object' : 'string');
      const verified = await verifyCredential(i.credentials[0].credential, { resolve, clock, expectedSubject: wallet.did, expectedIssuer: issuer.did, skipStatus: true });
      expect(verified.verified).toBe(true);
    }
  });

  it('rejects malformed offers, requests and fulfillments', async () => {
    const { offer, request, issue } = await exchange();
    const json = (m: PlainMessage) => m.attachments![0].data.json as Record<string, unknown>;
    const withJson = (m: PlainMessage, value: unknown) => ({ ...m, attachments: [{ ...m.attachments![0], data: { json: value } }, ...m.attachments!.slice(1)] });
    const fulfillment = json(issue);
    const cf = fulfillment.credential_fulfillment as Record<string, unknown>;
    const cases: Array<[PlainMessage, string]> = [
      [withJson(offer, { ...json(offer), options: { domain: 'd' } }), 'issue-credential.offer.manifest'],
      [{ ...offer, body: { ...offer.body, credential_preview: { attributes: [{ name: 'firstName' }] } } }, 'issue-credential.offer.credential_preview'],
      [{ ...offer, body: { ...offer.body, replacement_id: 7 } }, 'issue-credential.offer.replacement_id'],
      [{ ...offer, attachments: [] }, 'issue-credential.offer.manifest'],
      [{ ...request, thid: undefined }, 'issue-credential.request.thid'],
      [withJson(request, { ...json(request), proof: undefined }), 'issue-credential.request.application'],
      [withJson(issue, { ...fulfillment, verifiableCredential: ['eyJ.a.b'] }), 'issue-credential.issue.fulfillment'],
      [withJson(issue, { ...fulfillment, credential_fulfillment: { ...cf, descriptor_map: [{ id: 'kyc_output', format: 'jwt_vc', path: '$.verifiableCredential[0]' }] } }), 'issue-credential.issue.fulfillment'],
      [withJson(issue, { ...fulfillment, credential_fulfillment: { ...cf, descriptor_map: [{ id: 'kyc_output', format: 'ldp_vc', path: '$.credential' }] } }), 'issue-credential.issue.fulfillment'],
      [withJson(issue, { ...fulfillment, credential_fulfillment: { ...cf, descriptor_map: [] } }), 'issue-credential.issue.fulfillment'],
    ];
    const parsers: Record<string, (m: PlainMessage) => unknown> = { [ISSUE_CREDENTIAL.offer]: parseOffer, [ISSUE_CREDENTIAL.request]: parseRequestCredential, [ISSUE_CREDENTIAL.issue]: parseIssueCredential };
    for (const [m, rule] of cases) {
      expect(failuresOf(m)).toContain(rule);
      expect(() => parsers[m.type](m)).toThrow(expect.objectContaining({ code: 'message_invalid_body' }));
    }
    expect(() => parseOffer({ ...offer, body: { ...offer.body, credential_preview: { attributes: [{ name: 'shoeSize', value: '42' }] } } })).toThrow(expect.objectContaining({ code: 'message_invalid_body' }));
  });
});

describe('issue-credential 3.0 states', () => {
  it('runs holder and issuer through the streamlined flow to done', async () => {
    const { propose, offer, request, issue, ack } = await exchange();
    let holder: ThreadRecord = startThread(ISSUE_CREDENTIAL_HOLDER, 'send', propose);
    let issuerRec: ThreadRecord = startThread(ISSUE_CREDENTIAL_ISSUER, 'receive', propose);
    for (const [m, holderDir] of [[offer, 'receive'], [request, 'send'], [issue, 'receive'], [ack, 'send']] as const) {
      holder = advanceThread(ISSUE_CREDENTIAL_HOLDER, holder, holderDir, m);
      issuerRec = advanceThread(ISSUE_CREDENTIAL_ISSUER, issuerRec, holderDir === 'send' ? 'receive' : 'send', m);
    }
    expect([holder.state, issuerRec.state]).toEqual(['done', 'done']);
    expect(issuerRec).toMatchObject({ thid: propose.id, pthid: 'inv-1', peer: wallet.did, messages: [propose.id, offer.id, request.id, issue.id, ack.id] });
  });

  it('refuses a request with no offer, an ack before issue, and a second offer', async () => {
    const { offer, request, issue, ack } = await exchange();
    expect(() => startThread(ISSUE_CREDENTIAL_ISSUER, 'receive', request)).toThrow(expect.objectContaining({ code: 'unexpected_message', details: expect.objectContaining({ problemCode: 'e.p.msg.unexpected' }) }));
    // The service starts with the offer (sync): its thread id is the offer's id.
    const syncOffer = { ...offer, id: 'offer-1', thid: undefined };
    let issuerRec = startThread(ISSUE_CREDENTIAL_ISSUER, 'send', syncOffer);
    expect(issuerRec).toMatchObject({ thid: 'offer-1', state: 'offer-sent' });
    expect(() => advanceThread(ISSUE_CREDENTIAL_ISSUER, issuerRec, 'receive', { ...ack, thid: 'offer-1' })).toThrow(expect.objectContaining({ code: 'unexpected_message' }));
    issuerRec = advanceThread(ISSUE_CREDENTIAL_ISSUER, issuerRec, 'receive', { ...request, thid: 'offer-1' });
    expect(() => advanceThread(ISSUE_CREDENTIAL_ISSUER, issuerRec, 'send', { ...syncOffer, id: 'offer-2', thid: 'offer-1' })).toThrow(expect.objectContaining({ code: 'unexpected_message' }));
    const holder = startThread(ISSUE_CREDENTIAL_HOLDER, 'receive', syncOffer);
    expect(() => advanceThread(ISSUE_CREDENTIAL_HOLDER, holder, 'receive', { ...issue, thid: 'offer-1' })).toThrow(expect.objectContaining({ code: 'unexpected_message' }));
  });

  it('makes a module whose handlers get parsed messages', async () => {
    const { offer } = await exchange();
    const got: unknown[] = [];
    const m = issueCredentialProtocol({ 'offer-credential': (_ctx, parsed) => void got.push(parsed) }, ['holder']);
    expect(m).toMatchObject({ piuri: ISSUE_CREDENTIAL_PIURI, roles: ['holder'], goalCodes: [STREAMLINED_VC] });
    await m.handlers['offer-credential']({ message: offer } as never);
    expect(got[0]).toMatchObject({ challenge: 'ch-1', datapoints });
  });
});
