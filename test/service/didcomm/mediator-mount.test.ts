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
