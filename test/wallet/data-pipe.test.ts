import { afterEach, describe, expect, it } from 'vitest';
import { ionShortForm, isIonLongForm } from '../../src/did/ion-form.js';
import { DATA_PIPE } from '../../src/protocols/data-pipe.js';
import { connect, setup, WALLET_ENDPOINT, type TestSetup } from './setup.js';

let t: TestSetup | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('wallet data pipe', () => {
  it('creates a long-form did:ion whose DIDComm service names its endpoint', async () => {
    t = await setup();
    expect(isIonLongForm(t.wallet.did)).toBe(true);
    expect(t.wallet.shortDid).toBe(ionShortForm(t.wallet.did));
    expect(t.wallet.identity.endpoint).toBe(WALLET_ENDPOINT);
  });

  it('accepting an invitation sends an authcrypted request from the long form and resolves when established', async () => {
    t = await setup();
    const { acceptance, request } = await connect(t);
    expect(request.type).toBe(DATA_PIPE.request);
    expect(request.from).toBe(t.wallet.did);
    expect(request.thid).toBe(request.id);
    expect(request.body.consent).toMatchObject({ granted: true });
    const received = t.service.received.find((r) => r.message.id === request.id)!;
    expect(received.sender).toBe(t.wallet.did);
    if (acceptance.kind !== 'data-pipe') throw new Error('expected a data pipe');
    expect(request.pthid).toBe(acceptance.invitation.id);
    expect(acceptance.connection).toMatchObject({ state: 'established', theirDid: t.service.did, invitationId: acceptance.invitation.id });
    expect(acceptance.connection.meta).toMatchObject({ shortDid: t.wallet.shortDid, linkedDid: t.wallet.did });
    expect(await t.wallet.connections({ state: 'established' })).toHaveLength(1);
  });

  it('logs the invitation and both messages with envelope mode and conformance results', async () => {
    t = await setup();
    const { request } = await connect(t);
    const log = await t.wallet.messages({ thid: request.id });
    expect(log.map((m) => [m.direction, m.type.split('/').pop(), m.mode])).toEqual([
      ['out', 'request', 'authcrypt'],
      ['in', 'established', 'authcrypt'],
    ]);
    expect(log[1].conformance?.every((c) => c.ok || c.severity !== 'error')).toBe(true);
    const oob = await t.wallet.messages({ type: 'https://didcomm.org/out-of-band/2.0/invitation' });
    expect(oob[0]).toMatchObject({ direction: 'in', transport: 'oob' });
  });

  it('refuses a data pipe the service answers with a problem report', async () => {
    t = await setup();
    const { url } = t.service.invitationUrl();
    const accepting = t.wallet.acceptInvitation(url);
    accepting.catch(() => undefined);
    const request = await t.service.next('request');
    const { createProblemReport } = await import('../../src/protocols/report-problem.js');
    await t.service.send(createProblemReport({ code: 'e.p.req.data-pipe.already-linked', pthid: request.id, from: t.service.did, to: [request.from as string] }, { clock: t.clock }), request.from as string);
    await expect(accepting).rejects.toMatchObject({ code: 'problem_reported' });
    expect((await t.wallet.connections())[0]).toMatchObject({ state: 'refused', meta: { problemCode: 'e.p.req.data-pipe.already-linked' } });
  });

  it('refuses an invitation it cannot act on', async () => {
    t = await setup();
    const { createInvitation, parseInvitationUrl } = await import('../../src/protocols/out-of-band.js');
    await expect(t.wallet.acceptInvitation(createInvitation({ from: t.service.did, goal_code: 'something-else' }))).rejects.toMatchObject({ code: 'unsupported_goal' });
    await expect(t.wallet.acceptInvitation('https://issuer.example/connect?_oob=notjson')).rejects.toMatchObject({ code: 'invalid_invitation' });
    // Expired so long ago that no date holds it: still refused as expired, not as a failure of the wallet's own.
    const { url } = t.service.invitationUrl();
    const longAgo = { ...(await parseInvitationUrl(url)), expires_time: -1e308 };
    await expect(t.wallet.acceptInvitation(longAgo)).rejects.toMatchObject({
      code: 'invalid_invitation',
      details: { reason: 'expired' },
    });
  });

  it('answers a trust ping', async () => {
    t = await setup();
    await connect(t);
    const { ping } = await import('../../src/protocols/trust-ping.js');
    const { response } = await ping(t.service.router, t.wallet.shortDid);
    expect(response.from).toBe(t.wallet.shortDid);
  });
});
