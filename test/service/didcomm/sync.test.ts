// Data Pipe and sync between the service's DIDComm agent and a hand-written holder, in memory.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toNested } from '../../../src/credentials/datapoints.js';
import { listSyncOperations } from '../../../src/service/didcomm-seam.js';
import { buildDataPipeRequest } from '../../../src/protocols/data-pipe.js';
import { didRegistry } from '../../../src/store/dids.js';
import { messageLog } from '../../../src/store/messages.js';
import { openStore, type Store } from '../../../src/store/store.js';
import { COLLECTIONS } from '../../../src/service/didcomm/collections.js';
import { DATAPOINTS, memoryHarness, named, type MemoryHarness } from './harness.js';

let h: MemoryHarness;
beforeEach(async () => {
  h = await memoryHarness();
});
afterEach(async () => {
  await h.close();
});

async function established(userId = 'u1') {
  const ref = await h.user(userId);
  const holder = h.holder();
  await holder.acceptDataPipe(await h.invitation(ref));
  return { ref, holder };
}

describe('Data Pipe', () => {
  it('links the wallet to the user: long and short DID, session established, webhook', async () => {
    const { ref, holder } = await established();
    const user = await h.service.deps.users.require(ref);
    expect(user.isSessionEstablished).toBe(true);
    expect(user.userDID).toBe(holder.did.did);
    expect(user.shortUserDID).toBe(holder.did.shortDid);
    // vendor-facts params {thid, userId}: thid = the wallet's request (the Data Pipe thread); pthid = the invitation.
    const [event] = named(h.webhooks, 'DATA_PIPE_ESTABLISHED');
    expect(event).toMatchObject({ type: 'SSI_AGENT', action: 'DATA_PIPE_STATUS_UPDATE', params: { userId: 'u1', thid: expect.any(String), pthid: expect.any(String) } });
    expect(named(h.webhooks, 'DATA_PIPE_ESTABLISHED')).toHaveLength(1);
    const request = holder.sentPacked.find((p) => p.message.type.endsWith('/data-pipe/1.0/request'))!.message;
    expect(event.params).toEqual({ userId: 'u1', thid: request.id, pthid: request.pthid });
    // Short → long is known, so later messages may use the short form.
    expect(await didRegistry(h.store).get(holder.did.shortDid!)).toBe(holder.did.did);
  });

  it('answers a repeated request from the same DID with established again, without relinking', async () => {
    const { ref, holder } = await established();
    await holder.acceptDataPipe(await h.invitation(ref));
    expect(named(h.webhooks, 'DATA_PIPE_ESTABLISHED')).toHaveLength(1);
  });

  it('refuses another DID for a linked user with already-linked', async () => {
    const ref = await h.user('u1');
    const first = await h.invitation(ref);
    const second = await h.invitation(ref);
    await h.holder().acceptDataPipe(first);
    const other = h.holder();
    const problem = new Promise((resolve) => other.events.once('problem', resolve));
    await other.router.send(
      buildDataPipeRequest({ from: other.did.did, to: h.service.deps.serviceDid, invitationId: second.id, consentAt: new Date(h.clock.now()).toISOString() }, { clock: h.clock }),
    );
    expect(await problem).toMatchObject({ code: 'e.p.req.data-pipe.already-linked' });
    expect((await h.service.deps.users.require(ref)).shortUserDID).not.toBe(other.did.shortDid);
  });

  it('refuses an invitation past the configured lifetime with invitation-expired', async () => {
    await h.restart({ invitationTtlMs: 60_000 });
    const ref = await h.user('u1');
    const invitation = await h.invitation(ref);
    h.clock.advance(60_001);
    const holder = h.holder();
    const problem = new Promise((resolve) => holder.events.once('problem', resolve));
    await holder.router.send(buildDataPipeRequest({ from: holder.did.did, to: h.service.deps.serviceDid, invitationId: invitation.id, consentAt: new Date(h.clock.now()).toISOString() }, { clock: h.clock }));
    expect(await problem).toMatchObject({ code: 'e.p.req.data-pipe.invitation-expired' });
    expect((await h.service.deps.users.require(ref)).isSessionEstablished).toBe(false);
  });

  it('gives invitations a 30-day expires_time by default and refuses a request after it', async () => {
    const ref = await h.user('u1');
    const invitation = await h.invitation(ref);
    expect(invitation.expires_time).toBe(Math.floor(h.clock.now() / 1000) + 30 * 24 * 3600);
    h.clock.advance(30 * 24 * 3600 * 1000);
    const holder = h.holder();
    const problem = new Promise((resolve) => holder.events.once('problem', resolve));
    await holder.router.send(buildDataPipeRequest({ from: holder.did.did, to: h.service.deps.serviceDid, invitationId: invitation.id, consentAt: new Date(h.clock.now()).toISOString() }, { clock: h.clock }));
    expect(await problem).toMatchObject({ code: 'e.p.req.data-pipe.invitation-expired' });
    expect((await h.service.deps.users.require(ref)).isSessionEstablished).toBe(false);
  });

  it('refuses an unknown invitation', async () => {
    const holder = h.holder();
    const problem = new Promise((resolve) => holder.events.once('problem', resolve));
    await holder.router.send(buildDataPipeRequest({ from: holder.did.did, to: h.service.deps.serviceDid, invitationId: 'nope', consentAt: new Date(h.clock.now()).toISOString() }, { clock: h.clock }));
    expect(await problem).toMatchObject({ code: 'e.p.req.data-pipe.invitation-unknown' });
  });
});

