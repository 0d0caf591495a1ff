// The mediator suite, Coordinate Mediation 2.0 and 3.0: mediation granted (2.0: routing_did one
// DID; 3.0: a list), denied by the mediator's policy (a did:key requester: run idsync's mediator
// with --deny 'did:key:*' to exercise it), and the keylist updated, queried and cleaned up.
import { createKeyDid } from '../../did/key.js';
import { pack } from '../../didcomm/envelope/index.js';
import { memorySecrets } from '../../didcomm/secrets.js';
import { MEDIA_TYPES, type PlainMessage } from '../../didcomm/types.js';
import { mediationTypes } from '../../protocols/coordinate-mediation.js';
import { awaitAnswer, inconclusive, ok, skipped, unanswered, type CaseDefinition } from '../case-kit.js';
import { checkMessageText } from '../check.js';
import { envelopeModeOf } from '../modes.js';
import { broke, CM_SECTION, CM_URL, exchange, granted, isProblem, mediate, newRecipient, noAnswer, register, type Exchange } from './mediator-kit.js';

const SUITE = 'mediation';
const base = { suite: SUITE, section: CM_SECTION, url: CM_URL };

/** The rules every answer to a coordinate-mediation request is judged by: answered, threaded, on the return route. */
function answered(ex: Exchange, what: string, expected: string[]) {
  const broken = [...ex.broken];
  const a = ex.answer;
  if (!a) return { broken, missing: true };
  if (!isProblem(a) && !expected.includes(String(a.message!.type))) broken.push(broke('coordinate-mediation.answered', `${what} was answered with ${String(a.message!.type)}, not ${expected.join(' or ')}`, a.entry.seq));
  if (a.via !== 'return-route') broken.push(broke('coordinate-mediation.return-route', `${what} asked for return_route "all" and was answered through the harness's endpoint instead`, a.entry.seq));
  return { broken, missing: false };
}

