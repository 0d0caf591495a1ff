// What the durable-steps engine stores (router/steps/store.ts): a thread's last message is written
// once, apart from the small state every step rewrites, in ONE batch with the step's own writes;
// it is deleted when the peer's last word on the thread arrives; and a restarted party (a new
// engine over the same store) resumes its schedules and answers replays from what is stored, also
// from records written with the message inline by earlier versions.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createStepEngine, type StepOptions } from '../../src/router/steps/engine.js';
import { outKey, type StepOut as ResendOut, type StepState as ResendState } from '../../src/router/steps/state.js';
import { openLightStore } from '../../src/store/light-store.js';
import type { BatchOp, Store } from '../../src/store/store.js';
import type { PlainMessage } from '../../src/didcomm/types.js';

const ISSUE = 'https://didcomm.org/issue-credential/3.0/issue-credential';
const REQUEST = 'https://didcomm.org/issue-credential/3.0/request-credential';
const ACK = 'https://didcomm.org/issue-credential/3.0/ack';
const KINDS: Record<string, 'retry' | 'answer'> = { [ISSUE]: 'retry', [REQUEST]: 'retry', [ACK]: 'answer' };
const msg = (id: string, type: string, body: Record<string, unknown> = {}): PlainMessage => ({ id, type, thid: 't-1', body });

/** `store` with every batch recorded: the keys put and deleted, by collection. */
function counted(store: Store, batches: BatchOp[][]): Store {
  return { collection: (n) => store.collection(n), batch: (ops) => (batches.push(ops), store.batch(ops)), close: () => store.close(), location: null };
}

function party(store: Store, clock: ManualClock, extra: Partial<StepOptions> = {}) {
  const batches: BatchOp[][] = [];
  const sends: ResendOut[] = [];
  const r = createStepEngine(
    {
      store: counted(store, batches),
      collections: { states: 'resend', outs: 'resend-out' },
      kind: (m) => KINDS[String(m.type)],
      random: () => 0.999999,
      ...extra,
    },
    { clock, log: () => undefined, send: async (out) => void sends.push(out) },
  );
  const keys = (collection: string, type: 'put' | 'del') => batches.flat().filter((op) => op.collection === collection && op.type === type).map((op) => op.key);
  return {
    r,
    sends,
    batches,
    get puts() {
      return { states: keys('resend', 'put'), outs: keys('resend-out', 'put') };
    },
    get dels() {
      return keys('resend-out', 'del');
    },
  };
}