describe('sync', () => {
  it('authenticates, issues a credential that verifies, and on ack marks the user synced and linked', async () => {
    const { ref, holder } = await established();
    const done = h.agent.waitFor('sync-completed');
    const { operationId } = await h.service.deps.users.startSync(ref);
    const completed = await done;
    expect(completed).toMatchObject({ operationId });
    await h.agent.idle();

    expect(holder.credentials).toHaveLength(1);
    const [cred] = holder.credentials;
    expect(cred.result.verified).toBe(true);
    const subject = (cred.credential as { credentialSubject: Record<string, unknown> }).credentialSubject;
    expect(subject).toEqual({ id: holder.did.did, ...toNested(DATAPOINTS) });
    expect((cred.credential as { credentialStatus?: unknown }).credentialStatus).toMatchObject({ type: 'BitstringStatusListEntry', statusPurpose: 'revocation' });

    const user = await h.service.deps.users.require(ref);
    expect(user.datapointsSynced).toEqual(user.datapoints);
    expect(user.isLinked).toBe(true);
    expect(user.userLogins).toBe(1);
    const [op] = await listSyncOperations(h.store, ref);
    expect(op).toMatchObject({ id: operationId, status: 'completed', credentialId: cred.id });

    expect(h.webhooks.map((e) => e.event).filter((e) => /^(DATA_SYNC|CREDENTIAL_ISSUANCE)_/.test(e))).toEqual([
      'DATA_SYNC_STARTED',
      'CREDENTIAL_ISSUANCE_PENDING',
      'CREDENTIAL_ISSUANCE_COMPLETED',
      'DATA_SYNC_COMPLETED',
    ]);
    expect(named(h.webhooks, 'DATA_SYNC_COMPLETED')[0].params).toMatchObject({ cptyDID: holder.did.did, dataSyncOperationId: operationId });
    expect(named(h.webhooks, 'CREDENTIAL_ISSUANCE_COMPLETED')[0].params).toMatchObject({ userAccountId: 'u1', didcommThreadId: cred.thid });

    // Every message is in the message log, with its envelope mode and conformance results.
    const log = await messageLog(h.store, h.clock).list({});
    const types = log.map((r) => `${r.direction} ${r.type.split('/').slice(-1)[0]}`);
    expect(types).toEqual(expect.arrayContaining(['in request', 'out established', 'out request-presentation', 'in presentation', 'out ack', 'out offer-credential', 'in request-credential', 'out issue-credential', 'in ack']));
    expect(log.every((r) => r.mode === 'authcrypt')).toBe(true);
    expect(log.flatMap((r) => r.conformance ?? []).filter((c) => !c.ok && c.severity === 'error')).toEqual([]);
  });

  it('a second sync issues a replacement credential (replacement_id = the previous one)', async () => {
    const { ref, holder } = await established();
    let done = h.agent.waitFor('sync-completed');
    await h.service.deps.users.startSync(ref);
    await done;
    done = h.agent.waitFor('sync-completed');
    await h.service.deps.users.updateDatapoints(ref, { firstName: 'Augusta' }, { autoSync: true });
    await done;
    expect(holder.credentials).toHaveLength(2);
    expect(holder.credentials[1].replacementId).toBe(holder.credentials[0].id);
    expect((holder.credentials[1].credential as { replaces?: string }).replaces).toBe(holder.credentials[0].id);
    expect((await h.service.deps.users.require(ref)).datapointsSynced.firstName).toBe('Augusta');
  });

  it('starts the sync owed since a datapoints update once the Data Pipe is established', async () => {
    const ref = await h.user('u2');
    await h.service.deps.users.updateDatapoints(ref, { lastName: 'King' }, { autoSync: true });
    const done = h.agent.waitFor('sync-completed');
    const holder = h.holder();
    await holder.acceptDataPipe(await h.invitation(ref));
    await done;
    await h.agent.idle();
    expect(holder.credentials).toHaveLength(1);
    // established came before the DID-auth request.
    const log = await messageLog(h.store, h.clock).list({ direction: 'out' } as never);
    const order = log.map((r) => r.type.split('/').pop());
    expect(order.indexOf('established')).toBeLessThan(order.indexOf('request-presentation'));
  });

  it('coalesces a second request while the first has not offered yet', async () => {
    const { ref } = await established();
    const a = await h.agent.requestSync(ref, 'manual');
    const b = await h.agent.requestSync(ref, 'manual');
    expect(b.operationId).toBe(a.operationId);
    await h.agent.waitFor('sync-completed');
  });

  it('gives a request made while the offer is being made a follow-up sync: its datapoints are not lost', async () => {
    // The second read of the user's Data Pipe after the sync started is the offer's own (offerFor),
    // after the datapoints were taken and before the operation is stored as issuing: the update
    // lands there, as a PUT datapoints on a busy disk does.
    const inner = await openStore();
    let reads = -1;
    let update: (() => Promise<unknown>) | undefined;
    const withHook = <T extends object>(c: T): T =>
      new Proxy(c, {
        get(t, p) {
          if (p === 'get') {
            return async (key: string) => {
              const value = await (t as unknown as { get(k: string): Promise<unknown> }).get(key);
              if (reads >= 0 && ++reads === 2 && update) await update();
              return value;
            };
          }
          const v = Reflect.get(t, p) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
        },
      });
    const store = new Proxy(inner, {
      get(t, p) {
        if (p === 'collection') return (name: string) => (name === COLLECTIONS.pipes ? withHook(t.collection(name)) : t.collection(name));
        const v = Reflect.get(t, p) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
      },
    }) as Store;
    const hh = await memoryHarness({ store });
    try {
      const ref = await hh.user('u1');
      const holder = hh.holder();
      await holder.acceptDataPipe(await hh.invitation(ref));
      const started = hh.agent.waitFor('sync-started');
      const { operationId } = await hh.service.deps.users.startSync(ref);
      await started;
      let joined: { syncOperationId?: string } | undefined;
      update = async () => {
        update = undefined;
        joined = await hh.service.deps.users.updateDatapoints(ref, { firstName: 'Augusta' }, { autoSync: true });
      };
      reads = 0;
      // The first sync completes with the datapoints it took; the follow-up with the update.
      await hh.agent.waitFor('sync-completed', (e: { operationId: string }) => e.operationId !== operationId);
      expect(joined?.syncOperationId).toBeDefined();
      expect(joined?.syncOperationId).not.toBe(operationId);
      expect(holder.credentials).toHaveLength(2);
      expect((await hh.service.deps.users.require(ref)).datapointsSynced.firstName).toBe('Augusta');
    } finally {
      await hh.close();
      await inner.close();
    }
  });

  it('revokes a credential for good: clearing its revocation bit is refused, and the bit stays set', async () => {
    const { ref } = await established();
    const done = h.agent.waitFor('sync-completed');
    await h.service.deps.users.startSync(ref);
    await done;
    const [op] = await listSyncOperations(h.store, ref);
    const id = (op as { credentialId?: string }).credentialId!;
    expect(await h.agent.setCredentialStatus(id, true)).toBe(true);
    // Bitstring Status List v1.0 §2.1, revocation: "This status is not reversible."
    await expect(h.agent.setCredentialStatus(id, false)).rejects.toMatchObject({ code: 'revocation_final' });
    expect(await h.agent.setCredentialStatus(id, true)).toBe(false);
    await h.agent.idle();
    expect(named(h.webhooks, 'CREDENTIAL_REVOKED', 'CREDENTIAL_UNSUSPENDED', 'CREDENTIAL_SUSPENDED').map((e) => e.event)).toEqual(['CREDENTIAL_REVOKED']);
  });

  it('a revoke and a clear of one credential at once end revoked: the clear sees the revoke (the check is under the list\'s lock)', async () => {
    const { ref } = await established();
    const done = h.agent.waitFor('sync-completed');
    await h.service.deps.users.startSync(ref);
    await done;
    const [op] = await listSyncOperations(h.store, ref);
    const id = (op as { credentialId?: string }).credentialId!;
    const [revoke, clear] = await Promise.allSettled([h.agent.setCredentialStatus(id, true), h.agent.setCredentialStatus(id, false)]);
    expect(revoke).toEqual({ status: 'fulfilled', value: true });
    // Cleared before the revoke (nothing to clear) or refused after it: never cleared after it.
    if (clear.status === 'rejected') expect(clear.reason).toMatchObject({ code: 'revocation_final' });
    else expect(clear.value).toBe(false);
    await h.agent.idle();
    expect(named(h.webhooks, 'CREDENTIAL_REVOKED', 'CREDENTIAL_UNSUSPENDED').map((e) => e.event)).toEqual(['CREDENTIAL_REVOKED']);
    expect(await h.agent.setCredentialStatus(id, true)).toBe(false);
  });

  it('a declined offer aborts the sync', async () => {
    const { ref, holder } = await established();
    holder.policy.offer = 'decline';
    const aborted = h.agent.waitFor('sync-aborted');
    await h.service.deps.users.startSync(ref);
    await aborted;
    expect(named(h.webhooks, 'DATA_SYNC_ABORTED', 'CREDENTIAL_ISSUANCE_FAILED').map((e) => e.event)).toEqual(['CREDENTIAL_ISSUANCE_FAILED', 'DATA_SYNC_ABORTED']);
    const user = await h.service.deps.users.require(ref);
    expect(user.isLinked).toBe(false);
    expect((await listSyncOperations(h.store, ref))[0].status).toBe('aborted');
  });

  it('a credential the wallet refuses fails the sync', async () => {
    const { ref, holder } = await established();
    holder.policy.credential = 'refuse';
    const failed = h.agent.waitFor('sync-failed');
    await h.service.deps.users.startSync(ref);
    expect(await failed).toMatchObject({ reason: 'credential_invalid' });
    expect(named(h.webhooks, 'DATA_SYNC_FAILED')).toHaveLength(1);
  });

  it('issues a VC-JWT when the project\'s issuance settings say jwt', async () => {
    const project = (await h.service.deps.config.getProject('default', 'qa-project'))!;
    await h.service.deps.config.putProject({ ...project, issuance: { ...project.issuance, format: 'jwt' } });
    const { ref, holder } = await established();
    const done = h.agent.waitFor('sync-completed');
    await h.service.deps.users.startSync(ref);
    await done;
    expect(typeof holder.credentials[0].credential).toBe('string');
    expect(holder.credentials[0].result).toMatchObject({ verified: true, format: 'jwt' });
  });
});
