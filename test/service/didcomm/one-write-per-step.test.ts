// A service step is one store write (docs/protocols.md "Durable steps"): the state a step changes
// (the thread, the sync operation or the user's link, their webhook events) and the message it
// sends go into ONE batch before the message goes out, so a process killed at any moment keeps a
// step whole or not at all.
import { afterEach, describe, expect, it } from 'vitest';
import { SYNC_OPERATIONS } from '../../../src/service/didcomm-seam.js';
import { COLLECTIONS } from '../../../src/service/didcomm/collections.js';
import { USERS } from '../../../src/service/users/users.js';
import { EVENTS, type StoredWebhookEvent } from '../../../src/service/webhooks/dispatcher.js';
import { DIDS_COLLECTION } from '../../../src/store/dids.js';
import { openStore, type BatchOp, type Store } from '../../../src/store/store.js';
import { memoryHarness, type MemoryHarness } from './harness.js';

let h: MemoryHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function watchedStore(): Promise<{ store: Store; batches: BatchOp[][] }> {
  const store = await openStore();
  const batches: BatchOp[][] = [];
  const batch = store.batch.bind(store);
  store.batch = async (ops: BatchOp[]) => {
    batches.push(ops);
    return batch(ops);
  };
  return { store, batches };
}

/** The batch that stored the service's message of `type`, as `put|del <collection>` (events by name). */
function stepOf(batches: BatchOp[][], type: string): string[] {
  const found = batches.filter((ops) => ops.some((o) => o.type === 'put' && o.collection === COLLECTIONS.resendOut && String((o.value as { message: { type: string } }).message.type).endsWith(type)));
  expect(found).toHaveLength(1);
  return found[0]!.map((o) => (o.collection === EVENTS && o.type === 'put' ? `event ${(o.value as StoredWebhookEvent).envelope.event}` : `${o.type} ${o.collection}`));
}

describe('one store write per service step', () => {
  it('stores each step of a Data Pipe and a sync with the message it sends', async () => {
    const w = await watchedStore();
    h = await memoryHarness({ store: w.store, dispatcherEvents: true });
    const ref = await h.user('u1');
    const holder = h.holder();
    await holder.acceptDataPipe(await h.invitation(ref));
    const done = h.agent.waitFor('sync-completed');
    await h.service.deps.users.startSync(ref);
    await done;
    await h.agent.idle();

    // The registry entry, the pipe and its thread index entry, the user's link, DATA_PIPE_ESTABLISHED and `established`.
    expect(stepOf(w.batches, '/established')).toEqual([
      `put ${DIDS_COLLECTION}`, `put ${COLLECTIONS.pipes}`, `put ${COLLECTIONS.pipesByThread}`, `put ${USERS}`, 'put svc-user-dids', 'event DATA_PIPE_ESTABLISHED', 'put webhook-unsequenced',
      `put ${COLLECTIONS.resendOut}`, `put ${COLLECTIONS.resend}`,
    ]);
    // The DID-auth thread, the operation started, DATA_SYNC_STARTED and the request.
    expect(stepOf(w.batches, '/request-presentation')).toEqual([
      `put ${COLLECTIONS.threads}`, `put ${SYNC_OPERATIONS}`, 'event DATA_SYNC_STARTED', 'put webhook-unsequenced', `put ${COLLECTIONS.resendOut}`, `put ${COLLECTIONS.resend}`,
    ]);
    // The thread done and its ack (the request-presentation it replaces goes in the same batch).
    expect(stepOf(w.batches, '/present-proof/3.0/ack')).toEqual([`put ${COLLECTIONS.threads}`, `put ${COLLECTIONS.resendOut}`, `put ${COLLECTIONS.resend}`, `del ${COLLECTIONS.resendOut}`]);
    // The issuance thread, the operation issuing on it, CREDENTIAL_ISSUANCE_PENDING and the offer.
    expect(stepOf(w.batches, '/offer-credential')).toEqual([
      `put ${COLLECTIONS.threads}`, `put ${SYNC_OPERATIONS}`, 'event CREDENTIAL_ISSUANCE_PENDING', 'put webhook-unsequenced', `put ${COLLECTIONS.resendOut}`, `put ${COLLECTIONS.resend}`,
    ]);
    expect(stepOf(w.batches, '/issue-credential')).toEqual([`put ${COLLECTIONS.threads}`, `put ${COLLECTIONS.resendOut}`, `put ${COLLECTIONS.resend}`, `del ${COLLECTIONS.resendOut}`]);
    // The holder's ack: the thread done and the sync completed with its events, one batch.
    const completing = w.batches.filter((ops) => ops.some((o) => o.type === 'put' && o.collection === SYNC_OPERATIONS && (o.value as { status: string }).status === 'completed'));
    expect(completing).toHaveLength(1);
    expect(completing[0]!.map((o) => `${o.type} ${o.collection}`).slice(0, 3)).toEqual([`put ${COLLECTIONS.threads}`, `put ${SYNC_OPERATIONS}`, `put ${COLLECTIONS.userState}`]);
  });
});
