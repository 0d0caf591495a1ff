import { afterEach, describe, expect, it } from 'vitest';
import { verifyPresentation } from '../../src/credentials/presentation.js';
import { ionShortForm } from '../../src/did/ion-form.js';
import { attachmentJson, attachmentsOf } from '../../src/protocols/protocol-kit.js';
import { APPLICATION_FORMAT, ISSUE_CREDENTIAL } from '../../src/protocols/issue-credential.js';
import { parsePresentation, verifyDidAuth } from '../../src/protocols/present-proof.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { pack } from '../../src/didcomm/envelope/index.js';
import { createMessage } from '../../src/didcomm/message.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import { buildIssueCredential } from '../../src/protocols/issue-credential.js';
import { connect, setup, type TestSetup } from './setup.js';
import { tamperJwt } from './fake-service.js';

const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10', residentialAddressCountry: 'GB' };
const offline = documentResolver(createResolver({ cache: false }));

let t: TestSetup | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Offer → request → issue of a credential made by `make`; returns the offer and the request. */
async function offerAndRequest(s: TestSetup, o: { replacementId?: string } = {}) {
  const to = s.wallet.shortDid;
  const offer = await s.service.offer(to, DATAPOINTS, o);
  const request = await s.service.next('request-credential', (m) => m.thid === offer.id);
  return { offer, request };
}

