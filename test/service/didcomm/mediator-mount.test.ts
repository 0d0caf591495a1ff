// The service twin mounts the same mediator as `idsync mediator` (src/mediator), on its own DID
// and queue: over its HTTP endpoint on 127.0.0.1 a party gets mediation from the service DID,
// registers a DID whose service names the service's DID, and collects what a sender forwarded to
// it; discover-features discloses the mediator's protocols.
import { afterEach, describe, expect, it } from 'vitest';
import { DISCOVER_FEATURES, type FeatureQuery } from '../../../src/protocols/discover-features.js';
import type { Feature } from '../../../src/protocols/registry.js';
import { requestMediation, updateRecipients } from '../../../src/protocols/coordinate-mediation.js';
import { TRUST_PING } from '../../../src/protocols/trust-ping.js';
import { deliveryRequest, extraDid, open, party, type Delivered } from '../../mediator/parties.js';
import { linkWallet } from '../../../src/service/users/users.js';
import type { ServiceDidcommAgent } from '../../../src/service/didcomm/agent.js';
import { startService, type Harness } from '../http-helpers.js';

let h: Harness | undefined;
const parties: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const p of parties.splice(0)) await p.close();
  await h?.close();
  h = undefined;
});

describe('the mediator inside the service twin', () => {
  it('grants mediation from the service DID and queues forwards for the DIDs a party registered', async () => {
    h = await startService();
    const serviceDid = h.service.deps.serviceDid;
    const r = party();
    const s = party();
    parties.push(r, s);
    const a = extraDid(r, serviceDid).did;
    expect(await requestMediation(r.router, serviceDid, '3.0')).toMatchObject({ granted: true, routingDids: [serviceDid] });
    await updateRecipients(r.router, serviceDid, [{ recipientDid: a, action: 'add' }], '3.0');
    const sent = await s.router.send({ type: TRUST_PING.ping, body: { response_requested: false } }, { to: a });
    const d = (await deliveryRequest(r, serviceDid)) as Delivered;
    expect((await open(r, d.messages[0]!.packed)).id).toBe(sent.message.id);
  });

  it("never lets another party register, collect or confirm what the service queued for a wallet", async () => {
    h = await startService();
    const serviceDid = h.service.deps.serviceDid;
    const queue = (h.service.deps.agent as ServiceDidcommAgent).queue;
    const attacker = party();
    const linked = party(); // a linked user's wallet, no endpoint: it collects here
    const unlinked = party(); // a DID the service queued for without a link (a thread's peer)
    parties.push(attacker, linked, unlinked);
    await h.call('PUT', `/api/v1/provider/users/victim`, { token: await h.token(), body: { settings: { isSyncOn: true } } });
    await linkWallet(h.service.deps, { tenantId: 'default', userId: 'victim' }, { longDid: linked.did });
    await queue.enqueue(unlinked.did, '{"protected":"e30","iv":"","ciphertext":"for-the-thread-peer","tag":""}');

    expect(await requestMediation(attacker.router, serviceDid, '2.0')).toMatchObject({ granted: true });
    // Coordinate Mediation 2.0 "Future Considerations": "a malicious party registers a key for another party".
    const added = await updateRecipients(attacker.router, serviceDid, [{ recipientDid: linked.did, action: 'add' }, { recipientDid: unlinked.did, action: 'add' }], '2.0').catch((err: Error) => err);
    expect((added as Error).message).toBe(`the mediator refused add ${linked.did}: client_error; add ${unlinked.did}: client_error`);
    // The linked wallet's DID is its own though nothing waits for it yet: what comes later is its.
    await queue.enqueue(linked.did, '{"protected":"e30","iv":"","ciphertext":"for-the-linked-wallet","tag":""}');
    const problems: string[] = [];
    attacker.router.events.on('received', (e: { message: { type: string; body: { code?: string } } }) => {
      if (e.message.type.endsWith('/problem-report')) problems.push(String(e.message.body.code));
    });
    await attacker.router.send({ type: 'https://didcomm.org/messagepickup/3.0/delivery-request', body: { recipient_did: linked.did, limit: 10 }, return_route: 'all' }, { to: serviceDid });
    expect(problems).toEqual(['e.p.trust.forbidden']);
    expect(await queue.count(linked.did)).toBe(1);
    // Each collects its own.
    for (const owner of [linked, unlinked]) {
      const d = (await deliveryRequest(owner, serviceDid)) as Delivered;
      expect(d.messages).toHaveLength(1);
    }
  });

  it('discloses coordinate-mediation 2.0 and 3.0, routing 2.0 and messagepickup 3.0 as the mediator', async () => {
    h = await startService();
    const p = party();
    parties.push(p);
    const queries: FeatureQuery[] = [{ 'feature-type': 'protocol', match: '*' }];
    const disclosed = p.router.waitFor<{ features: Feature[] }>('disclose', undefined, { timeoutMs: 5000 });
    // The party has no endpoint: the answer comes back on the HTTP response.
    await p.router.send({ type: DISCOVER_FEATURES.queries, body: { queries }, return_route: 'all' }, { to: h.service.deps.serviceDid });
    const { features } = await disclosed;
    const mediator = features.filter((f) => f.roles?.includes('mediator')).map((f) => f.id).sort();
    expect(mediator).toEqual([
      'https://didcomm.org/coordinate-mediation/2.0',
      'https://didcomm.org/coordinate-mediation/3.0',
      'https://didcomm.org/messagepickup/3.0',
      'https://didcomm.org/routing/2.0',
    ]);
  });
});
