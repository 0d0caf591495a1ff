// What the durable-steps engine stores (router/resend.ts "What is stored"): with `outs`, a
// thread's last message is written once, apart from the small state every step rewrites; it is
// deleted when the peer's last word on the thread arrives; and a restarted party (a new resender
// over the same collections) resumes its schedules and answers replays from what is stored, also
// from records written with the message inline.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createResender, outKey, type ResendOptions, type ResendOut, type ResendState } from '../../src/router/resend.js';
import { openLightStore } from '../../src/store/light-store.js';
import type { Collection, Store } from '../../src/store/store.js';
import type { PlainMessage } from '../../src/didcomm/types.js';

const ISSUE = 'https://didcomm.org/issue-credential/3.0/issue-credential';
const REQUEST = 'https://didcomm.org/issue-credential/3.0/request-credential';
const ACK = 'https://didcomm.org/issue-credential/3.0/ack';
const KINDS: Record<string, 'retry' | 'answer'> = { [ISSUE]: 'retry', [REQUEST]: 'retry', [ACK]: 'answer' };
const msg = (id: string, type: string, body: Record<string, unknown> = {}): PlainMessage => ({ id, type, thid: 't-1', body });

/** Collections over `store` that count the writes of each key. */
function counted<T>(col: Collection<T>, puts: string[], dels: string[]) {
  return {
    get: (k: string) => col.get(k),
    put: (k: string, v: T) => (puts.push(k), col.put(k, v)),
    del: (k: string) => (dels.push(k), col.del(k)),
    list: (o?: Parameters<Collection<T>['list']>[0]) => col.list(o),
  };
}

function party(store: Store, clock: ManualClock, extra: Partial<ResendOptions> = {}) {
  const puts = { states: [] as string[], outs: [] as string[] };
  const dels: string[] = [];
  const sends: ResendOut[] = [];
  const r = createResender(
    {
      store: counted(store.collection<ResendState>('resend'), puts.states, []),
      outs: counted(store.collection<ResendOut>('resend-out'), puts.outs, dels),
      kind: (m) => KINDS[String(m.type)],
      random: () => 0.999999,
      ...extra,
    },
    { clock, log: () => undefined, send: async (out) => void sends.push(out) },
  );
  return { r, puts, dels, sends };
}

describe('resend records: the last message stored apart from the state', () => {
  it('writes the last message once while the state moves, and deletes the one it replaces', async () => {
    const store = openLightStore();
    const clock = new ManualClock();
    const { r, puts, dels } = party(store, clock);
    await r.noteReceived(msg('in-1', REQUEST));
    await r.noteSending(msg('m-1', ISSUE, { credential: 'x'.repeat(1000) }), 'did:example:w', 'authcrypt');
    await r.noteSending(msg('m-1', ISSUE), 'did:example:w', 'authcrypt'); // the same message again: nothing stored
    await r.cancel('t-1');
    expect(puts.outs).toEqual([outKey('t-1', 'm-1')]);
    expect(puts.states).toHaveLength(3);
    const state = await store.collection<ResendState>('resend').get('t-1');
    expect(state).toEqual({ thid: 't-1', lastIn: 'in-1', last: { id: 'm-1', after: 'in-1' }, sent: ['m-1'], at: clock.now() });
    expect(JSON.stringify(state)).not.toContain('xxx');
    expect((await r.get('t-1'))?.out).toMatchObject({ message: { id: 'm-1' }, after: 'in-1', to: 'did:example:w' });
    // The peer asks again: a new last message on the thread; the one before is deleted.
    await r.noteReceived(msg('in-2', REQUEST));
    await r.noteSending(msg('m-2', ISSUE), 'did:example:w', 'authcrypt');
    expect(dels).toEqual([outKey('t-1', 'm-1')]);
    expect(await store.collection<ResendOut>('resend-out').get(outKey('t-1', 'm-1'))).toBeUndefined();
    r.close();
  });

  it("answers a replay from the stored message, and deletes it once the peer's last word (kind 'answer') arrives", async () => {
    const store = openLightStore();
    const clock = new ManualClock();
    const { r, dels } = party(store, clock);
    await r.noteReceived(msg('in-1', REQUEST));
    await r.noteSending(msg('m-1', ISSUE), 'did:example:w', 'authcrypt');
    expect((await r.answerFor(msg('in-1', REQUEST)))?.message.id).toBe('m-1');
    expect(await r.answerFor(msg('other', REQUEST))).toBeUndefined();
    await r.noteReceived(msg('ack-1', ACK));
    expect(dels).toEqual([outKey('t-1', 'm-1')]);
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

  it('reads and replaces records written with the message inline', async () => {
    const store = openLightStore();
    const clock = new ManualClock();
    const out: ResendOut = { message: msg('m-0', ISSUE), to: 'did:example:w', mode: 'authcrypt', after: 'in-0', sentAt: clock.now() };
    await store.collection<ResendState>('resend').put('t-1', { thid: 't-1', lastIn: 'in-0', out, retry: { attempts: 0, nextAt: clock.now(), deadlineAt: clock.now() + 600_000 }, sent: ['m-0'] });
    const { r, sends } = party(store, clock);
    await r.start();
    expect((await r.answerFor(msg('in-0', REQUEST)))?.message.id).toBe('m-0');
    expect(await r.runDue()).toBe(1);
    expect(sends.map((s) => s.message.id)).toEqual(['m-0']);
    await r.noteReceived(msg('in-1', REQUEST));
    await r.noteSending(msg('m-1', ISSUE), 'did:example:w', 'authcrypt');
    const state = await store.collection<ResendState>('resend').get('t-1');
    expect(state?.out).toBeUndefined();
    expect(state?.last).toEqual({ id: 'm-1', after: 'in-1' });
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

  it('a restarted party deletes the message copies no state names (a crash between writes), and keeps the named ones', async () => {
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
    expect(again.dels.sort()).toEqual([outKey('t-1', 'm-0'), outKey('t-2', 'm-2')]);
    expect(await again.r.runDue()).toBe(1);
    expect(again.sends.map((s) => s.message.id)).toEqual(['m-1']);
    again.r.close();
  });

  it('pruning deletes the message before the state: a crash between the two leaves no copy that no state names', async () => {
    const store = openLightStore();
    const clock = new ManualClock();
    const states = store.collection<ResendState>('resend');
    const outs = store.collection<ResendOut>('resend-out');
    // The state's delete never happens (the process stops there).
    const crashing = { get: states.get.bind(states), put: states.put.bind(states), list: states.list.bind(states), del: async () => { throw new Error('crash'); } };
    const { r } = party(store, clock, { keepMs: 60_000, store: crashing });
    await r.noteReceived(msg('in-1', ISSUE));
    await r.noteSending(msg('m-1', ACK), 'did:example:w', 'authcrypt');
    clock.advance(61_000);
    await r.noteReceived({ ...msg('in-2', REQUEST), thid: 't-2' });
    await new Promise((done) => setTimeout(done, 10));
    expect(await outs.list()).toEqual([]);
    expect((await states.get('t-1'))?.last).toEqual({ id: 'm-1', after: 'in-1' });
    r.close();
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
