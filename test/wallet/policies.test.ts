import { afterEach, describe, expect, it } from 'vitest';
import { resolvePolicy } from '../../src/wallet/policies.js';
import { connect, setup, type TestSetup } from './setup.js';

const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace' };

let t: TestSetup | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('wallet policies', () => {
  it("reads 'auto', 'manual' and per-kind policies", () => {
    // Invitations that arrive as messages wait for the user unless told otherwise.
    expect(resolvePolicy(undefined)).toEqual({ offers: 'auto', proofRequests: 'auto', invitations: 'manual' });
    expect(resolvePolicy('manual')).toEqual({ offers: 'manual', proofRequests: 'auto', invitations: 'manual' });
    expect(resolvePolicy({ proofRequests: 'manual' })).toEqual({ offers: 'auto', proofRequests: 'manual', invitations: 'manual' });
    expect(resolvePolicy({ invitations: 'auto' })).toEqual({ offers: 'auto', proofRequests: 'auto', invitations: 'auto' });
    expect(() => resolvePolicy({ invitations: 'always' as never })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(() => resolvePolicy('sometimes' as never)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('holds an offer under the manual policy and declines it with e.p.req.offer-declined', async () => {
    t = await setup({ wallet: { policy: 'manual' } });
    await connect(t);
    const offer = await t.service.offer(t.wallet.shortDid, DATAPOINTS, { replacementId: 'urn:uuid:old' });
    const item = await t.wallet.waitForPending({ kind: 'credential-offer' });
    expect(item).toMatchObject({ id: offer.id, thid: offer.id, from: t.service.did, preview: DATAPOINTS, replacementId: 'urn:uuid:old' });
    expect(t.service.received.some((r) => r.message.type.endsWith('/request-credential'))).toBe(false);

    await t.wallet.decline(item.id, 'not now');
    const problem = await t.service.nextProblem((p) => p.pthid === offer.id);
    expect(problem.code).toBe('e.p.req.offer-declined');
    expect(problem.text).toContain('not now');
    expect(await t.wallet.pending()).toEqual([]);
    expect((await t.wallet.threads()).find((x) => x.thid === offer.id)?.state).toBe('abandoned');
    await expect(t.wallet.approve(item.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('sends the request once a pending offer is approved', async () => {
    t = await setup({ wallet: { policy: 'manual' } });
    await connect(t);
    const offer = await t.service.offer(t.wallet.shortDid, DATAPOINTS);
    const item = await t.wallet.waitForPending();
    await t.wallet.approve(item.id);
    const request = await t.service.next('request-credential');
    expect(request.thid).toBe(offer.id);
    expect(await t.wallet.pending()).toEqual([]);
  });

  it('holds DID-auth requests when proofRequests is manual, then answers on approve', async () => {
    t = await setup({ wallet: { policy: { proofRequests: 'manual' } } });
    await connect(t);
    const request = await t.service.requestPresentation(t.wallet.shortDid);
    const item = await t.wallet.waitForPending({ kind: 'proof-request' });
    expect(item).toMatchObject({ thid: request.id, domain: t.service.did });
    await t.wallet.approve(item.id);
    expect((await t.service.next('presentation')).thid).toBe(request.id);
  });

  it('drops a pending offer whose thread the issuer abandoned', async () => {
    t = await setup({ wallet: { policy: 'manual' } });
    await connect(t);
    const offer = await t.service.offer(t.wallet.shortDid, DATAPOINTS);
    await t.wallet.waitForPending();
    const { createProblemReport } = await import('../../src/protocols/report-problem.js');
    const problem = t.wallet.waitForProblem({ pthid: offer.id });
    await t.service.send(createProblemReport({ code: 'e.p.req.time', pthid: offer.id, from: t.service.did, to: [t.wallet.shortDid] }, { clock: t.clock }), t.wallet.shortDid);
    await problem;
    expect(await t.wallet.pending()).toEqual([]);
    expect((await t.wallet.threads()).find((x) => x.thid === offer.id)?.state).toBe('abandoned');
  });
});
