import { afterEach, describe, expect, it } from 'vitest';
import { toNested } from '../../src/credentials/datapoints.js';
import { issueCredential } from '../../src/credentials/issue.js';
import { credentialManifestFor, defaultKycProfile } from '../../src/credentials/manifest.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import type { CreatedDid, DIDDocument } from '../../src/did/types.js';
import { createWebDid } from '../../src/did/web.js';
import { createRouter, transportOutbound, type Router } from '../../src/router/router.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import type { PlainMessage } from '../../src/didcomm/types.js';
import { keyPairFromJwk } from '../../src/keys.js';
import { basicProtocols } from '../../src/protocols/basic.js';
import {
  buildIssueCredential, buildOffer, ISSUE_CREDENTIAL, issueCredentialProtocol, previewFromDatapoints, STREAMLINED_VC, wireCredential,
} from '../../src/protocols/issue-credential.js';
import { createInvitation, encodeInvitationUrl } from '../../src/protocols/out-of-band.js';
import type { ParsedProblem } from '../../src/protocols/report-problem.js';
import { credentialStore } from '../../src/wallet/credential-store.js';
import { connect, setup, type TestSetup } from './setup.js';

const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace' };
const ion = documentResolver(createResolver({ cache: false }));

let t: TestSetup | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Another issuer with its own did:web on the memory network: a stranger, or an issuer the user chose. */
interface OtherIssuer {
  did: string;
  created: CreatedDid;
  router: Router;
  problems: ParsedProblem[];
  offer(to: string, o?: { thid?: string; pthid?: string; replacementId?: string }): Promise<PlainMessage>;
  issue(to: string, thid: string, o: { id: string; replacementId?: string }): Promise<PlainMessage>;
  /** The next received message of this type (listen before causing it). */
  next(name: string): Promise<PlainMessage>;
}

function otherIssuer(s: TestSetup, created: CreatedDid, endpoint: string): OtherIssuer {
  const did = created.did;
  const problems: ParsedProblem[] = [];
  const router = createRouter({
    envelope: { resolve: async (d) => (d.startsWith(did) ? created.document : ion(d)), secrets: memorySecrets(created.secrets) },
    clock: s.clock, myDids: [did], send: transportOutbound(s.network.transport()),
  }).use(
    ...basicProtocols({ reportProblem: { onProblem: (p) => void problems.push(p) } }),
    issueCredentialProtocol({ 'propose-credential': async () => {}, 'request-credential': async () => {}, ack: async () => {} }, ['issuer']),
  );
  s.network.endpoint(endpoint, (p, i) => router.inbound(p, i));
  const key = keyPairFromJwk(created.secrets[0].privateKeyJwk);
  const deps = { clock: s.clock };
  return {
    did, created, router, problems,
    async offer(to, o = {}) {
      const manifest = credentialManifestFor(defaultKycProfile(did), did) as unknown as Record<string, unknown>;
      const offer = buildOffer({ from: did, to, ...o, manifest, preview: previewFromDatapoints(DATAPOINTS), challenge: 'chosen-by-the-sender', domain: did }, deps);
      return (await router.send(offer, { to })).message;
    },
    async issue(to, thid, o) {
      const issued = await issueCredential({ format: 'jwt', issuer: { did, kid: `${did}#key-1`, privateKey: key.privateKey }, subjectDid: to, claims: toNested(DATAPOINTS), id: o.id, clock: s.clock });
      const { credential, format } = wireCredential(issued);
      const message = buildIssueCredential({ from: did, to, thid, manifestId: 'idsync-kyc-default', credential, format, replacementId: o.replacementId }, deps);
      return (await router.send(message, { to })).message;
    },
    next: (name) => router.waitFor<{ message: PlainMessage }>('received', (e) => e.message.type.endsWith(`/${name}`)).then((e) => e.message),
  };
}

