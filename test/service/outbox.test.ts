import { describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { openStore } from '../../src/store/store.js';
import { createOutbox, OUTBOX, OUTBOX_BY_ID, OUTBOX_BY_TARGET, OUTBOX_BY_WORKFLOW } from '../../src/service/issuance/invitation-outbox.js';
import { countingStore } from '../store/counting-store.js';

async function setup() {
  const store = await openStore();
  const clock = new ManualClock();
  return { store, clock, outbox: createOutbox({ store, clock, ids: sequentialIds('ob') }) };
}

const base = { text: 'hi', invitationUrl: 'http://x/connect?_oob=abc' };

describe('outbox', () => {
  it('records entries and lists them oldest first, filtered by target and channel', async () => {
    const { outbox, clock } = await setup();
    await outbox.record({ ...base, channel: 'EMAIL', to: 'a@example.com', subject: 's' });
    await outbox.record({ ...base, channel: 'SMS', to: '+4915112345678' });
    clock.advance(5);
    const third = await outbox.record({ ...base, channel: 'EMAIL', to: 'a@example.com', workflowId: 'wf-1' });
    expect(third).toMatchObject({ channel: 'EMAIL', to: 'a@example.com', status: 'pending', sentAt: new Date(clock.now()).toISOString() });
    expect((await outbox.list()).map((e) => e.id)).toEqual(['ob-1', 'ob-2', 'ob-3']);
    expect((await outbox.list({ to: 'A@Example.com' })).map((e) => e.id)).toEqual(['ob-1', 'ob-3']);
    expect((await outbox.list({ to: '+49 151 1234 5678' })).map((e) => e.id)).toEqual(['ob-2']);
    expect((await outbox.list({ channel: 'SMS' })).map((e) => e.id)).toEqual(['ob-2']);
    expect((await outbox.list({ workflowId: 'wf-1' })).map((e) => e.id)).toEqual(['ob-3']);
  });

  it('updates an entry with the transport outcome', async () => {
    const { outbox } = await setup();
    const e = await outbox.record({ ...base, channel: 'SMS', to: '+4915112345678' });
    await outbox.update(e.id, { status: 'failed', error: { code: 'sms_send_failed', message: 'HTTP 500' } });
    expect(await outbox.get(e.id)).toMatchObject({ status: 'failed', error: { code: 'sms_send_failed' } });
    await outbox.update(e.id, { status: 'sent' });
    expect((await outbox.get(e.id))?.error).toBeUndefined();
    await expect(outbox.update('nope', { status: 'sent' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('next() resolves with the next matching entry without polling', async () => {
    const { outbox } = await setup();
    const waiting = outbox.next({ to: 'b@example.com' });
    await outbox.record({ ...base, channel: 'EMAIL', to: 'a@example.com' });
    const mine = await outbox.record({ ...base, channel: 'EMAIL', to: 'b@example.com' });
    expect((await waiting).id).toBe(mine.id);
  });

  it('waitFor() returns an existing entry or waits for one; abort stops waiting', async () => {
    const { outbox } = await setup();
    const first = await outbox.record({ ...base, channel: 'DIDCOMM', to: 'did:example:123' });
    expect((await outbox.waitFor({ to: 'did:example:123' })).id).toBe(first.id);
    const ac = new AbortController();
    const w = outbox.waitFor({ to: 'did:example:none' }, { signal: ac.signal });
    ac.abort();
    await expect(w).rejects.toMatchObject({ code: 'aborted' });
  });

  it('keeps entries across a new outbox on the same store', async () => {
    const { store, clock, outbox } = await setup();
    const e = await outbox.record({ ...base, channel: 'EMAIL', to: 'a@example.com' });
    const again = createOutbox({ store, clock, ids: sequentialIds('x') });
    expect((await again.list()).map((x) => x.id)).toEqual([e.id]);
    expect((await again.update(e.id, { status: 'sent' })).status).toBe('sent');
  });

  it("reads one workflow's or one address's entries, not the whole outbox, and finds an entry by id", async () => {
    const { store, reads } = countingStore(await openStore(), OUTBOX);
    const clock = new ManualClock();
    const outbox = createOutbox({ store, clock, ids: sequentialIds('ob') });
    for (let i = 0; i < 300; i++) {
      await outbox.record({ ...base, channel: 'EMAIL', to: `user${i}@example.com`, workflowId: `wf-${i}` });
      clock.advance(1);
    }
    const before = reads();
    expect((await outbox.list({ workflowId: 'wf-150', channel: 'EMAIL' })).map((e) => e.to)).toEqual(['user150@example.com']);
    expect((await outbox.list({ to: 'USER7@example.com' })).map((e) => e.workflowId)).toEqual(['wf-7']);
    expect((await outbox.get('ob-42'))?.to).toBe('user41@example.com');
    expect(await outbox.get('nope')).toBeUndefined();
    // Without the indexes each of these read all 300 (a fleet's e-mail flows did, once per flow).
    expect(reads() - before).toBe(3);
  });

  it('indexes the entries of a store written before its indexes, once, and then finds them by index', async () => {
    const { store, clock, outbox } = await setup();
    const a = await outbox.record({ ...base, channel: 'EMAIL', to: 'a@example.com', workflowId: 'wf-a' });
    const b = await outbox.record({ ...base, channel: 'SMS', to: '+4915112345678', workflowId: 'wf-b' });
    for (const name of [OUTBOX_BY_ID, OUTBOX_BY_TARGET, OUTBOX_BY_WORKFLOW]) {
      const col = store.collection(name);
      for (const e of await col.list()) await col.del(e.key);
    }
    const counted = countingStore(store, OUTBOX);
    const again = createOutbox({ store: counted.store, clock, ids: sequentialIds('x') });
    expect((await again.list({ workflowId: 'wf-b' })).map((e) => e.id)).toEqual([b.id]);
    const afterIndexing = counted.reads();
    expect((await again.get(a.id))?.to).toBe('a@example.com');
    expect((await again.list({ to: 'A@example.com' })).map((e) => e.id)).toEqual([a.id]);
    expect(counted.reads() - afterIndexing).toBe(2);
    expect(await store.collection(OUTBOX_BY_ID).count()).toBe(2);
  });
});
