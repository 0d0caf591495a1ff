// An out-of-band invitation with goal_code streamlined-vp (WACI-DIDComm Presentation, Present
// Proof 3.0): idsync is the prover. propose-presentation (pthid = the invitation) → the verifier's
// request-presentation (threaded, a presentation definition with challenge and domain) → a
// presentation signed for them → the verifier's ack when it promised one (will_confirm). The
// harness holds no credentials: it presents DID authentication, so a request asking for
// credentials is skipped.
import { systemClock } from '../../clock.js';
import { signPresentation } from '../../credentials/presentation.js';
import { xsdDateTime } from '../../credentials/issue.js';
import { buildDidAuthPresentation, buildPresentation, buildProposePresentation, parseRequestPresentation, PRESENT_PROOF } from '../../protocols/present-proof.js';
import { answerTo, awaitAnswer, broke, ordinary, inconclusive, inKindRules, messageRules, ok, PROBLEM_REPORT, skipped, transportRules, unanswered, type BrokenRuleList, type CaseDefinition } from '../case-kit.js';

export const STREAMLINED_VP = 'streamlined-vp';

export const WACI_PRESENT_CASES: CaseDefinition[] = [
  {
    id: 'waci/streamlined-vp',
    suite: 'waci-present',
    title: 'As prover: propose → request → presentation → ack, threaded, with the request\'s challenge and domain',
    section: 'WACI-DIDComm Presentation; Present Proof 3.0',
    url: 'https://didcomm.org/present-proof/3.0/',
    steps: [
      'send propose-presentation, pthid = the invitation id',
      'wait for request-presentation: threaded to the propose, a presentation definition with options.challenge and domain',
      'send a presentation (DID authentication) signed for that challenge and domain',
      'with will_confirm: wait for an ack with status OK; every answer encrypted and authenticated',
    ],
    async run(c) {
      const inv = c.invitation?.message;
      if (!inv) return skipped('the target is not an invitation URL');
      if (inv.body?.goal_code !== STREAMLINED_VP) return skipped(`the invitation's goal_code is ${String(inv.body?.goal_code)}, not ${STREAMLINED_VP}`);
      const broken: BrokenRuleList = [];
      const deps = { clock: systemClock };
      const propose = buildProposePresentation({ from: c.cp.did, to: c.target, pthid: inv.id }, deps);
      const p = await c.cp.send(propose, { mode: c.mode });
      await ordinary(c, p, propose, 'the propose-presentation', { rule: 'present-proof.request' });
      broken.push(...transportRules(p, 'the propose'));
      const request = await Promise.race([
        answerTo(c, propose, PRESENT_PROOF.request, p),
        awaitAnswer(c, p, (r) => r.message?.type === PROBLEM_REPORT && r.entry.seq > p.entry.seq),
      ]);
      if (!request) return inconclusive(`no request-presentation${unanswered(c, p)}`, broken);
      if (request.message!.type === PROBLEM_REPORT) return { broken: [...broken, broke('present-proof.request', `the propose was answered with a problem report ${String(request.message!.body.code)}`, request.entry.seq)] };
      broken.push(...messageRules(request, 'the request'), ...inKindRules(request, 'the request', c.mode));
      if (request.message!.thid !== propose.id) broken.push(broke('present-proof.request.thid', `the request has thid ${String(request.message!.thid)}, not the propose's ${propose.id}`, request.entry.seq));
      let parsed;
      try {
        parsed = parseRequestPresentation(request.message!);
      } catch (err) {
        return { broken: [...broken, ...(broken.length ? [] : [broke('present-proof.request.definition', (err as Error).message, request.entry.seq)])] };
      }
      if (parsed.inputDescriptors.length > 0) {
        return broken.some((b) => b.severity === 'error') ? { broken } : skipped(`the verifier asks for ${parsed.inputDescriptors.length} credential(s); the harness presents DID authentication only`);
      }
      const key = c.cp.signingKey();
      const vp = signPresentation(buildDidAuthPresentation({ holder: c.cp.did, definitionId: parsed.definitionId }), {
        kid: key.kid, privateKey: key.privateKey, challenge: parsed.challenge, domain: parsed.domain, created: xsdDateTime(Date.now()),
      });
      const thid = request.message!.thid ?? request.message!.id;
      const presentation = buildPresentation({ from: c.cp.did, to: c.target, thid, presentation: vp }, deps);
      const s = await c.cp.send(presentation, { mode: c.mode });
      broken.push(...transportRules(s, 'the presentation'));
      if (parsed.willConfirm) {
        const ack = await awaitAnswer(c, s, (r) => (r.message?.type === PRESENT_PROOF.ack || r.message?.type === PROBLEM_REPORT) && r.entry.seq > s.entry.seq && (r.message.thid === thid || r.message.pthid === thid));
        if (!ack) return inconclusive(`will_confirm was set, but no ack came${unanswered(c, s)}`, broken);
        if (ack.message!.type === PROBLEM_REPORT) broken.push(broke('present-proof.ack', `a valid presentation was refused: ${String(ack.message!.body.code)}`, ack.entry.seq));
        else {
          broken.push(...messageRules(ack, 'the ack'), ...inKindRules(ack, 'the ack', c.mode));
          if (ack.message!.body.status !== undefined && ack.message!.body.status !== 'OK') broken.push(broke('present-proof.ack', `the ack says ${String(ack.message!.body.status)}`, ack.entry.seq));
        }
      }
      return broken.length ? { broken } : ok();
    },
  },
];