/** A wallet connected to the fake service that can also resolve `other`'s did:web. */
async function walletWith(other: CreatedDid): Promise<TestSetup> {
  let service: (d: string) => Promise<DIDDocument | null> = async () => null;
  const s = await setup({ wallet: { resolver: async (d: string) => (d.startsWith(other.did) ? other.document : service(d)) } });
  service = s.service.resolveForWallet;
  await connect(s);
  return s;
}

/** The fake service issues `id` to the wallet over the Data Pipe (a sync). */
async function syncCredential(s: TestSetup, id: string) {
  const offer = await s.service.offer(s.wallet.shortDid, DATAPOINTS);
  await s.service.next('request-credential', (m) => m.thid === offer.id);
  const received = s.wallet.waitForCredential({ thid: offer.id });
  await s.service.issue(s.wallet.shortDid, offer.id, await s.service.credential(s.wallet.shortDid, DATAPOINTS, { id }));
  return received;
}

/** `other` becomes an issuer the user chose: the wallet accepts its streamlined-vc invitation and proposes. */
async function proposeTo(s: TestSetup, other: OtherIssuer) {
  const invitation = createInvitation({ from: other.did, goal_code: STREAMLINED_VC, goal: 'Issue' }, { clock: s.clock });
  const proposed = other.next('propose-credential');
  const acceptance = await s.wallet.acceptInvitation(encodeInvitationUrl('https://other.example/connect', invitation));
  if (acceptance.kind !== 'issuance') throw new Error('expected an issuance');
  const propose = await proposed;
  const requested = other.next('request-credential');
  await other.offer(s.wallet.did, { thid: propose.id, pthid: invitation.id });
  await requested;
  return { propose, acceptance };
}

describe('wallet offers: only the ones it asked for', () => {
  it('refuses an offer from a DID with no Data Pipe and no proposal, with e.p.req.unsolicited-offer and no state change', async () => {
    const strangerDid = createWebDid({ url: 'https://stranger.example', endpoint: 'memory://stranger' });
    t = await walletWith(strangerDid);
    const stranger = otherIssuer(t, strangerDid, 'memory://stranger');
    const threadsBefore = await t.wallet.threads();
    const reported = stranger.router.waitFor<{ problem: ParsedProblem }>('problem');
    const offer = await stranger.offer(t.wallet.did, { replacementId: 'urn:uuid:genuine' });
    expect((await reported).problem).toMatchObject({ code: 'e.p.req.unsolicited-offer', pthid: offer.id });
    expect(await t.wallet.threads()).toEqual(threadsBefore);
    expect(await t.wallet.pending()).toEqual([]);
    // Nothing was signed for the stranger, and an issue on its thread finds no thread.
    expect((await t.wallet.messages()).some((m) => m.direction === 'out' && m.type === ISSUE_CREDENTIAL.request)).toBe(false);
    const refused = stranger.router.waitFor<{ problem: ParsedProblem }>('problem', (e) => e.problem.code === 'e.p.msg.unknown-thread');
    await stranger.issue(t.wallet.did, offer.id, { id: 'urn:uuid:genuine' });
    await refused;
    expect(await t.wallet.credentials()).toEqual([]);
  });

  it('refuses an offer whose pthid names the Data Pipe of another DID', async () => {
    const strangerDid = createWebDid({ url: 'https://stranger.example', endpoint: 'memory://stranger' });
    t = await walletWith(strangerDid);
    const stranger = otherIssuer(t, strangerDid, 'memory://stranger');
    const pipe = t.service.pipeThread(t.wallet.did);
    expect(pipe).toBeDefined();
    const reported = stranger.router.waitFor<{ problem: ParsedProblem }>('problem');
    const offer = await stranger.offer(t.wallet.did, { pthid: pipe });
    expect((await reported).problem).toMatchObject({ code: 'e.p.req.unsolicited-offer', pthid: offer.id });
    expect((await t.wallet.threads()).some((x) => x.thid === offer.id)).toBe(false);
  });

  it('refuses an offer from its Data Pipe peer whose domain names another DID', async () => {
    t = await setup();
    await connect(t);
    const offer = await t.service.offer(t.wallet.shortDid, DATAPOINTS, { domain: 'did:web:evil.example' });
    const problem = await t.service.nextProblem((p) => p.pthid === offer.id);
    expect(problem.code).toBe('e.p.trust.forbidden');
    expect((await t.wallet.threads()).some((x) => x.thid === offer.id)).toBe(false);
    expect(t.service.received.some((r) => r.message.type === ISSUE_CREDENTIAL.request)).toBe(false);
  });

  it('answers an offer on its established Data Pipe (pthid = the pipe thread)', async () => {
    t = await setup();
    await connect(t);
    const offer = await t.service.offer(t.wallet.shortDid, DATAPOINTS);
    expect(offer.pthid).toBe(t.service.pipeThread(t.wallet.did));
    const request = await t.service.next('request-credential', (m) => m.thid === offer.id);
    expect(request.pthid).toBe(offer.pthid);
  });
});

