// Outbox (service-security.md #8b): a state change and the webhook event that reports it are
// stored in one store batch, so a process killed in between keeps both or neither.
import { afterEach, describe, expect, it } from 'vitest';
import { listSyncOperations, SYNC_OPERATIONS } from '../../../src/service/didcomm-seam.js';
import { USERS } from '../../../src/service/users/users.js';
import { EVENTS, type StoredWebhookEvent } from '../../../src/service/webhooks/dispatcher.js';
import { openStore, type BatchOp, type Store } from '../../../src/store/store.js';
import { memoryHarness, type MemoryHarness } from './harness.js';

let h: MemoryHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A store whose batches are recorded; `failWhen` makes a batch throw (a crash before it was written). */
async function watchedStore(): Promise<{ store: Store; batches: BatchOp[][]; failWhen: { fn?: (ops: BatchOp[]) => boolean } }> {
  const store = await openStore();
  const batches: BatchOp[][] = [];
  const failWhen: { fn?: (ops: BatchOp[]) => boolean } = {};
  const batch = store.batch.bind(store);
  store.batch = async (ops: BatchOp[]) => {
    if (failWhen.fn?.(ops)) {
      failWhen.fn = undefined;
      throw new Error('simulated crash before the batch was written');
    }
    batches.push(ops);
    return batch(ops);
  };
  return { store, batches, failWhen };
}

const eventsIn = (ops: BatchOp[]): string[] =>
  ops.filter((o) => o.type === 'put' && o.collection === EVENTS).map((o) => ((o as { value: StoredWebhookEvent }).value.envelope.event));

async function storedEvents(store: Store): Promise<string[]> {
  return (await store.collection<StoredWebhookEvent>(EVENTS).list()).map((e) => e.value.envelope.event);
}

describe('webhook events in the same batch as their state change', () => {
  it('stores DATA_PIPE_ESTABLISHED with the write that links the wallet', async () => {
    const w = await watchedStore();
    h = await memoryHarness({ store: w.store, dispatcherEvents: true });
    const ref = await h.user('u1');
    const holder = h.holder();
    await holder.acceptDataPipe(await h.invitation(ref));

    const linking = w.batches.filter((ops) => ops.some((o) => o.type === 'put' && o.collection === USERS && (o.value as { userDID?: string }).userDID === holder.did.did));
    expect(linking).toHaveLength(1);
    expect(eventsIn(linking[0])).toEqual(['DATA_PIPE_ESTABLISHED']);
    expect((await storedEvents(w.store)).filter((e) => e === 'DATA_PIPE_ESTABLISHED')).toHaveLength(1);
  });

  it('stores DATA_SYNC_COMPLETED and CREDENTIAL_ISSUANCE_COMPLETED with the write that completes the sync', async () => {
    const w = await watchedStore();
    h = await memoryHarness({ store: w.store, dispatcherEvents: true });
    const ref = await h.user('u1');
    await h.holder().acceptDataPipe(await h.invitation(ref));
    const done = h.agent.waitFor('sync-completed');
    await h.service.deps.users.startSync(ref);
    await done;

    const completing = w.batches.filter((ops) => ops.some((o) => o.type === 'put' && o.collection === SYNC_OPERATIONS && (o.value as { status: string }).status === 'completed'));
    expect(completing).toHaveLength(1);
    expect(eventsIn(completing[0]).sort()).toEqual(['CREDENTIAL_ISSUANCE_COMPLETED', 'DATA_SYNC_COMPLETED']);
  });

  it('completes after a restart a sync whose ack arrived but whose completion was never stored, with its webhooks once', async () => {
    const w = await watchedStore();
    h = await memoryHarness({ store: w.store, dispatcherEvents: true });
    const ref = await h.user('u1');
    const holder = h.holder();
    await holder.acceptDataPipe(await h.invitation(ref));
    // The process "dies" as the completion is written: neither the operation nor its events are stored.
    w.failWhen.fn = (ops) => ops.some((o) => o.type === 'put' && o.collection === SYNC_OPERATIONS && (o.value as { status: string }).status === 'completed');
    const refused = h.agent.waitFor<{ type?: string }>('received', (r) => String(r.type).endsWith('/issue-credential/3.0/ack'));
    const { operationId } = await h.service.deps.users.startSync(ref);
    await refused;
    await h.agent.idle();
    expect((await listSyncOperations(h.store, ref)).find((o) => o.id === operationId)?.status).toBe('started');
    expect(await storedEvents(w.store)).not.toContain('DATA_SYNC_COMPLETED');

    // The thread's ack was in the batch that failed: on restart the credential goes out again at
    // once, and a wallet answers it with the ack it stored (here the test holder sends it again).
    const agent = await h.restart();
    const completed = agent.waitFor('sync-completed');
    await agent.idle();
    const ack = holder.sentPacked.find((s) => s.message.type.endsWith('/issue-credential/3.0/ack'))!;
    await holder.replay(ack.packed);
    await completed;
    await agent.idle();
    expect((await listSyncOperations(h.store, ref)).find((o) => o.id === operationId)?.status).toBe('completed');
    const events = await storedEvents(w.store);
    expect(events.filter((e) => e === 'DATA_SYNC_COMPLETED')).toHaveLength(1);
    expect(events.filter((e) => e === 'CREDENTIAL_ISSUANCE_COMPLETED')).toHaveLength(1);
    expect((await h.service.deps.users.require(ref)).isLinked).toBe(true);
  });
});