describe('wallet sync flow', () => {
  it('answers DID authentication with a presentation that verifies, from its short form after established', async () => {
    t = await setup();
    await connect(t);
    const sent = t.wallet.waitFor('presentation-sent');
    const request = await t.service.requestPresentation(t.wallet.shortDid, { challenge: 'c-123' });
    const presentation = await t.service.next('presentation');
    expect((await sent).challenge).toBe('c-123');
    expect(presentation.thid).toBe(request.id);
    expect(presentation.from).toBe(t.wallet.shortDid);
    const parsed = parsePresentation(presentation);
    const result = await verifyDidAuth({ challenge: 'c-123', domain: t.service.did, definitionId: parsed.definitionId }, parsed, { resolve: offline, expectedHolder: t.wallet.shortDid });
    expect(result.verified).toBe(true);
    expect(parsed.presentation.proof).toMatchObject({ cryptosuite: 'eddsa-jcs-2022', proofPurpose: 'authentication', verificationMethod: `${t.wallet.did}#key-1` });
  });

  it('refuses to sign for a domain other than the DID asking', async () => {
    t = await setup();
    await connect(t);
    const request = await t.service.requestPresentation(t.wallet.shortDid, { domain: 'did:web:evil.example' });
    const problem = await t.service.nextProblem();
    expect(problem).toMatchObject({ code: 'e.p.trust.forbidden', pthid: request.id });
    expect(t.service.received.some((r) => r.message.type.endsWith('/presentation'))).toBe(false);
  });

  it('accepts an offer automatically with a credential application for its challenge and domain', async () => {
    t = await setup();
    await connect(t);
    const { offer, request } = await offerAndRequest(t);
    expect(request.from).toBe(t.wallet.shortDid);
    const application = attachmentJson(attachmentsOf(request, APPLICATION_FORMAT)[0]) as Record<string, any>;
    expect(application.type).toEqual(['VerifiablePresentation', 'CredentialApplication']);
    const challenge = (attachmentJson(offer.attachments![0]) as any).options.challenge;
    const verified = await verifyPresentation(application, { resolve: offline, challenge, domain: t.service.did, expectedHolder: t.wallet.did });
    expect(verified.verified).toBe(true);
  });

  it('verifies the issued credential, stores it and acks', async () => {
    t = await setup();
    await connect(t);
    const { offer } = await offerAndRequest(t);
    const received = t.wallet.waitForCredential({ thid: offer.id });
    const vc = await t.service.credential(t.wallet.shortDid, DATAPOINTS);
    await t.service.issue(t.wallet.shortDid, offer.id, vc);
    const ack = await t.service.next('ack', (m) => m.thid === offer.id);
    expect(ack.type).toBe(ISSUE_CREDENTIAL.ack);
    expect(ack.body).toEqual({ status: 'OK' });
    const credential = await received;
    expect(credential).toMatchObject({
      issuer: t.service.did, verified: true, status: 'valid', format: 'jwt', thid: offer.id, raw: vc,
      claims: { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10', residentialAddress: { country: 'GB' } },
    });
    expect(await t.wallet.credentials()).toHaveLength(1);
    expect((await t.wallet.threads({ state: 'done' })).map((x) => x.thid)).toContain(offer.id);
  });

  it("lets nobody but the issuer move its thread: a problem report or an issue whose from only claims the issuer's DID changes nothing", async () => {
    t = await setup();
    await connect(t);
    const { offer } = await offerAndRequest(t);
    // A party holding none of the issuer's keys writes the issuer's DID in `from`, the thread in
    // pthid/thid: plaintext, and anoncrypted (DIDComm v2.1: "Only authcrypt provides direct
    // assurances of who the sender is").
    const report = createMessage({ type: 'https://didcomm.org/report-problem/2.0/problem-report', from: t.service.did, to: [t.wallet.did], pthid: offer.id, body: { code: 'e.p.xfer.cant-use-endpoint', comment: 'spoofed' } }, { clock: t.clock });
    const forged = buildIssueCredential({ from: t.service.did, to: t.wallet.shortDid, thid: offer.id, manifestId: 'idsync-kyc-default', credential: 'not.a.jwt', format: 'jwt_vc' }, { clock: t.clock });
    const anon = async (m: object) => (await pack(m as never, { mode: 'anoncrypt', to: t!.wallet.did }, { resolve: offline, secrets: memorySecrets([]) })).packed;
    for (const packed of [JSON.stringify(report), await anon({ ...report, id: 'spoof-2' }), await anon(forged)]) {
      await t.network.transport().send('memory://wallet', packed).catch(() => undefined);
    }
    expect((await t.wallet.threads()).find((x) => x.thid === offer.id)?.state).toBe('request-sent');
    // What the issuer may hear of it does not carry the wallet's authentication (it would end the
    // issuer's thread): no report from the wallet that the issuer's router counts as authenticated.
    const reports = (await t.wallet.messages()).filter((m) => m.direction === 'out' && m.type.endsWith('/problem-report'));
    expect(reports.length).toBeGreaterThan(0);
    expect(reports.filter((m) => m.mode !== 'anoncrypt')).toEqual([]);
    // The genuine credential is still taken.
    const received = t.wallet.waitForCredential({ thid: offer.id });
    await t.service.issue(t.wallet.shortDid, offer.id, await t.service.credential(t.wallet.shortDid, DATAPOINTS));
    await t.service.next('ack', (m) => m.thid === offer.id);
    expect((await received).verified).toBe(true);
  });

  it('verifies an ldp credential (eddsa-rdfc-2022) issued to its long form', async () => {
    t = await setup();
    await connect(t);
    const { offer } = await offerAndRequest(t);
    const vc = await t.service.credential(t.wallet.did, DATAPOINTS, { format: 'ldp' });
    await t.service.issue(t.wallet.shortDid, offer.id, vc);
    const credential = await t.wallet.waitForCredential({ thid: offer.id });
    expect(credential).toMatchObject({ format: 'ldp', status: 'valid' });
  });

  it('refuses a credential whose claims were changed after signing, and stores nothing as valid', async () => {
    t = await setup();
    await connect(t);
    const { offer } = await offerAndRequest(t);
    const refused = t.wallet.waitFor('credential-refused');
    const vc = tamperJwt((await t.service.credential(t.wallet.shortDid, DATAPOINTS)) as string, (p) => (p.vc.credentialSubject.firstName = 'Eve'));
    await t.service.issue(t.wallet.shortDid, offer.id, vc);
    const problem = await t.service.nextProblem((p) => p.pthid === offer.id);
    expect(problem.code).toBe('e.p.msg.credential-invalid');
    expect(problem.text).toContain('proof');
    expect((await refused).failedCheck).toBe('proof');
    expect(await t.wallet.credentials()).toEqual([]);
    expect(await t.wallet.rejectedCredentials()).toMatchObject([{ verified: false, status: 'rejected', failedCheck: 'proof', thid: offer.id }]);
    expect(t.service.received.some((r) => r.message.type === ISSUE_CREDENTIAL.ack)).toBe(false);
  });

  it('refuses a credential issued to another subject', async () => {
    t = await setup();
    await connect(t);
    const { offer } = await offerAndRequest(t);
    const vc = await t.service.credential('did:example:someone-else', DATAPOINTS);
    await t.service.issue(t.wallet.shortDid, offer.id, vc);
    const problem = await t.service.nextProblem((p) => p.pthid === offer.id);
    expect(problem.code).toBe('e.p.msg.credential-invalid');
    expect(problem.args).toEqual(['subject', 'subject_mismatch']);
    expect(await t.wallet.credentials()).toEqual([]);
  });

  it('refuses a credential whose claims differ from the offer preview', async () => {
    t = await setup();
    await connect(t);
    const { offer } = await offerAndRequest(t);
    const vc = await t.service.credential(t.wallet.shortDid, { ...DATAPOINTS, lastName: 'Byron' });
    await t.service.issue(t.wallet.shortDid, offer.id, vc);
    expect((await t.service.nextProblem((p) => p.pthid === offer.id)).args).toEqual(['claims', 'claims_mismatch']);
  });

  it('marks the previous credential replaced when a replacement arrives', async () => {
    t = await setup();
    await connect(t);
    const first = await offerAndRequest(t);
    await t.service.issue(t.wallet.shortDid, first.offer.id, await t.service.credential(t.wallet.shortDid, DATAPOINTS, { id: 'urn:uuid:first' }));
    await t.wallet.waitForCredential({ thid: first.offer.id });

    const second = await offerAndRequest(t, { replacementId: 'urn:uuid:first' });
    await t.service.issue(t.wallet.shortDid, second.offer.id, await t.service.credential(t.wallet.shortDid, DATAPOINTS, { id: 'urn:uuid:second' }), { replacementId: 'urn:uuid:first' });
    const current = await t.wallet.waitForCredential({ thid: second.offer.id });
    expect(current).toMatchObject({ id: 'urn:uuid:second', status: 'valid', replaces: 'urn:uuid:first' });
    const all = await t.wallet.credentials();
    expect(all.map((c) => [c.id, c.status])).toEqual([['urn:uuid:first', 'replaced'], ['urn:uuid:second', 'valid']]);
    expect(all[0].replacedBy).toBe('urn:uuid:second');
    expect(await t.wallet.credentials({ status: 'valid' })).toHaveLength(1);
  });

  it('addresses the service with short-form key ids once established', async () => {
    t = await setup();
    await connect(t);
    const { request } = await offerAndRequest(t);
    const logged = (await t.wallet.messages({ thid: request.thid })).find((m) => m.id === request.id)!;
    expect(logged.from).toBe(ionShortForm(t.wallet.did));
    expect(logged.mode).toBe('authcrypt');
  });
});

describe('wallet issuance from an invitation (streamlined-vc)', () => {
  it('proposes with pthid = the invitation, then completes the WACI flow; done resolves with the credential', async () => {
    t = await setup();
    const { url, invitation } = t.service.invitationUrl('streamlined-vc');
    const acceptance = await t.wallet.acceptInvitation(url);
    if (acceptance.kind !== 'issuance') throw new Error('expected an issuance');
    const propose = await t.service.next('propose-credential');
    expect(propose).toMatchObject({ id: acceptance.thid, thid: acceptance.thid, pthid: invitation.id, from: t.wallet.did });
    await t.service.offer(t.wallet.did, DATAPOINTS, { thid: propose.id, pthid: invitation.id });
    const request = await t.service.next('request-credential', (m) => m.thid === propose.id);
    expect(request.from).toBe(t.wallet.did); // no Data Pipe with this issuer: the long form
    await t.service.issue(t.wallet.did, propose.id, await t.service.credential(t.wallet.did, DATAPOINTS));
    const credential = await acceptance.done;
    expect(credential).toMatchObject({ thid: propose.id, status: 'valid' });
  });

  it('rejects done when the issuer reports a problem', async () => {
    t = await setup();
    const acceptance = await t.wallet.acceptInvitation(t.service.invitationUrl('streamlined-vc').url);
    if (acceptance.kind !== 'issuance') throw new Error('expected an issuance');
    const propose = await t.service.next('propose-credential');
    const { createProblemReport } = await import('../../src/protocols/report-problem.js');
    await t.service.send(createProblemReport({ code: 'e.p.req.workflow-expired', pthid: propose.id, from: t.service.did, to: [t.wallet.did] }, { clock: t.clock }), t.wallet.did);
    await expect(acceptance.done).rejects.toMatchObject({ code: 'problem_reported' });
  });

  it('holds an invitation that arrives as a DIDComm message until approved', async () => {
    t = await setup();
    const { invitation } = t.service.invitationUrl('streamlined-vc');
    await t.service.send({ ...invitation, to: [t.wallet.did] }, t.wallet.did);
    const item = await t.wallet.waitForPending({ kind: 'invitation' });
    expect(item).toMatchObject({ id: invitation.id, goalCode: 'streamlined-vc', from: t.service.did });
    await t.wallet.approve(item.id);
    expect((await t.service.next('propose-credential')).pthid).toBe(invitation.id);
  });

  it('discloses the protocols and roles it supports', async () => {
    t = await setup();
    await connect(t);
    const { discoverFeatures } = await import('../../src/protocols/discover-features.js');
    const features = await discoverFeatures(t.service.router, t.wallet.shortDid, [{ 'feature-type': 'protocol', match: '*' }]);
    expect(features).toEqual(expect.arrayContaining([
      { 'feature-type': 'protocol', id: 'https://didcomm.org/issue-credential/3.0', roles: ['holder'] },
      { 'feature-type': 'protocol', id: 'https://didcomm.org/present-proof/3.0', roles: ['prover'] },
      { 'feature-type': 'protocol', id: 'https://idsync.dev/didcomm/data-pipe/1.0', roles: ['requester'] },
      { 'feature-type': 'protocol', id: 'https://didcomm.org/messagepickup/3.0', roles: ['recipient'] },
    ]));
  });
});
