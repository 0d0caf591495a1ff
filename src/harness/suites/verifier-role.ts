// `--role prover`: idsync is the verifier and the agent under test the prover (WACI-DIDComm
// Presentation, Present Proof 3.0). idsync serves a streamlined-vp invitation; the agent proposes
// (authcrypted, pthid = the invitation), idsync requests DID authentication (a presentation
// definition without input descriptors, a challenge and its own DID as domain), and the
// presentation must arrive in the thread, signed by the prover's authentication key for them.
import { randomUUID } from 'node:crypto';
import { systemClock } from '../../clock.js';
import { verifyPresentation } from '../../credentials/presentation.js';
import { b64uEncode } from '../../encoding.js';
import { buildPresentationAck, buildRequestPresentation, parsePresentation, PRESENT_PROOF } from '../../protocols/present-proof.js';
import type { PlainMessage } from '../../didcomm/types.js';
import { awaitAnswer, broke, inconclusive, ordinary, inKindRules, messageRules, ok, PROBLEM_REPORT, transportRules, unanswered, type BrokenRuleList, type CaseDefinition } from '../case-kit.js';
import { OOB_INVITATION } from './issuer-role.js';
import { STREAMLINED_VP } from './waci-present.js';

/** A streamlined-vp invitation from the harness, and the URL that carries it (served at /connect). */
export function verifierInvitation(did: string, baseUrl: string): { message: PlainMessage; url: string } {
  const message: PlainMessage = { type: OOB_INVITATION, id: randomUUID(), from: did, body: { goal_code: STREAMLINED_VP, goal: 'idsync conformance: prove control of your DID', accept: ['didcomm/v2'] } };
  return { message, url: `${baseUrl}/connect?_oob=${b64uEncode(JSON.stringify(message))}` };
}

export const VERIFIER_ROLE_CASES: CaseDefinition[] = [
  {
    id: 'prover/streamlined-vp',
    suite: 'prover',
    title: 'As prover: accepts a streamlined-vp invitation and presents, signed for the request\'s challenge and domain',
    section: 'WACI-DIDComm Presentation; Present Proof 3.0',
    url: 'https://identity.foundation/waci-didcomm/',
    steps: [
      'idsync serves a streamlined-vp invitation at /connect and prints its URL; the agent accepts it',
      'propose-presentation arrives: encrypted (authcrypted, for the harness to answer it), pthid = the invitation id',
      'idsync requests DID authentication (challenge, domain = its DID, will_confirm); a presentation arrives in the thread, encrypted and authenticated',
      'the presentation verifies: holder = the prover, signed by its authentication key for that challenge and domain; idsync acks',
    ],
    async run(c) {
      const inv = c.invitation?.message;
      if (!inv) throw new Error('the prover role needs the invitation idsync issued');
      const broken: BrokenRuleList = [];
      // The agent comes to idsync: its propose is POSTed to idsync's HTTP endpoint, and idsync has
      // no socket to it yet whose close could end this wait. The waits after it end at one (awaitAnswer).
      const propose = await c.cp.waitFor((r) => r.message?.type === PRESENT_PROOF.propose, c.acceptTimeoutMs ?? c.timeoutMs);
      if (!propose) return inconclusive(`the invitation was not accepted within ${c.acceptTimeoutMs ?? c.timeoutMs} ms`);
      const md = propose.check.metadata;
      const prover = md?.encryptedFromKid?.split('#')[0];
      broken.push(...messageRules(propose, 'the propose'));
      // WACI-DIDComm §Encryption asks for encryption, not for authcrypt: a propose in another
      // encrypted envelope breaks nothing, but the harness answers only an authcrypt sender.
      if (!md?.encrypted) return { broken: [...broken, broke('present-proof.propose.encrypted', `the propose came ${md?.mode ?? propose.entry.mode}, not encrypted`, propose.entry.seq)] };
      if (!prover) return inconclusive(`the propose came ${md.mode}: encrypted, but not authcrypted, and the harness answers only the authcrypt sender`, broken);
      if (propose.message!.pthid !== inv.id) broken.push(broke('present-proof.propose', `the propose has pthid ${String(propose.message!.pthid)}, not the invitation ${inv.id}`, propose.entry.seq));
      await c.cp.setTarget(prover);
      const challenge = randomUUID();
      const thid = propose.message!.thid ?? propose.message!.id;
      const request = buildRequestPresentation({ from: c.cp.did, to: prover, thid, pthid: inv.id, challenge, domain: c.cp.did, goalCode: STREAMLINED_VP, willConfirm: true }, { clock: systemClock });
      const sent = await c.cp.send(request, { mode: c.mode });
      await ordinary(c, sent, request, 'the request-presentation', { rule: 'present-proof.presentation' });
      broken.push(...transportRules(sent, 'the request'));
      const answer = await awaitAnswer(c, sent, (r) => (r.message?.type === PRESENT_PROOF.presentation || r.message?.type === PROBLEM_REPORT) && (r.message.thid === thid || r.message.pthid === thid));
      if (!answer) return inconclusive(`no presentation${unanswered(c, sent)}`, broken);
      if (answer.message!.type === PROBLEM_REPORT) return { broken: [...broken, broke('present-proof.presentation', `the request was answered with a problem report ${String(answer.message!.body.code)}`, answer.entry.seq)] };
      broken.push(...messageRules(answer, 'the presentation'), ...inKindRules(answer, 'the presentation', c.mode));
      let vp: unknown;
      try {
        vp = parsePresentation(answer.message!).presentation;
      } catch (err) {
        return { broken: [...broken, ...(broken.length ? [] : [broke('present-proof.presentation.submission', (err as Error).message, answer.entry.seq)])] };
      }
      const checked = await verifyPresentation(vp, { resolve: c.cp.ctx.resolve, challenge, domain: c.cp.did, expectedHolder: prover });
      if (!checked.verified) broken.push(broke('present-proof.presentation.signed', `the presentation does not verify: ${checked.code ?? 'failed'}${checked.detail ? ` (${checked.detail})` : ''}`, answer.entry.seq));
      const ack = buildPresentationAck({ from: c.cp.did, to: prover, thid, status: checked.verified ? 'OK' : 'FAIL' }, { clock: systemClock });
      broken.push(...transportRules(await c.cp.send(ack, { mode: c.mode }), 'the ack'));
      return broken.length ? { broken } : ok();
    },
  },
];
