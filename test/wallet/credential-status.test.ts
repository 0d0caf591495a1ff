import { afterEach, describe, expect, it } from 'vitest';
import { issueCredential } from '../../src/credentials/issue.js';
import { allocateIndex, createStatusList, issueStatusListCredential, setStatus, statusListEntry, type StatusList } from '../../src/credentials/status-list.js';
import { wireCredential } from '../../src/protocols/issue-credential.js';
import { credentialStore } from '../../src/wallet/credential-store.js';
import { connect, setup, type TestSetup } from './setup.js';

const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace' };
const LIST_URL = 'https://issuer.example/status-lists/revocation-1';

let t: TestSetup | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The published list, as the wallet fetches it (a test stand-in for HTTP GET). */
let published: unknown;

async function signedList(s: TestSetup, list: StatusList): Promise<unknown> {
  return wireCredential(await issueStatusListCredential(list, { format: 'jwt', issuer: s.service.issuer, clock: s.clock })).credential;
}

async function issueWithStatus(s: TestSetup, list: StatusList, index: number, attach: unknown) {
  const offer = await s.service.offer(s.wallet.shortDid, DATAPOINTS);
  await s.service.next('request-credential', (m) => m.thid === offer.id);
  const issued = await issueCredential({ format: 'jwt', subjectDid: s.wallet.shortDid, claims: DATAPOINTS, issuer: s.service.issuer, clock: s.clock, credentialStatus: statusListEntry(list, index) });
  await s.service.issue(s.wallet.shortDid, offer.id, wireCredential(issued).credential as string, { statusListCredential: attach });
  return offer;
}

describe('credential status', () => {
  it('checks status against the status list attached to the issue message, then follows revocation', async () => {
    t = await setup({ wallet: { statusListFetch: async (url) => (url === LIST_URL ? published : undefined) } });
    await connect(t);
    const { list, index } = allocateIndex(createStatusList({ id: LIST_URL, issuer: t.service.did, purpose: 'revocation' }), () => 7);
    const offer = await issueWithStatus(t, list, index, await signedList(t, list));
    const credential = await t.wallet.waitForCredential({ thid: offer.id });
    expect(credential.checks.find((c) => c.check === 'status')).toMatchObject({ ok: true });

    published = await signedList(t, list);
    expect(await t.wallet.refreshCredentialStatus()).toEqual([{ id: credential.id, status: 'valid', changed: false }]);

    published = await signedList(t, setStatus(list, index, true));
    const changed = t.wallet.waitFor('credential-status-changed');
    expect(await t.wallet.refreshCredentialStatus()).toEqual([{ id: credential.id, status: 'revoked', changed: true }]);
    expect((await changed).previous).toBe('valid');
    expect((await t.wallet.credentials())[0].status).toBe('revoked');
  });

  it('does not overwrite a replacement made while the list was being fetched: the credential keeps replaced', async () => {
    // A slow status list host: the refresh's fetch waits for the test, and meanwhile the credential
    // is replaced, as the issue of its replacement does (issue-credential.ts, in the issue's batch).
    let slow: { reached: () => void; go: Promise<void> } | undefined;
    t = await setup({
      wallet: {
        statusListFetch: async (url) => {
          if (slow) {
            slow.reached();
            await slow.go;
          }
          return url === LIST_URL ? published : undefined;
        },
      },
    });
    await connect(t);
    const { list, index } = allocateIndex(createStatusList({ id: LIST_URL, issuer: t.service.did, purpose: 'revocation' }), () => 5);
    published = await signedList(t, list);
    const offer = await issueWithStatus(t, list, index, await signedList(t, list));
    const credential = await t.wallet.waitForCredential({ thid: offer.id });
    // The issuer revokes it; the wallet reads that while the replacement lands.
    published = await signedList(t, setStatus(list, index, true));
    let go!: () => void;
    const atFetch = new Promise<void>((reached) => (slow = { reached, go: new Promise<void>((r) => (go = r)) }));
    const refreshing = t.wallet.refreshCredentialStatus([credential.id]);
    await atFetch;
    await credentialStore(t.store, t.clock).setStatus(credential.id, 'replaced', { replacedBy: 'urn:uuid:replacement' });
    go();
    expect(await refreshing).toEqual([{ id: credential.id, status: 'replaced', changed: false }]);
    expect((await t.wallet.credentials()).find((c) => c.id === credential.id)).toMatchObject({ status: 'replaced', replacedBy: 'urn:uuid:replacement' });
  });

  it('keeps the stored status when the list cannot be fetched', async () => {
    t = await setup({ wallet: { statusListFetch: async () => undefined } });
    await connect(t);
    const { list, index } = allocateIndex(createStatusList({ id: LIST_URL, issuer: t.service.did, purpose: 'revocation' }), () => 3);
    const offer = await issueWithStatus(t, list, index, await signedList(t, list));
    await t.wallet.waitForCredential({ thid: offer.id });
    const [r] = await t.wallet.refreshCredentialStatus();
    expect(r).toMatchObject({ status: 'valid', changed: false, error: expect.stringContaining('status_unavailable') });
  });

  it('refuses a credential that is already revoked when issued', async () => {
    t = await setup();
    await connect(t);
    const { list, index } = allocateIndex(createStatusList({ id: LIST_URL, issuer: t.service.did, purpose: 'revocation' }), () => 5);
    const offer = await issueWithStatus(t, list, index, await signedList(t, setStatus(list, index, true)));
    const problem = await t.service.nextProblem((p) => p.pthid === offer.id);
    expect(problem).toMatchObject({ code: 'e.p.msg.credential-invalid', args: ['status', 'revoked'] });
    expect(await t.wallet.credentials()).toEqual([]);
  });

  it('refuses a credential with a status when no status list is attached or reachable', async () => {
    t = await setup({ wallet: { statusListFetch: async () => undefined } });
    await connect(t);
    const { list, index } = allocateIndex(createStatusList({ id: LIST_URL, issuer: t.service.did, purpose: 'revocation' }), () => 9);
    const offer = await issueWithStatus(t, list, index, undefined);
    expect((await t.service.nextProblem((p) => p.pthid === offer.id)).args).toEqual(['status', 'status_unavailable']);
  });
});
