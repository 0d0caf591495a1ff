// `--role holder`: idsync is the issuer and the agent under test the holder (WACI-DIDComm
// Issuance, Issue Credential 3.0). idsync makes a streamlined-vc invitation, serves it at /connect
// and hands its URL out (the CLI prints it); the agent accepts it, and the case checks the
// holder's side: propose (authcrypted, pthid = the invitation), request-credential in the offer's
// thread with a credential application signed for the offer's challenge and domain, and an ack
// once the credential — issued by idsync's did:peer:2, claims as previewed — arrives.
import { randomUUID } from 'node:crypto';
import { systemClock } from '../../clock.js';
import { issueCredential } from '../../credentials/issue.js';
import { credentialManifestFor, defaultKycProfile } from '../../credentials/manifest.js';
import { verifyPresentation } from '../../credentials/presentation.js';
import { b64uEncode } from '../../encoding.js';
import { buildIssueCredential, buildOffer, ISSUE_CREDENTIAL, parseRequestCredential, STREAMLINED_VC } from '../../protocols/issue-credential.js';
import { previewFromDatapoints } from '../../protocols/credential-manifest-messages.js';
import type { PlainMessage } from '../../didcomm/types.js';
import { awaitAnswer, broke, inconclusive, ordinary, inKindRules, messageRules, ok, PROBLEM_REPORT, transportRules, unanswered, type BrokenRuleList, type CaseDefinition } from '../case-kit.js';

export const OOB_INVITATION = 'https://didcomm.org/out-of-band/2.0/invitation';
const PREVIEW = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' };

/** A streamlined-vc invitation from the harness, and the URL that carries it (served at /connect). */
export function issuerInvitation(did: string, baseUrl: string): { message: PlainMessage; url: string } {
  const message: PlainMessage = { type: OOB_INVITATION, id: randomUUID(), from: did, body: { goal_code: STREAMLINED_VC, goal: 'idsync conformance: receive a test credential', accept: ['didcomm/v2'] } };
  return { message, url: `${baseUrl}/connect?_oob=${b64uEncode(JSON.stringify(message))}` };
}

