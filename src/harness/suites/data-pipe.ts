// An out-of-band invitation with goal_code idsync.data-pipe (docs/protocols.md "Data Pipe 1.0"):
// idsync plays the requester — it sends `request` with the user's consent, pthid = the invitation —
// and the agent under test answers `established`, threaded to the request, naming the DID linked.
import { sameDid } from '../../didcomm/message.js';
import { buildDataPipeRequest, DATA_PIPE, DATA_PIPE_GOAL_CODE } from '../../protocols/data-pipe.js';
import { systemClock } from '../../clock.js';
import { answerTo, awaitAnswer, broke, ordinary, inconclusive, inKindRules, messageRules, ok, PROBLEM_REPORT, skipped, transportRules, unanswered, type CaseDefinition } from '../case-kit.js';

export const DATA_PIPE_CASES: CaseDefinition[] = [
  {
    id: 'data-pipe/establish',
    suite: 'data-pipe',
    title: 'As requester: a Data Pipe request with consent is answered by established, threaded to it',
    section: 'Data Pipe 1.0 (idsync) request, established',
    url: 'protocols.md#data-pipe-10',
    steps: ['send request: thid = its id, pthid = the invitation id, body.consent {granted, at}', 'wait for established', 'threaded to the request; body.did is the requester\'s DID; it is itself conformant'],
    async run(c) {
      const inv = c.invitation?.message;
      if (!inv) return skipped('the target is not an invitation URL');
      if (inv.body?.goal_code !== DATA_PIPE_GOAL_CODE) return skipped(`the invitation's goal_code is ${String(inv.body?.goal_code)}, not ${DATA_PIPE_GOAL_CODE}`);
      const request = buildDataPipeRequest({ from: c.cp.did, to: c.target, invitationId: inv.id, consentAt: new Date().toISOString(), label: 'idsync conformance' }, { clock: systemClock });
      const sent = await c.cp.send(request, { mode: c.mode });
      await ordinary(c, sent, request, 'the request', { rule: 'data-pipe.established.thid' });
      const broken = transportRules(sent, 'the request');
      const answer = await Promise.race([
        answerTo(c, request, DATA_PIPE.established, sent),
        awaitAnswer(c, sent, (r) => r.message?.type === PROBLEM_REPORT && r.message.pthid === request.id),
      ]);
      if (!answer) return inconclusive(`no established${unanswered(c, sent)}`, broken);
      if (answer.message!.type === PROBLEM_REPORT) {
        return { broken: [...broken, broke('data-pipe.established.thid', `the request was answered with a problem report ${String(answer.message!.body.code)}`, answer.entry.seq)] };
      }
      broken.push(...messageRules(answer, 'established'), ...inKindRules(answer, 'established', c.mode));
      if (answer.message!.thid !== request.id) broken.push(broke('data-pipe.established.thid', `established has thid ${String(answer.message!.thid)}, not the request id ${request.id}`, answer.entry.seq));
      const did = answer.message!.body.did;
      if (typeof did === 'string' && !sameDid(did, c.cp.did)) broken.push(broke('data-pipe.established.did', `established names ${did}, not the requester ${c.cp.did}`, answer.entry.seq));
      return broken.length ? { broken } : ok();
    },
  },
];
