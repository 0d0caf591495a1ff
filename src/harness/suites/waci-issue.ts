// An out-of-band invitation URL: the invitation itself (DIDComm v2.1 §Out Of Band Messages), and
// for goal_code streamlined-vc the holder's side of WACI issuance (Issue Credential 3.0 with
// credential manifests): propose → offer → request (a credential application signed for the
// offer's challenge and domain) → issue → ack, checking every message, the threading, and the
// credential against the offer's preview. One invitation is good for one issuance, so the flow is
// one case.
import { verifyCredential } from '../../credentials/verify.js';
import { fetchBounded } from '../../did/web.js';
import { parseJsonBounded } from '../../json-depth.js';
import { systemClock } from '../../clock.js';
import { buildCredentialApplication } from '../../protocols/credential-manifest-messages.js';
import { buildIssueAck, buildProposeCredential, buildRequestCredential, ISSUE_CREDENTIAL, parseIssueCredential, parseOffer, STREAMLINED_VC } from '../../protocols/issue-credential.js';
import { signPresentation } from '../../credentials/presentation.js';
import { xsdDateTime } from '../../credentials/issue.js';
import type { PlainMessage } from '../../didcomm/types.js';
import { answerTo, awaitAnswer, broke, ordinary, inconclusive, inKindRules, messageRules, ok, PROBLEM_REPORT, skipped, transportRules, unanswered, type BrokenRuleList, type CaseContext, type CaseDefinition } from '../case-kit.js';
import type { PostOutcome, Received } from '../counterpart.js';

const OOB_URL = 'https://identity.foundation/didcomm-messaging/spec/v2.1/#out-of-band-messages';
const ISSUE_URL = 'https://didcomm.org/issue-credential/3.0/';

const deps = () => ({ clock: systemClock });
/** The checks of verifyCredential that judge how the credential is secured (credential.verified). */
const SECURING = new Set(['structure', 'issuer_key', 'proof']);

/** Waits for `type` in the thread of `sent`, or a problem report about it; says which. */
async function next(c: CaseContext, sent: PlainMessage, on: PostOutcome, type: string): Promise<Received | undefined> {
  return Promise.race([
    answerTo(c, sent, type, on),
    awaitAnswer(c, on, (r) => r.message?.type === PROBLEM_REPORT && r.entry.seq > on.entry.seq),
  ]);
}

const problemText = (r: Received) => `a problem report ${String(r.message?.body?.code)}: ${String(r.message?.body?.comment ?? '')}`;

