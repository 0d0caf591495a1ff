// A wallet step is one store write (docs/protocols.md "Durable steps"): the thread's new state, the
// message it sends and whatever else the step changes (the connection, the credentials, a pending
// item) go into ONE batch before the message goes out, so a crash keeps all of it or none. Two
// writes (state, then message) let a wallet killed in between come back with an offer recorded
// as received and never answered, every copy of it then refused as a duplicate.
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type BatchOp, type Store } from '../../src/store/store.js';
import { THREADS_COLLECTION } from '../../src/wallet/threads.js';
import { RESEND_COLLECTION, RESEND_OUT_COLLECTION } from '../../src/wallet/runtime.js';
import { CREDENTIALS_COLLECTION } from '../../src/wallet/credential-store.js';
import { connect, setup, type TestSetup } from './setup.js';

const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' };

/** The store's writes as they happen: each batch, and each single put or del (by collection). */
async function watched(): Promise<{ store: Store; batches: BatchOp[][]; singles: string[] }> {
  const inner = await openStore();
  const batches: BatchOp[][] = [];
  const singles: string[] = [];
  const store: Store = {
    location: null,
    close: () => inner.close(),
    batch: (ops) => (batches.push(ops), inner.batch(ops)),
    collection: <T>(name: string) => {
      const c = inner.collection<T>(name);
      return {
        name: c.name,
        get: (k: string) => c.get(k),
        list: (o?: Parameters<typeof c.list>[0]) => c.list(o),
        count: (o?: Parameters<typeof c.count>[0]) => c.count(o),
        put: (k: string, v: T) => (singles.push(`put ${name}`), c.put(k, v)),
        del: (k: string) => (singles.push(`del ${name}`), c.del(k)),
      };
    },
  };
  return { store, batches, singles };
}

const collections = (ops: BatchOp[]) => ops.map((op) => `${op.type} ${op.collection}`);

let t: TestSetup | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('one store write per wallet step', () => {
  it('stores the offer received, the request answering it and the thread in one batch', async () => {
    const w = await watched();
    t = await setup({ store: w.store });
    await connect(t);
    const offer = await t.service.offer(t.wallet.shortDid, DATAPOINTS);
    await t.service.next('request-credential', (m) => m.thid === offer.id);
    const step = w.batches.filter((b) => b.some((op) => op.type === 'put' && op.collection === THREADS_COLLECTION && op.key === offer.id));
    // One write for the thread on this step: received and answered together.
    expect(step).toHaveLength(1);
    expect(collections(step[0]!)).toEqual([`put ${THREADS_COLLECTION}`, `put ${RESEND_OUT_COLLECTION}`, `put ${RESEND_COLLECTION}`]);
    expect(w.singles.filter((s) => s.includes(THREADS_COLLECTION) || s.includes(RESEND_COLLECTION))).toEqual([]);
    await w.store.close();
  });

  it('stores the credentials, the ack and the thread in one batch', async () => {
    const w = await watched();
    t = await setup({ store: w.store });
    await connect(t);
    const received = t.wallet.waitForCredential();
    const offer = await t.service.offer(t.wallet.shortDid, DATAPOINTS);
    await t.service.next('request-credential', (m) => m.thid === offer.id);
    await t.service.issue(t.wallet.shortDid, offer.id, await t.service.credential(t.wallet.shortDid, DATAPOINTS));
    await t.service.next('ack', (m) => m.thid === offer.id);
    await received;
    const step = w.batches.filter((b) => b.some((op) => op.type === 'put' && op.collection === CREDENTIALS_COLLECTION));
    expect(step).toHaveLength(1);
    expect(collections(step[0]!)).toEqual([`put ${THREADS_COLLECTION}`, `put ${CREDENTIALS_COLLECTION}`, `put ${RESEND_OUT_COLLECTION}`, `put ${RESEND_COLLECTION}`, `del ${RESEND_OUT_COLLECTION}`]);
    expect(w.singles.filter((s) => s.includes(CREDENTIALS_COLLECTION))).toEqual([]);
    await w.store.close();
  });
});
