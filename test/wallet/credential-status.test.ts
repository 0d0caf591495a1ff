import { afterEach, describe, expect, it } from 'vitest';
import { issueCredential } from '../../src/credentials/issue.js';
import { allocateIndex, createStatusList, issueStatusListCredential, setStatus, statusListEntry, type StatusList } from '../../src/credentials/status-list.js';
import { wireCredential } from '../../src/protocols/issue-credential.js';
import { openStore, type Collection, type Store } from '../../src/store/store.js';
import { CREDENTIALS_COLLECTION, credentialStore, type StoredCredential } from '../../src/wallet/credential-store.js';
import { connect, setup, type TestSetup } from './setup.js';

const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace' };
const LIST_URL = 'https://issuer.example/status-lists/revocation-1';
const REPLACEMENT = 'urn:uuid:replacement';

let t: TestSetup | undefined;
let own: Store | undefined;
afterEach(async () => {
  await t?.close();
  await own?.close();
  t = undefined;
  own = undefined;
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

/** A read held back: it takes the record when it is made and hands it over only at release(). */
interface HeldRead {
  /** Resolves with the record taken, once the read is made. */
  made: Promise<StoredCredential | undefined>;
  release(): void;
}

/**
 * `inner` with hold(id, nth): the nth read of credential `id` from then on (1: the next one) is
 * held back, so what it hands over is stale if the record is written before the release.
 */
function withHeldReads(inner: Store): Store & { hold(id: string, nth?: number): HeldRead } {
  const holds = new Map<string, { left: number; take(value: StoredCredential | undefined): Promise<void> }>();
  const real = inner.collection<StoredCredential>(CREDENTIALS_COLLECTION);
  const credentials: Collection<StoredCredential> = {
    name: real.name,
    async get(key) {
      const value = await real.get(key);
      const h = holds.get(key);
      if (h && --h.left === 0) {
        holds.delete(key);
        await h.take(value);
      }
      return value;
    },
    put: (key, value) => real.put(key, value),
    del: (key) => real.del(key),
    list: (o) => real.list(o),
    count: (o) => real.count(o),
  };
  return {
    location: inner.location,
    collection: <T>(name: string) => (name === CREDENTIALS_COLLECTION ? credentials : inner.collection(name)) as Collection<T>,
    batch: (ops) => inner.batch(ops),
    close: () => inner.close(),
    hold(id, nth = 1) {
      let made!: (value: StoredCredential | undefined) => void;
      let release!: () => void;
      const go = new Promise<void>((r) => (release = r));
      const read: HeldRead = { made: new Promise((r) => (made = r)), release };
      holds.set(id, { left: nth, take: async (value) => { made(value); await go; } });
      return read;
    },
  };
}

/** A credential (no status) replacing `id`, as the service's sync after a datapoints update issues it (offer and issue replacement_id). */
async function issueReplacement(s: TestSetup, id: string): Promise<StoredCredential> {
  const offer = await s.service.offer(s.wallet.shortDid, DATAPOINTS, { replacementId: id });
  await s.service.next('request-credential', (m) => m.thid === offer.id);
  const received = s.wallet.waitForCredential({ thid: offer.id });
  await s.service.issue(s.wallet.shortDid, offer.id, await s.service.credential(s.wallet.shortDid, DATAPOINTS, { id: REPLACEMENT }), { replacementId: id });
  return received;
}

/** A wallet on a store with held reads, holding a credential whose list (index 5) now says revoked. */
async function revokedWhileHeld() {
  const store = withHeldReads((own = await openStore()));
  t = await setup({ store, wallet: { statusListFetch: async (url) => (url === LIST_URL ? published : undefined) } });
  await connect(t);
  const { list, index } = allocateIndex(createStatusList({ id: LIST_URL, issuer: t.service.did, purpose: 'revocation' }), () => 5);
  const offer = await issueWithStatus(t, list, index, await signedList(t, list));
  const credential = await t.wallet.waitForCredential({ thid: offer.id });
  published = await signedList(t, setStatus(list, index, true));
  return { s: t, store, credential };
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

  it('keeps replaced when the replacement is stored between the refresh reading the credential and writing its status', async () => {
    const { s, store, credential } = await revokedWhileHeld();
    // The refresh reads the credential (valid) to write 'revoked'; the replacement's step stores
    // 'replaced' before that read is handed over.
    const refreshRead = store.hold(credential.id);
    const refreshing = s.wallet.refreshCredentialStatus([credential.id]);
    expect((await refreshRead.made)?.status).toBe('valid');
    await issueReplacement(s, credential.id);
    refreshRead.release();
    const report = await refreshing;
    expect((await s.wallet.credentials()).find((c) => c.id === credential.id)).toMatchObject({ status: 'replaced', replacedBy: REPLACEMENT });
    expect(report).toEqual([{ id: credential.id, status: 'replaced', changed: false }]);
  });

  it('keeps replaced, and reports no revocation, when the refresh reads the credential while the replacement is being stored', async () => {
    const { s, store, credential } = await revokedWhileHeld();
    // The replacement's step reads the credential it retires (its second read of it: the first
    // finds the credential to retire) and is held there; the refresh reads it meanwhile.
    const issueRead = store.hold(credential.id, 2);
    const replacing = issueReplacement(s, credential.id);
    expect((await issueRead.made)?.status).toBe('valid');
    const refreshRead = store.hold(credential.id);
    const changes: unknown[] = [];
    s.wallet.on('credential-status-changed', (e) => changes.push(e));
    const refreshing = s.wallet.refreshCredentialStatus([credential.id]);
    await refreshRead.made;
    refreshRead.release();
    issueRead.release();
    await replacing;
    expect(await refreshing).toEqual([{ id: credential.id, status: 'replaced', changed: false }]);
    expect(changes).toEqual([]);
    // Nothing else of the record is lost to the step's read: only its status moved.
    expect((await s.wallet.credentials()).find((c) => c.id === credential.id)).toEqual({ ...credential, status: 'replaced', replacedBy: REPLACEMENT, statusChangedAt: expect.any(String) });
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