export const MEDIATOR_COORDINATION_CASES: CaseDefinition[] = [
  {
    ...base,
    id: 'mediation/grant',
    title: 'A 2.0 mediate-request is granted, routing_did one DID string, on the return route',
    steps: ['send coordinate-mediation 2.0 mediate-request (authcrypt, return_route all)', 'the answer is mediate-grant threaded to it, in the HTTP response', 'body.routing_did is one DID string'],
    async run(c) {
      const ex = await mediate(c, '2.0');
      const { broken, missing } = answered(ex, 'the mediate-request', [mediationTypes('2.0').grant, mediationTypes('2.0').deny]);
      if (missing) return inconclusive(noAnswer('the mediate-request', c, ex), broken);
      if (!granted(ex)) return skipped(`the target did not grant mediation to the harness (${String(ex.answer!.message!.type)}${isProblem(ex.answer) ? ` ${String(ex.answer!.message!.body.code)}` : ''}); the other cases need it`);
      return { broken };
    },
  },
  {
    ...base,
    id: 'mediation/grant-3',
    title: 'A 3.0 mediate-request is granted with routing_did a list of DIDs',
    steps: ['send coordinate-mediation 3.0 mediate-request', 'the answer is a 3.0 mediate-grant whose routing_did is a list'],
    async run(c) {
      const ex = await mediate(c, '3.0');
      if (!ex.answer) return inconclusive(noAnswer('the 3.0 mediate-request', c, ex), ex.broken);
      if (isProblem(ex.answer) && String(ex.answer.message!.body.code).includes('unsupported')) return skipped('the target does not speak coordinate-mediation 3.0');
      return { broken: answered(ex, 'the 3.0 mediate-request', [mediationTypes('3.0').grant, mediationTypes('3.0').deny]).broken };
    },
  },
  {
    ...base,
    id: 'mediation/deny',
    title: 'A requester the mediator will not serve gets mediate-deny (run idsync mediator with --deny "did:key:*")',
    steps: ['send a 2.0 mediate-request from a new did:key (authcrypt, return_route all)', 'a mediator whose policy refuses it answers mediate-deny threaded to it', 'a grant means it serves did:key requesters: the case is skipped'],
    async run(c) {
      const requester = createKeyDid();
      const ctx = { resolve: async (d: string) => (d === requester.did ? requester.document : c.cp.ctx.resolve(d)), secrets: memorySecrets(requester.secrets), engine: 'native' as const };
      const request: PlainMessage = { id: crypto.randomUUID(), type: mediationTypes('2.0').request, from: requester.did, to: [c.target], body: {}, return_route: 'all', created_time: Math.floor(Date.now() / 1000) };
      const { packed } = await pack(request, { mode: envelopeModeOf(c.mode), to: c.target, from: requester.did }, ctx);
      const outcome = await c.cp.post(packed, MEDIA_TYPES.encrypted, { type: request.type, id: request.id, note: `mediate-request from ${requester.did.slice(0, 24)}… (answers opened with its keys)` });
      // On a WebSocket the answer comes as a frame of its own, which the harness's keys cannot open.
      const reply = outcome.received[0] ?? (outcome.transport === 'ws' && !outcome.error ? await awaitAnswer(c, outcome, (r) => r.entry.seq > outcome.entry.seq && r.message === undefined) : undefined);
      if (!reply) return inconclusive(`no return-routed answer to the did:key requester's mediate-request (${outcome.transport === 'ws' ? `on the WebSocket${outcome.error ? `: ${outcome.error}` : unanswered(c, outcome)}` : `HTTP ${outcome.status ?? outcome.error}`})`);
      const answer = (await checkMessageText(reply.packed, ctx)).message;
      if (answer?.type === mediationTypes('2.0').grant) return skipped('the target granted mediation to a did:key requester: its policy denies nobody such (idsync mediator --deny "did:key:*" exercises the refusal)');
      if (answer?.type === mediationTypes('2.0').deny) return answer.thid === request.id ? ok() : { broken: [broke('coordinate-mediation.answered', `the mediate-deny has thid ${String(answer.thid)}, not the request id`, reply.entry.seq)] };
      return { broken: [broke('coordinate-mediation.deny', `a refused mediate-request was answered with ${answer?.type ?? 'an unreadable message'}${answer?.body?.code ? ` (${String(answer.body.code)})` : ''}, not mediate-deny`, reply.entry.seq)] };
    },
  },
  {
    ...base,
    id: 'mediation/keylist-update',
    title: 'keylist-update adds a DID: the keylist-update-response says success for it',
    steps: ['after a grant, send keylist-update adding a new did:peer:2 (its service names the mediator)', 'the keylist-update-response lists it with action add, result success'],
    async run(c) {
      if (!granted(await mediate(c))) return skipped('mediation was not granted to the harness');
      const r = newRecipient(c);
      const ex = await register(c, r);
      const { broken, missing } = answered(ex, 'the keylist-update', [mediationTypes('2.0').updateResponse]);
      if (missing) return inconclusive(noAnswer('the keylist-update', c, ex), broken);
      if (ex.result !== 'success') broken.push(broke('coordinate-mediation.update-result', `adding a new DID gave result ${ex.result ?? '(none for that DID)'}, not success`, ex.answer?.entry.seq));
      return { broken };
    },
  },
  {
    ...base,
    id: 'mediation/keylist-query',
    title: 'keylist-query lists the DIDs added',
    steps: ['add a new DID with keylist-update', 'send keylist-query', 'the keylist lists it'],
    async run(c) {
      if (!granted(await mediate(c))) return skipped('mediation was not granted to the harness');
      const r = newRecipient(c);
      const added = await register(c, r);
      if (added.result !== 'success') return inconclusive(`adding a DID gave ${added.result ?? 'no answer'}`, added.broken);
      const ex = await exchange(c, c.cp.draft(mediationTypes('2.0').query, {}), 'the keylist-query');
      const { broken, missing } = answered(ex, 'the keylist-query', [mediationTypes('2.0').list]);
      if (missing) return inconclusive(noAnswer('the keylist-query', c, ex), broken);
      const keys = ex.answer!.message!.body.keys as Array<{ recipient_did?: string }> | undefined;
      if (!Array.isArray(keys) || !keys.some((k) => k?.recipient_did === r.did)) broken.push(broke('coordinate-mediation.keylist-current', 'the keylist does not list the DID just added', ex.answer!.entry.seq));
      return { broken };
    },
  },
  {
    ...base,
    id: 'mediation/keylist-remove',
    title: 'keylist-update removes a DID (success; no longer listed), and removing one never added is no_change',
    steps: ['add a new DID, then remove it: result success', 'keylist-query no longer lists it', 'remove a DID never added: result no_change'],
    async run(c) {
      if (!granted(await mediate(c))) return skipped('mediation was not granted to the harness');
      const r = newRecipient(c);
      const added = await register(c, r);
      if (added.result !== 'success') return inconclusive(`adding a DID gave ${added.result ?? 'no answer'}`, added.broken);
      const removed = await register(c, r, 'remove');
      const broken = [...removed.broken];
      if (!removed.answer) return inconclusive(noAnswer('the keylist-update (remove)', c, removed), broken);
      if (removed.result !== 'success') broken.push(broke('coordinate-mediation.update-result', `removing a registered DID gave ${removed.result ?? '(no result for it)'}, not success`, removed.answer.entry.seq));
      const listed = await exchange(c, c.cp.draft(mediationTypes('2.0').query, {}), 'the keylist-query');
      const keys = listed.answer?.message?.body.keys as Array<{ recipient_did?: string }> | undefined;
      if (Array.isArray(keys) && keys.some((k) => k?.recipient_did === r.did)) broken.push(broke('coordinate-mediation.keylist-current', 'the keylist still lists the DID removed', listed.answer!.entry.seq));
      const never = await register(c, newRecipient(c), 'remove');
      if (never.answer && never.result !== 'no_change') broken.push(broke('coordinate-mediation.update-result', `removing a DID never added gave ${never.result ?? '(no result for it)'}, not no_change`, never.answer.entry.seq));
      return { broken };
    },
  },
];