export const OOB_CASES: CaseDefinition[] = [
  {
    id: 'out-of-band/invitation',
    suite: 'out-of-band',
    title: 'The invitation URL and the invitation are well formed',
    section: 'DIDComm Messaging v2.1 §Out Of Band Messages',
    url: OOB_URL,
    steps: ['decode the _oob parameter (base64url, JSON)', 'check the invitation: type, from, body, plaintext headers'],
    async run(c) {
      const broken = (c.invitation?.results ?? []).filter((r) => !r.ok).map((r) => broke(r.rule, r.detail ?? 'broken'));
      return broken.length ? { broken } : ok();
    },
  },
  {
    id: 'waci/streamlined-vc',
    suite: 'waci-issue',
    title: 'As holder: propose → offer → request → issue → ack, with a credential that verifies and matches the preview',
    section: 'WACI-DIDComm Issuance; Issue Credential 3.0',
    url: ISSUE_URL,
    steps: [
      'send propose-credential, pthid = the invitation id',
      'wait for offer-credential: threaded to the propose, a credential manifest with challenge and domain, a preview',
      'send request-credential with a credential application signed for that challenge and domain',
      'wait for issue-credential: threaded, one fulfillment; the credential verifies (proof, issuer, subject = the harness, validity, status) and its claims are the preview\'s',
      'every answer is encrypted and authenticated, as the harness\'s messages are',
      'send the ack',
    ],
    async run(c) {
      const inv = c.invitation?.message;
      if (!inv) return skipped('the target is not an invitation URL');
      if (inv.body?.goal_code !== STREAMLINED_VC) return skipped(`the invitation's goal_code is ${String(inv.body?.goal_code)}, not ${STREAMLINED_VC}`);
      const broken: BrokenRuleList = [];
      const propose = buildProposeCredential({ from: c.cp.did, to: c.target, pthid: inv.id }, deps());
      const p = await c.cp.send(propose, { mode: c.mode });
      await ordinary(c, p, propose, 'the propose-credential', { rule: 'issue-credential.offer' });
      broken.push(...transportRules(p, 'the propose'));
      const offerMsg = await next(c, propose, p, ISSUE_CREDENTIAL.offer);
      if (!offerMsg) return inconclusive(`no offer${unanswered(c, p)}`, broken);
      if (offerMsg.message!.type === PROBLEM_REPORT) return { broken: [...broken, broke('issue-credential.offer', `the propose was answered with ${problemText(offerMsg)}`, offerMsg.entry.seq)] };
      broken.push(...messageRules(offerMsg, 'the offer'), ...inKindRules(offerMsg, 'the offer', c.mode));
      if (offerMsg.message!.thid !== propose.id) broken.push(broke('issue-credential.offer.thid', `the offer has thid ${String(offerMsg.message!.thid)}, not the propose's ${propose.id}`, offerMsg.entry.seq));
      let offer;
      try {
        offer = parseOffer(offerMsg.message!);
      } catch (err) {
        return { broken: [...broken, ...(broken.length ? [] : [broke('issue-credential.offer.manifest', (err as Error).message, offerMsg.entry.seq)])] };
      }
      const key = c.cp.signingKey();
      const application = signPresentation(buildCredentialApplication({ holder: c.cp.did, manifestId: String(offer.manifest.id) }), {
        kid: key.kid, privateKey: key.privateKey, challenge: offer.challenge, domain: offer.domain, created: xsdDateTime(Date.now()),
      });
      const thid = offerMsg.message!.thid ?? offerMsg.message!.id;
      const request = buildRequestCredential({ from: c.cp.did, to: c.target, thid, pthid: inv.id, application }, deps());
      const q = await c.cp.send(request, { mode: c.mode });
      broken.push(...transportRules(q, 'the request'));
      const issueMsg = await next(c, { ...request, id: thid }, q, ISSUE_CREDENTIAL.issue);
      if (!issueMsg) return inconclusive(`no issue-credential${unanswered(c, q)}`, broken);
      if (issueMsg.message!.type === PROBLEM_REPORT) return { broken: [...broken, broke('issue-credential.issue', `the request was answered with ${problemText(issueMsg)}`, issueMsg.entry.seq)] };
      broken.push(...messageRules(issueMsg, 'the issue message'), ...inKindRules(issueMsg, 'the issue message', c.mode));
      let issued;
      try {
        issued = parseIssueCredential(issueMsg.message!);
      } catch (err) {
        return { broken: [...broken, ...(broken.length ? [] : [broke('issue-credential.issue.fulfillment', (err as Error).message, issueMsg.entry.seq)])] };
      }
      for (const item of issued.credentials) {
        const result = await verifyCredential(item.credential, {
          resolve: c.cp.ctx.resolve,
          clock: systemClock,
          expectedSubject: c.cp.did,
          expectedIssuer: c.target,
          ...(offer.datapoints ? { expectedClaims: offer.datapoints as Record<string, unknown> } : {}),
          statusList: async (url) => (issued.statusListCredential !== undefined ? issued.statusListCredential : fetchStatusList(url)),
        });
        for (const check of result.checks.filter((x) => !x.ok)) {
          // VC DM 2.0 §1.4 asks the issuer to secure the credential: its form, key and proof. Who it
          // names, its validity period and its status are the issuance's, not the securing's.
          const rule = check.check === 'claims' ? 'issue-credential.issue.matches-preview' : SECURING.has(check.check) ? 'credential.verified' : 'credential.issued-as-offered';
          broken.push(broke(rule, `the credential failed the ${check.check} check (${check.code ?? 'failed'})${check.detail ? `: ${check.detail}` : ''}`, issueMsg.entry.seq));
        }
      }
      const ack = buildIssueAck({ from: c.cp.did, to: c.target, thid, status: broken.some((b) => b.severity === 'error') ? 'FAIL' : 'OK' }, deps());
      broken.push(...transportRules(await c.cp.send(ack, { mode: c.mode }), 'the ack'));
      return broken.length ? { broken } : ok();
    },
  },
];

/**
 * A status list the issuer named but did not attach. The URL comes from the agent under test, so it
 * is fetched under the did:web rules (https, or http to localhost; connections checked after name
 * resolution; same-host redirects; 10 s and 1 MiB limits). Unavailable → undefined, which the
 * verifier reports as its status check failing.
 */
async function fetchStatusList(url: string): Promise<unknown> {
  try {
    const res = await fetchBounded(new URL(url), { timeoutMs: 10_000, maxBytes: 1024 * 1024, accept: 'application/vc+ld+json, application/json, application/vc+jwt' });
    if (!res.ok) return undefined;
    const text = (res.text ?? '').trim();
    return text.startsWith('{') ? parseJsonBounded(text) : text;
  } catch {
    return undefined;
  }
}