describe('step records: the last message stored apart from the state, in one batch with the step', () => {
  it('writes the last message once while the state moves, and deletes the one it replaces', async () => {
    const store = openLightStore();
    const clock = new ManualClock();
    const p = party(store, clock);
    const { r } = p;
    await r.noteReceived(msg('in-1', REQUEST));
    const thread: BatchOp = { type: 'put', collection: 'threads', key: 't-1', value: { state: 'issued' } };
    await r.noteSending(msg('m-1', ISSUE, { credential: 'x'.repeat(1000) }), 'did:example:w', 'authcrypt', undefined, [thread]);
    // The step's own write, the message and the state naming it: one batch.
    expect(p.batches.at(-1)!.map((op) => `${op.type} ${op.collection} ${op.key}`)).toEqual(['put threads t-1', `put resend-out ${outKey('t-1', 'm-1')}`, 'put resend t-1']);
    await r.noteSending(msg('m-1', ISSUE), 'did:example:w', 'authcrypt'); // the same message again: nothing stored
    await r.cancel('t-1');
    expect(p.puts.outs).toEqual([outKey('t-1', 'm-1')]);
    expect(p.puts.states).toHaveLength(3);
    const state = await store.collection<ResendState>('resend').get('t-1');
    expect(state).toEqual({ thid: 't-1', lastIn: 'in-1', last: { id: 'm-1', after: 'in-1', to: 'did:example:w' }, sent: ['m-1'], at: clock.now() });
    expect(JSON.stringify(state)).not.toContain('xxx');
    expect((await r.get('t-1'))?.out).toMatchObject({ message: { id: 'm-1' }, after: 'in-1', to: 'did:example:w' });
    // The peer asks again: a new last message on the thread; the one before is deleted.
    await r.noteReceived(msg('in-2', REQUEST));
    await r.noteSending(msg('m-2', ISSUE), 'did:example:w', 'authcrypt');
    expect(p.dels).toEqual([outKey('t-1', 'm-1')]);
    expect(await store.collection<ResendOut>('resend-out').get(outKey('t-1', 'm-1'))).toBeUndefined();
    r.close();
  });

  it("answers a replay from the stored message, and deletes it once the peer's last word (kind 'answer') arrives", async () => {
    const store = openLightStore();
    const clock = new ManualClock();
    const p = party(store, clock);
    const { r } = p;
    await r.noteReceived(msg('in-1', REQUEST));
    await r.noteSending(msg('m-1', ISSUE), 'did:example:w', 'authcrypt');
    expect((await r.answerFor(msg('in-1', REQUEST)))?.message.id).toBe('m-1');
    expect(await r.answerFor(msg('other', REQUEST))).toBeUndefined();
    await r.noteReceived(msg('ack-1', ACK));
    expect(p.dels).toEqual([outKey('t-1', 'm-1')]);
    expect(await store.collection<ResendOut>('resend-out').list()).toEqual([]);
    const rec = await r.get('t-1');
    expect(rec).toEqual({ thid: 't-1', lastIn: 'ack-1', sent: ['m-1'], at: clock.now() });
    // Sending an older message of the thread again is still a resend, never a new step.
    await r.noteSending(msg('m-1', ISSUE), 'did:example:w', 'authcrypt');
    expect((await r.get('t-1'))?.out).toBeUndefined();
    r.close();
  });

  it('a restarted party resumes the schedule and answers replays from the store', async () => {
    const store = openLightStore();
    const clock = new ManualClock();
    const first = party(store, clock);
    await first.r.noteReceived(msg('in-1', REQUEST));
    await first.r.noteSending(msg('m-1', ISSUE), 'did:example:w', 'authcrypt');
    first.r.close();
    const again = party(store, clock);
    await again.r.start();
    expect(await again.r.runDue()).toBe(1);
    expect(again.sends.map((s) => s.message.id)).toEqual(['m-1']);
    expect((await again.r.answerFor(msg('in-1', REQUEST)))?.message.id).toBe('m-1');
    again.r.close();
  });

  it("stores the recipient once when it is the message's only one, and a restarted party sends to it", async () => {
    const store = openLightStore();
    const clock = new ManualClock();
    const first = party(store, clock);
    const long = `did:ion:EiA:${'x'.repeat(1000)}`;
    await first.r.noteReceived(msg('in-1', REQUEST));
    await first.r.noteSending({ ...msg('m-1', ISSUE), to: [long] }, long, 'authcrypt');
    await first.r.noteSending({ ...msg('m-2', ISSUE, { n: 2 }), thid: 't-2', to: [long, 'did:example:b'] }, long, 'authcrypt');
    first.r.close();
    const raw = await store.collection<Record<string, unknown>>('resend-out').list();
    expect(raw.map((e) => e.value.to)).toEqual([0, long]);
    expect(JSON.stringify(raw[0]!.value).split(long).length - 1).toBe(1);
    const again = party(store, clock);
    await again.r.start();
    expect(await again.r.runDue()).toBe(2);
    expect(again.sends.map((s) => [s.message.id, s.to])).toEqual([['m-1', long], ['m-2', long]]);
    expect((await again.r.answerFor(msg('in-1', REQUEST)))?.to).toBe(long);
    again.r.close();
  });

  it('reads and replaces records written with the message inline', async () => {
    const store = openLightStore();
    const clock = new ManualClock();
    const out: ResendOut = { message: msg('m-0', ISSUE), to: 'did:example:w', mode: 'authcrypt', after: 'in-0', sentAt: clock.now() };
    await store.collection<ResendState>('resend').put('t-1', { thid: 't-1', lastIn: 'in-0', out, retry: { attempts: 3, nextAt: clock.now() + 60_000, deadlineAt: clock.now() + 600_000 }, sent: ['m-0'] });
    const { r, sends } = party(store, clock);
    await r.start();
    expect((await r.answerFor(msg('in-0', REQUEST)))?.message.id).toBe('m-0');
    expect(await r.runDue()).toBe(1);
    expect(sends.map((s) => s.message.id)).toEqual(['m-0']);
    await r.noteReceived(msg('in-1', REQUEST));
    await r.noteSending(msg('m-1', ISSUE), 'did:example:w', 'authcrypt');
    const state = await store.collection<ResendState>('resend').get('t-1');
    expect(state?.out).toBeUndefined();
    expect(state?.last).toEqual({ id: 'm-1', after: 'in-1', to: 'did:example:w' });
    expect((await r.get('t-1'))?.out?.message.id).toBe('m-1');
    r.close();
  });

  it('deletes a record nothing waits on once it is keepMs old, and keeps those with a retry scheduled', async () => {
    const store = openLightStore();
    const clock = new ManualClock();
    const states = store.collection<ResendState>('resend');
    const outs = store.collection<ResendOut>('resend-out');
    const { r } = party(store, clock, { keepMs: 60_000, deadlineMs: 10 * 60_000 });
    // t-1: answered by the peer's last word (idle); t-2: our ack, kept to answer replays (idle); t-3: waits for an answer.
    await r.noteReceived(msg('in-1', REQUEST));
    await r.noteSending(msg('m-1', ISSUE), 'did:example:w', 'authcrypt');
    await r.noteReceived(msg('ack-1', ACK));
    await r.noteReceived({ ...msg('in-2', ISSUE), thid: 't-2' });
    await r.noteSending({ ...msg('m-2', ACK), thid: 't-2' }, 'did:example:w', 'authcrypt');
    await r.noteSending({ ...msg('m-3', ISSUE), thid: 't-3' }, 'did:example:w', 'authcrypt');
    clock.advance(59_000);
    await r.noteReceived({ ...msg('in-4', REQUEST), thid: 't-4' });
    await new Promise((done) => setTimeout(done, 10));
    expect((await states.list()).map((e) => e.key)).toEqual(['t-1', 't-2', 't-3', 't-4']);
    clock.advance(1_000);
    // Pruning runs after a write, in the background.
    await r.noteReceived({ ...msg('in-5', REQUEST), thid: 't-5' });
    await new Promise((done) => setTimeout(done, 10));
    expect((await states.list()).map((e) => e.key)).toEqual(['t-3', 't-4', 't-5']);
    expect((await outs.list()).map((e) => e.key)).toEqual([outKey('t-3', 'm-3')]);
    expect(await r.get('t-2')).toBeUndefined();
    r.close();
  });

  it('a restarted party deletes the message copies no state names (left by earlier versions), and keeps the named ones', async () => {
    const store = openLightStore();
    const clock = new ManualClock();
    const outs = store.collection<ResendOut>('resend-out');
    const first = party(store, clock);
    await first.r.noteReceived(msg('in-1', REQUEST));
    await first.r.noteSending(msg('m-1', ISSUE), 'did:example:w', 'authcrypt');
    first.r.close();
    // Left by crashes: the copy a state stopped naming (t-1's m-0), a copy stored before its state (t-2).
    const copy = (id: string, thid: string): ResendOut => ({ message: { ...msg(id, ISSUE), thid }, to: 'did:example:w', mode: 'authcrypt', sentAt: clock.now() });
    await outs.put(outKey('t-1', 'm-0'), copy('m-0', 't-1'));
    await outs.put(outKey('t-2', 'm-2'), copy('m-2', 't-2'));
    const again = party(store, clock);
    await again.r.start();
    expect((await outs.list()).map((e) => e.key)).toEqual([outKey('t-1', 'm-1')]);
    expect(await again.r.runDue()).toBe(1);
    expect(again.sends.map((s) => s.message.id)).toEqual(['m-1']);
    again.r.close();
  });

  it('pruning deletes a record and its message in one batch', async () => {
    const store = openLightStore();
    const clock = new ManualClock();
    const p = party(store, clock, { keepMs: 60_000 });
    await p.r.noteReceived(msg('in-1', ISSUE));
    await p.r.noteSending(msg('m-1', ACK), 'did:example:w', 'authcrypt');
    clock.advance(61_000);
    await p.r.noteReceived({ ...msg('in-2', REQUEST), thid: 't-2' });
    await new Promise((done) => setTimeout(done, 10));
    expect(p.batches.some((b) => b.length === 2 && b.every((op) => op.type === 'del'))).toBe(true);
    expect(await store.collection<ResendOut>('resend-out').list()).toEqual([]);
    expect(await store.collection<ResendState>('resend').get('t-1')).toBeUndefined();
    p.r.close();
  });

  it('a restarted party deletes the old records it finds idle', async () => {
    const store = openLightStore();
    const clock = new ManualClock();
    const first = party(store, clock, { keepMs: 60_000 });
    await first.r.noteReceived(msg('in-1', ISSUE));
    await first.r.noteSending(msg('m-1', ACK), 'did:example:w', 'authcrypt');
    first.r.close();
    clock.advance(61_000);
    const again = party(store, clock, { keepMs: 60_000 });
    await again.r.start();
    await new Promise((done) => setTimeout(done, 10));
    expect(await store.collection<ResendState>('resend').list()).toEqual([]);
    expect(await store.collection<ResendOut>('resend-out').list()).toEqual([]);
    again.r.close();
  });
});

