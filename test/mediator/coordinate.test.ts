// Coordinate Mediation 2.0 and 3.0 against the standalone mediator over HTTP on 127.0.0.1:
// grants (2.0: routing_did one string; 3.0: a list), denial by policy, keylist / recipient
// updates with their per-DID results, queries with pagination, and refusals for parties that
// were never granted mediation.
import { afterEach, describe, expect, it } from 'vitest';
import { queryRecipients, requestMediation, updateRecipients } from '../../src/protocols/coordinate-mediation.js';
import { startMediator, type RunningMediator } from '../../src/mediator/server.js';
import { openStore } from '../../src/store/store.js';
import { extraDid, keyParty, party, type Party } from './parties.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function mediator(policy: Parameters<typeof startMediator>[0]['policy'] = {}): Promise<RunningMediator> {
  const store = await openStore();
  const m = await startMediator({ store, policy });
  cleanup.push(() => store.close(), () => m.close());
  return m;
}

function client(o: Parameters<typeof party>[0] = {}): Party {
  const p = party(o);
  cleanup.push(() => p.close());
  return p;
}

describe('coordinate-mediation', () => {
  it('grants 2.0 mediation with routing_did as one DID string, and 3.0 with a list', async () => {
    const m = await mediator();
    const r = client();
    const v2 = await requestMediation(r.router, m.did, '2.0');
    expect(v2).toMatchObject({ granted: true, routingDids: [m.did] });
    expect(v2.message.body.routing_did).toBe(m.did);
    const v3 = await requestMediation(r.router, m.did, '3.0');
    expect(v3.message.body.routing_did).toEqual([m.did]);
    expect(await m.agent.mediator.keylist.granted(r.did)).toMatchObject({ version: '3.0' });
  });

  it('denies mediation to requesters a deny rule matches, with mediate-deny', async () => {
    const m = await mediator({ deny: ['did:key:*'] });
    const denied = keyParty();
    cleanup.push(() => denied.close());
    const events: unknown[] = [];
    m.agent.events.on('mediation-denied', (e) => events.push(e));
    expect(await requestMediation(denied.router, m.did, '2.0')).toMatchObject({ granted: false });
    expect(events).toEqual([expect.objectContaining({ rule: 'did:key:*' })]);
    expect(await m.agent.mediator.keylist.granted(denied.did)).toBeUndefined();
    // A peer DID is not matched by the rule.
    expect(await requestMediation(client().router, m.did, '2.0')).toMatchObject({ granted: true });
  });

  it('applies keylist updates with one result each, and lists what is registered', async () => {
    const m = await mediator();
    const r = client();
    const a = extraDid(r, m.did).did;
    const b = extraDid(r, m.did).did;
    await requestMediation(r.router, m.did, '2.0');
    expect(await updateRecipients(r.router, m.did, [{ recipientDid: a, action: 'add' }, { recipientDid: b, action: 'add' }, { recipientDid: a, action: 'add' }])).toEqual([
      { recipientDid: a, action: 'add', result: 'success' },
      { recipientDid: b, action: 'add', result: 'success' },
      { recipientDid: a, action: 'add', result: 'no_change' },
    ]);
    expect((await queryRecipients(r.router, m.did, '2.0')).dids.sort()).toEqual([a, b].sort());
    // §Keylist Query paginate → §Keylist pagination {count, offset, remaining}.
    expect(await queryRecipients(r.router, m.did, '2.0', { limit: 1, offset: 0 })).toMatchObject({ dids: [expect.any(String)], pagination: { count: 1, offset: 0, remaining: 1 } });
    expect(await updateRecipients(r.router, m.did, [{ recipientDid: a, action: 'remove' }, { recipientDid: 'did:example:never-added', action: 'remove' }])).toEqual([
      { recipientDid: a, action: 'remove', result: 'success' },
      { recipientDid: 'did:example:never-added', action: 'remove', result: 'no_change' },
    ]);
    expect((await queryRecipients(r.router, m.did, '3.0')).dids).toEqual([b]);
  });

  it('gives a DID to one party only: registering another party\'s DID is a client_error', async () => {
    const m = await mediator();
    const alice = client();
    const mallory = client();
    const a = extraDid(alice, m.did).did;
    await requestMediation(alice.router, m.did, '3.0');
    await requestMediation(mallory.router, m.did, '3.0');
    await updateRecipients(alice.router, m.did, [{ recipientDid: a, action: 'add' }], '3.0');
    await expect(updateRecipients(mallory.router, m.did, [{ recipientDid: a, action: 'add' }], '3.0')).rejects.toMatchObject({
      code: 'mediation_update_failed',
      details: { updated: [{ recipientDid: a, action: 'add', result: 'client_error' }] },
    });
    expect((await m.agent.mediator.keylist.lookup(a))?.owner).toBe(alice.did);
  });

  it('refuses keylist requests from a party never granted mediation with e.p.req.not-enrolled', async () => {
    const m = await mediator();
    const r = client();
    await expect(queryRecipients(r.router, m.did, '2.0', undefined, { timeoutMs: 5000 })).rejects.toMatchObject({ code: 'problem_reported', details: { problem: { code: 'e.p.req.not-enrolled' } } });
    await expect(updateRecipients(r.router, m.did, [{ recipientDid: r.did, action: 'add' }], '2.0', { timeoutMs: 5000 })).rejects.toMatchObject({ details: { problem: { code: 'e.p.req.not-enrolled' } } });
  });
});
