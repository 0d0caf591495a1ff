import { afterEach, describe, expect, it } from 'vitest';
import { createWebDid } from '../../src/did/web.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import type { DIDDocument } from '../../src/did/types.js';
import { createRouter, transportOutbound } from '../../src/router/router.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import { basicProtocols } from '../../src/protocols/basic.js';
import { buildIssueCredential } from '../../src/protocols/issue-credential.js';
import type { ParsedProblem } from '../../src/protocols/report-problem.js';
import { connect, setup, WALLET_ENDPOINT, type TestSetup } from './setup.js';

const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace' };

let t: TestSetup | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('wallet refusals that change no state', () => {
  it('answers a replayed offer with the request it already sent (same id), and changes no state', async () => {
    t = await setup();
    await connect(t);
    // Capture the packed offer as it goes out, then deliver the same bytes again, as a sender
    // retrying because our answer was lost would (router/steps: the replay is answered with
    // what followed it, not with e.p.msg.duplicate).
    let replay = '';
    t.service.router.events.once('sent', (e: { packed: string }) => (replay = e.packed));
    const again = await t.service.offer(t.wallet.shortDid, DATAPOINTS);
    const first = await t.service.next('request-credential', (m) => m.thid === again.id);
    const before = await t.wallet.threads();
    const resent = t.wallet.waitFor('message', (e) => e.direction === 'out' && String(e.message?.type).endsWith('/request-credential')).then((e) => e.message!);
    const result = await t.wallet.receive(replay, { transport: 'memory' });
    expect(result.status).toBe('duplicate');
    expect((await resent).id).toBe(first.id);
    // The fake service's router took the copy as a replay: still one request handled.
    expect(await t.wallet.threads()).toEqual(before);
    expect(new Set(t.service.received.filter((r) => r.message.type.endsWith('/request-credential')).map((r) => r.message.id)).size).toBe(1);
  });

  it('refuses a message of a thread it does not know with e.p.msg.unknown-thread', async () => {
    t = await setup();
    await connect(t);
    const vc = await t.service.credential(t.wallet.shortDid, DATAPOINTS);
    await t.service.issue(t.wallet.shortDid, 'no-such-thread', vc);
    const problem = await t.service.nextProblem((p) => p.pthid === 'no-such-thread');
    expect(problem.code).toBe('e.p.msg.unknown-thread');
    expect(await t.wallet.credentials()).toEqual([]);
    expect(await t.wallet.rejectedCredentials()).toEqual([]);
  });

  it('refuses a message on a thread from another DID than the thread peer', async () => {
    // Another party with its own did:web, which the wallet can resolve, tries to finish the thread.
    const intruder = createWebDid({ url: 'https://intruder.example', endpoint: 'memory://intruder' });
    let serviceDoc: (d: string) => Promise<DIDDocument | null> = async () => null;
    t = await setup({ wallet: { resolver: async (d: string) => (d.startsWith(intruder.did) ? intruder.document : serviceDoc(d)) } });
    serviceDoc = t.service.resolveForWallet;
    await connect(t);
    const offer = await t.service.offer(t.wallet.shortDid, DATAPOINTS);
    await t.service.next('request-credential', (m) => m.thid === offer.id);

    const ion = documentResolver(createResolver({ cache: false }));
    const problems: ParsedProblem[] = [];
    const router = createRouter({
      envelope: { resolve: async (d) => (d.startsWith(intruder.did) ? intruder.document : ion(d)), secrets: memorySecrets(intruder.secrets) },
      clock: t.clock, myDids: [intruder.did], send: transportOutbound(t.network.transport()),
    }).use(...basicProtocols({ reportProblem: { onProblem: (p) => void problems.push(p) } }));
    t.network.endpoint('memory://intruder', (p, i) => router.inbound(p, i));
    const reported = router.waitFor('problem');

    const vc = await t.service.credential(t.wallet.did, DATAPOINTS);
    const issue = buildIssueCredential({ from: intruder.did, to: t.wallet.did, thid: offer.id, manifestId: 'm', credential: vc as string, format: 'jwt_vc' }, { clock: t.clock });
    await router.send(issue, { to: t.wallet.did });
    await reported;
    expect(problems[0]).toMatchObject({ code: 'e.p.msg.unknown-thread', pthid: offer.id });
    expect(await t.wallet.credentials()).toEqual([]);
    expect((await t.wallet.threads()).find((x) => x.thid === offer.id)?.state).toBe('request-sent');
  });

  it('refuses an issue that arrives before the request (out of order) with e.p.msg.unexpected', async () => {
    t = await setup({ wallet: { policy: 'manual' } });
    await connect(t);
    const offer = await t.service.offer(t.wallet.shortDid, DATAPOINTS);
    await t.wallet.waitForPending({ kind: 'credential-offer' });
    await t.service.issue(t.wallet.shortDid, offer.id, await t.service.credential(t.wallet.shortDid, DATAPOINTS));
    const problem = await t.service.nextProblem((p) => p.pthid === offer.id);
    expect(problem.code).toBe('e.p.msg.unexpected');
    expect(await t.wallet.credentials()).toEqual([]);
    expect((await t.wallet.threads()).find((x) => x.thid === offer.id)?.state).toBe('offer-received');
    expect(await t.wallet.pending()).toHaveLength(1);
  });

  it('keeps a thread going when the peer only reports a duplicate of one of its messages', async () => {
    t = await setup();
    await connect(t);
    const offer = await t.service.offer(t.wallet.shortDid, DATAPOINTS);
    await t.service.next('request-credential', (m) => m.thid === offer.id);
    const { createProblemReport } = await import('../../src/protocols/report-problem.js');
    const reported = t.wallet.waitForProblem({ pthid: offer.id });
    await t.service.send(createProblemReport({ code: 'e.p.msg.duplicate', pthid: offer.id, from: t.service.did, to: [t.wallet.shortDid] }, { clock: t.clock }), t.wallet.shortDid);
    await reported;
    expect((await t.wallet.threads()).find((x) => x.thid === offer.id)?.state).toBe('request-sent');
  });

  it('logs refused messages with the router result', async () => {
    t = await setup();
    await connect(t);
    await t.service.issue(t.wallet.shortDid, 'nope', await t.service.credential(t.wallet.shortDid, DATAPOINTS));
    await t.service.nextProblem((p) => p.pthid === 'nope');
    const log = await t.wallet.messages({ thid: 'nope' });
    expect(log[0]).toMatchObject({ direction: 'in', result: 'failed', problemCode: 'e.p.msg.unknown-thread' });
    expect(WALLET_ENDPOINT).toBe(t.wallet.identity.endpoint);
  });
});