describe('step records: a read that overlaps a write of the same thread', () => {
  /** Held until `open()`; `entered` resolves once something waits on it. */
  function hold() {
    let open!: () => void;
    let enter!: () => void;
    const opened = new Promise<void>((r) => (open = r));
    const entered = new Promise<void>((r) => (enter = r));
    return { open, entered, wait: () => (enter(), opened) };
  }

  it('a retry that read the thread while its next step was stored leaves the stored step in place (its job is not dropped)', async () => {
    const store = openLightStore();
    const clock = new ManualClock();
    // A state read returns what the store held when it was asked but resolves later (a loaded
    // process): here, once the write of the thread's next step has completed.
    let heldGet: ReturnType<typeof hold> | undefined;
    let heldBatch: ReturnType<typeof hold> | undefined;
    const slow: Store = {
      location: null,
      close: () => store.close(),
      collection<T>(n: string) {
        const c = store.collection<T>(n);
        if (n !== 'resend') return c;
        return {
          name: c.name,
          put: c.put.bind(c), del: c.del.bind(c), list: c.list.bind(c), count: c.count.bind(c),
          async get(k: string) {
            const v = await c.get(k);
            const h = heldGet;
            heldGet = undefined;
            if (h) await h.wait();
            return v;
          },
        };
      },
      async batch(ops) {
        const h = heldBatch;
        heldBatch = undefined;
        if (h) await h.wait();
        return store.batch(ops);
      },
    };
    const p = party(slow, clock, { maxDelayMs: 100, baseDelayMs: 20 });
    const { r } = p;
    await r.noteSending(msg('m-1', REQUEST), 'did:example:w', 'authcrypt');
    // The next step of the thread is being stored when the first message's in-flight guard comes due.
    const batch = (heldBatch = hold());
    const next = r.noteSending(msg('m-2', ISSUE), 'did:example:w', 'authcrypt', 'in-1');
    await batch.entered;
    clock.advance(100);
    const get = (heldGet = hold());
    const retry = r.runDue();
    // The retry read the state as it was before the write; its read resolves after the write.
    await get.entered;
    batch.open();
    await next;
    get.open();
    await retry;
    // The thread's state is the stored one (m-2, waiting for its answer), and m-2 is sent again.
    expect((await r.get('t-1'))?.out?.message.id).toBe('m-2');
    expect(r.scheduler.get('step', 't-1')).toBeDefined();
    clock.advance(100);
    await r.runDue();
    expect(p.sends.map((s) => s.message.id)).toContain('m-2');
    r.close();
  });
});