export const ISSUER_ROLE_CASES: CaseDefinition[] = [
  {
    id: 'holder/streamlined-vc',
    suite: 'holder',
    title: 'As holder: accepts a streamlined-vc invitation, requests with a signed application, acks a valid credential',
    section: 'WACI-DIDComm Issuance; Issue Credential 3.0',
    url: 'https://identity.foundation/waci-didcomm/',
    steps: [
      'idsync serves a streamlined-vc invitation at /connect and prints its URL; the agent accepts it',
      'propose-credential arrives: encrypted (authenticated, for the harness to answer it), pthid = the invitation id',
      'idsync offers (credential manifest, challenge, domain, preview); request-credential arrives in the thread with an application signed for that challenge and domain',
      'idsync issues a credential with the previewed claims; an ack with status OK arrives',
    ],
    async run(c) {
      const inv = c.invitation?.message;
      if (!inv) throw new Error('the holder role needs the invitation idsync issued');
      const broken: BrokenRuleList = [];
      // The agent comes to idsync: its propose is POSTed to idsync's HTTP endpoint, and idsync has
      // no socket to it yet whose close could end this wait. The waits after it end at one (awaitAnswer).
      const propose = await c.cp.waitFor((r) => r.message?.type === ISSUE_CREDENTIAL.propose, c.acceptTimeoutMs ?? c.timeoutMs);
      if (!propose) return inconclusive(`the invitation was not accepted within ${c.acceptTimeoutMs ?? c.timeoutMs} ms`);
      const md = propose.check.metadata;
      const holder = md?.encryptedFromKid?.split('#')[0] ?? (typeof propose.message!.from === 'string' ? propose.message!.from : undefined);
      broken.push(...messageRules(propose, 'the propose'));
      // WACI-DIDComm §Encryption asks for encryption, not for authcrypt: an anoncrypted propose breaks
      // nothing, but the harness answers only a holder the envelope authenticates.
      if (!md?.encrypted) return { broken: [...broken, broke('issue-credential.propose.encrypted', `the propose came ${md?.mode ?? propose.entry.mode}, not encrypted`, propose.entry.seq)] };
      if (!md.authenticated || !holder) return inconclusive(`the propose came ${md.mode}: encrypted, but no sender key or signature names the holder to answer`, broken);
      if (propose.message!.pthid !== inv.id) broken.push(broke('issue-credential.propose', `the propose has pthid ${String(propose.message!.pthid)}, not the invitation ${inv.id}`, propose.entry.seq));
      await c.cp.setTarget(holder);

      const challenge = randomUUID();
      const manifest = credentialManifestFor(defaultKycProfile(c.cp.did), c.cp.did, 'idsync conformance') as unknown as Record<string, unknown>;
      const thid = propose.message!.thid ?? propose.message!.id;
      const offer = buildOffer({ from: c.cp.did, to: holder, thid, pthid: inv.id, manifest, preview: previewFromDatapoints(PREVIEW), challenge, domain: c.cp.did, goalCode: STREAMLINED_VC }, { clock: systemClock });
      const o = await c.cp.send(offer, { mode: c.mode });
      await ordinary(c, o, offer, 'the offer', { rule: 'issue-credential.request' });
      broken.push(...transportRules(o, 'the offer'));
      const request = await awaitAnswer(c, o, (r) => (r.message?.type === ISSUE_CREDENTIAL.request || r.message?.type === PROBLEM_REPORT) && (r.message.thid === thid || r.message.pthid === thid));
      if (!request) return inconclusive(`no request-credential${unanswered(c, o)}`, broken);
      if (request.message!.type === PROBLEM_REPORT) return { broken: [...broken, broke('issue-credential.request', `the offer was answered with a problem report ${String(request.message!.body.code)}`, request.entry.seq)] };
      broken.push(...messageRules(request, 'the request'), ...inKindRules(request, 'the request', c.mode));
      let application;
      try {
        application = parseRequestCredential(request.message!).application;
      } catch (err) {
        return { broken: [...broken, ...(broken.length ? [] : [broke('issue-credential.request.application', (err as Error).message, request.entry.seq)])] };
      }
      const vp = await verifyPresentation(application, { resolve: c.cp.ctx.resolve, challenge, domain: c.cp.did, expectedHolder: holder });
      if (!vp.verified) broken.push(broke('issue-credential.request.signed', `the credential application does not verify: ${vp.code ?? 'failed'}${vp.detail ? ` (${vp.detail})` : ''}`, request.entry.seq));

      const issued = await issueCredential({ format: 'ldp', subjectDid: holder, claims: PREVIEW, clock: systemClock, issuer: c.cp.issuingKey() });
      const issue = buildIssueCredential({ from: c.cp.did, to: holder, thid, manifestId: String(manifest.id), credential: issued.credential as Record<string, unknown>, format: 'ldp_vc' }, { clock: systemClock });
      const i = await c.cp.send(issue, { mode: c.mode });
      broken.push(...transportRules(i, 'the issue message'));
      const ack = await awaitAnswer(c, i, (r) => (r.message?.type === ISSUE_CREDENTIAL.ack || r.message?.type === PROBLEM_REPORT) && (r.message.thid === thid || r.message.pthid === thid) && r.entry.seq > request.entry.seq);
      if (!ack) return inconclusive(`no ack${unanswered(c, i)}`, broken);
      if (ack.message!.type === PROBLEM_REPORT) return { broken: [...broken, broke('issue-credential.ack', `a valid credential was refused: ${String(ack.message!.body.code)} ${String(ack.message!.body.comment ?? '')}`, ack.entry.seq)] };
      broken.push(...messageRules(ack, 'the ack'), ...inKindRules(ack, 'the ack', c.mode));
      if (ack.message!.body.status !== undefined && ack.message!.body.status !== 'OK') broken.push(broke('issue-credential.ack', `the ack says ${String(ack.message!.body.status)}`, ack.entry.seq));
      return broken.length ? { broken } : ok();
    },
  },
];