describe('wallet credentials: one issuer cannot touch another issuer\'s', () => {
  it('refuses a credential whose id it already holds from another issuer, keeping the original', async () => {
    const otherDid = createWebDid({ url: 'https://other.example', endpoint: 'memory://other' });
    t = await walletWith(otherDid);
    const genuine = await syncCredential(t, 'urn:uuid:genuine');
    const other = otherIssuer(t, otherDid, 'memory://other');
    const { propose } = await proposeTo(t, other);
    const reported = other.router.waitFor<{ problem: ParsedProblem }>('problem');
    await other.issue(t.wallet.did, propose.id, { id: 'urn:uuid:genuine' });
    expect((await reported).problem).toMatchObject({ code: 'e.p.msg.credential-invalid', args: ['id', 'id_held_from_another_issuer'] });
    const all = await t.wallet.credentials();
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ id: 'urn:uuid:genuine', issuer: t.service.did, status: 'valid', thid: genuine.thid });
    expect(await t.wallet.rejectedCredentials()).toMatchObject([{ id: 'urn:uuid:genuine', failedCheck: 'id', issuer: other.did }]);
  });

  it('ignores a replacement_id naming another issuer\'s credential', async () => {
    const otherDid = createWebDid({ url: 'https://other.example', endpoint: 'memory://other' });
    t = await walletWith(otherDid);
    await syncCredential(t, 'urn:uuid:genuine');
    const other = otherIssuer(t, otherDid, 'memory://other');
    const { propose, acceptance } = await proposeTo(t, other);
    if (acceptance.kind !== 'issuance') throw new Error('expected an issuance');
    await other.issue(t.wallet.did, propose.id, { id: 'urn:uuid:theirs', replacementId: 'urn:uuid:genuine' });
    const theirs = await acceptance.done;
    expect(theirs).toMatchObject({ id: 'urn:uuid:theirs', issuer: other.did, status: 'valid' });
    expect(theirs.replaces).toBeUndefined();
    const byId = Object.fromEntries((await t.wallet.credentials()).map((c) => [c.id, c.status]));
    expect(byId).toEqual({ 'urn:uuid:genuine': 'valid', 'urn:uuid:theirs': 'valid' });
  });

  it('never overwrites a stored credential with one of another issuer', async () => {
    t = await setup();
    const store = credentialStore(t.store, t.clock);
    const base = { type: ['VerifiableCredential'], claims: {}, format: 'jwt' as const, verified: true as const, status: 'valid' as const, receivedAt: '2026-01-01T00:00:00.000Z', thid: 't1', raw: 'x', checks: [] };
    await store.put({ ...base, id: 'urn:uuid:1', issuer: 'did:web:a.example' });
    await expect(store.put({ ...base, id: 'urn:uuid:1', issuer: 'did:web:b.example' })).rejects.toMatchObject({ code: 'conflict' });
    await store.put({ ...base, id: 'urn:uuid:1', issuer: 'did:web:a.example', thid: 't2' });
    expect(await store.get('urn:uuid:1')).toMatchObject({ issuer: 'did:web:a.example', thid: 't2' });
  });
});
