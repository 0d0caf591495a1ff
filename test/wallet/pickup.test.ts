import { afterEach, describe, expect, it } from 'vitest';
import { setup, type TestSetup } from './setup.js';

const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace' };

let t: TestSetup | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('wallet without an inbound endpoint', () => {
  it('publishes no DIDComm service and asks for return routes', async () => {
    t = await setup({ listen: false, autoEstablish: true });
    expect(t.wallet.identity.endpoint).toBeUndefined();
    const { url } = t.service.invitationUrl();
    const acceptance = await t.wallet.acceptInvitation(url);
    expect(acceptance.kind === 'data-pipe' && acceptance.connection.state).toBe('established');
    const request = await t.service.next('request');
    expect(request.return_route).toBe('all');
  });

  it('collects queued sync messages with Message Pickup and completes the flow', async () => {
    t = await setup({ listen: false, autoEstablish: true });
    await t.wallet.acceptInvitation(t.service.invitationUrl().url);

    // The sync starts while the wallet is unreachable: everything is queued.
    const proofRequest = await t.service.requestPresentation(t.wallet.shortDid);
    expect(t.service.queue).toHaveLength(1);
    const first = await t.wallet.pickup();
    expect(first).toMatchObject({ received: 1, rounds: 1, status: { messageCount: 0 } });
    expect(first.results[0].status).toBe('handled');
    expect((await t.service.next('presentation')).thid).toBe(proofRequest.id);

    const offer = await t.service.offer(t.wallet.shortDid, DATAPOINTS);
    await t.wallet.pickup();
    await t.service.next('request-credential', (m) => m.thid === offer.id);
    await t.service.issue(t.wallet.shortDid, offer.id, await t.service.credential(t.wallet.shortDid, DATAPOINTS));
    const received = t.wallet.waitForCredential({ thid: offer.id });
    const last = await t.wallet.pickup();
    expect(last.received).toBe(1);
    expect((await received).status).toBe('valid');
    expect(await t.service.next('ack')).toMatchObject({ thid: offer.id });
    expect(t.service.queue).toEqual([]);
  });

  it('drains more than one delivery and acknowledges every message', async () => {
    t = await setup({ listen: false, autoEstablish: true });
    await t.wallet.acceptInvitation(t.service.invitationUrl().url);
    for (let i = 0; i < 3; i++) await t.service.requestPresentation(t.wallet.shortDid);
    const result = await t.wallet.pickup(undefined, { limit: 2 });
    expect(result).toMatchObject({ received: 3, rounds: 2, status: { messageCount: 0 } });
    expect(t.service.queue).toEqual([]);
    expect((await t.wallet.messages({ type: 'https://didcomm.org/messagepickup/3.0/messages-received' })).length).toBe(2);
  });

  it('reports an empty queue without a delivery', async () => {
    t = await setup({ listen: false, autoEstablish: true });
    await t.wallet.acceptInvitation(t.service.invitationUrl().url);
    expect(await t.wallet.pickup()).toMatchObject({ received: 0, rounds: 0, status: { messageCount: 0 } });
  });
});
