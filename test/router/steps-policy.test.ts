// When a durable step is sent again (router/steps, router/retry; docs/protocols.md "Durable
// steps"): never while its send is still open, soon after a send that failed (not before the
// peer's Retry-After), at most a second apart while nothing listens at the peer's address, only as
// a liveness check long after the peer accepted it (2xx); at once after a restart, the back-off
// starting again after that first retry; and at once when the peer shows it is back.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { IdsyncError } from '../../src/errors.js';
import { createStepEngine, type StepOptions } from '../../src/router/steps/engine.js';
import { resendTally } from '../../src/router/steps/names.js';
import type { StepOut } from '../../src/router/steps/state.js';
import { openLightStore } from '../../src/store/light-store.js';
import type { Store } from '../../src/store/store.js';
import type { PlainMessage } from '../../src/didcomm/types.js';

const PRESENTATION = 'https://didcomm.org/present-proof/3.0/presentation';
const msg = (id: string, thid = 't-1'): PlainMessage => ({ id, type: PRESENTATION, thid, from: 'did:example:w', to: ['did:example:s'], body: {} });
const timeout = new IdsyncError('transport_timeout', 'no answer');
const refused = new IdsyncError('transport_unreachable', 'refused', { details: { reason: 'ECONNREFUSED' } });

/** Steps with base 2 s, max 60 s, accepted 30 s; jitter off (random 0.999… → the full delay). */
function setup(extra: Partial<StepOptions> = {}, store: Store = openLightStore(), clock = new ManualClock()) {
  const sends: StepOut[] = [];
  let fail: Error | undefined;
  const r = createStepEngine(
    { store, collections: { states: 'steps', outs: 'steps-out' }, kind: () => 'retry', random: () => 0.999999, ...extra },
    {
      clock,
      log: () => undefined,
      send: async (out) => {
        sends.push(out);
        if (fail) throw fail;
      },
    },
  );
  return { r, clock, store, sends, failWith: (e?: Error) => void (fail = e) };
}

describe('step retries: by what became of the send', () => {
  it('sends nothing again while the first send is open, however long it takes', async () => {
    const { r, clock, sends } = setup();
    await r.noteSending(msg('m-1'), 'did:example:s', 'authcrypt');
    clock.advance(30_000);
    expect(await r.runDue()).toBe(0);
    expect(sends).toHaveLength(0);
    expect(r.scheduler.counts()).toMatchObject({ scheduled: 1, due: 0, retrying: 0, abandoned: 0 });
    r.close();
  });

  it('retries a failed send after the base delay, and a refused one (503) not before its Retry-After', async () => {
    const { r, clock, sends, failWith } = setup();
    await r.noteSending(msg('m-1'), 'did:example:s', 'authcrypt');
    r.noteFailed(msg('m-1'), timeout);
    clock.advance(1_900);
    expect(await r.runDue()).toBe(0);
    clock.advance(100);
    failWith(new IdsyncError('transport_retry_later', 'busy', { details: { retryAfterSeconds: 7 } }));
    expect(await r.runDue()).toBe(0); // sent, and refused again
    expect(sends).toHaveLength(1);
    clock.advance(6_900);
    expect(await r.runDue()).toBe(0);
    expect(sends).toHaveLength(1);
    clock.advance(100);
    failWith(undefined);
    expect(await r.runDue()).toBe(1);
    expect(sends.map((s) => s.message.id)).toEqual(['m-1', 'm-1']);
    r.close();
  });

  it('retries at most a second apart while nothing listens at the peer (connection refused)', async () => {
    const { r, clock, sends, failWith } = setup();
    await r.noteSending(msg('m-1'), 'did:example:s', 'authcrypt');
    r.noteFailed(msg('m-1'), refused);
    failWith(refused);
    for (let i = 0; i < 5; i++) {
      clock.advance(999);
      expect(await r.runDue()).toBe(0);
      expect(sends).toHaveLength(i);
      clock.advance(1);
      await r.runDue();
      expect(sends).toHaveLength(i + 1);
    }
    r.close();
  });

  it('sends an accepted message again only as a liveness check (30 s), then doubling', async () => {
    const { r, clock, sends } = setup();
    await r.noteSending(msg('m-1'), 'did:example:s', 'authcrypt');
    r.noteSent(msg('m-1'));
    clock.advance(29_000);
    expect(await r.runDue()).toBe(0);
    clock.advance(1_000);
    expect(await r.runDue()).toBe(1);
    // The resend was accepted too: the next one 60 s later (30 s doubled, capped at max).
    clock.advance(59_000);
    expect(await r.runDue()).toBe(0);
    clock.advance(1_000);
    expect(await r.runDue()).toBe(1);
    expect(sends).toHaveLength(2);
    expect(resendTally.get('presentation')).toBeGreaterThanOrEqual(2);
    r.close();
  });

  it("a 'deliver' step: retried while its send fails, counted when a resend went, then done; a dropped one is not taken", async () => {
    const { r, clock, sends } = setup({ kind: () => 'deliver' });
    await r.noteSending(msg('m-1'), 'did:example:s', 'authcrypt');
    r.noteFailed(msg('m-1'), timeout);
    clock.advance(2_000);
    expect(await r.runDue()).toBe(1);
    // Taken: nothing is sent again, however long the answer takes.
    clock.advance(600_000);
    expect(await r.runDue()).toBe(0);
    expect(sends).toHaveLength(1);
    r.close();

    const dropped = new Set(['m-2']);
    const d = setup({ kind: () => 'deliver', dropped: (m) => dropped.has(m.id) });
    await d.r.noteSending(msg('m-2', 't-2'), 'did:example:s', 'authcrypt');
    d.r.noteSent(msg('m-2', 't-2'));
    // Dropped by its owner: sent again as a retried step would be (a liveness check, 30 s).
    d.clock.advance(30_000);
    expect(await d.r.runDue()).toBe(1); // sent, and dropped again: the next check doubles
    dropped.clear();
    d.clock.advance(59_000);
    expect(await d.r.runDue()).toBe(0);
    d.clock.advance(1_000);
    expect(await d.r.runDue()).toBe(1); // sent and taken
    d.clock.advance(600_000);
    expect(await d.r.runDue()).toBe(0);
    expect(d.sends).toHaveLength(2);
    d.r.close();
  });

  it('retries soon what the owner kept after the endpoint failed (notAccepted), and stops once answered', async () => {
    const kept = new Set(['m-1']);
    const { r, clock, sends } = setup({ notAccepted: (m) => (kept.has(m.id) ? { kind: 'failed' } : undefined) });
    await r.noteSending(msg('m-1'), 'did:example:s', 'authcrypt');
    r.noteSent(msg('m-1'));
    clock.advance(2_000);
    expect(await r.runDue()).toBe(0); // sent, and kept again
    expect(sends).toHaveLength(1);
    // The answer arrives: no more retries.
    await r.noteReceived({ id: 'a-1', type: PRESENTATION.replace('presentation', 'ack'), thid: 't-1', body: {} });
    clock.advance(600_000);
    expect(await r.runDue()).toBe(0);
    expect(r.scheduler.counts()).toMatchObject({ scheduled: 0, due: 0 });
    r.close();
  });

  it('after a restart every open step is due at once, and the back-off starts again after that retry', async () => {
    const store = openLightStore();
    const clock = new ManualClock();
    const first = setup({}, store, clock);
    await first.r.noteSending(msg('m-1', 't-1'), 'did:example:s', 'authcrypt');
    await first.r.noteSending(msg('m-2', 't-2'), 'did:example:s', 'authcrypt');
    first.r.noteFailed(msg('m-1', 't-1'), timeout);
    // Many failed retries before the restart: their back-off is long by now.
    for (let i = 0; i < 5; i++) {
      clock.advance(60_000);
      first.failWith(timeout);
      await first.r.runDue();
    }
    first.r.close();
    const again = setup({}, store, clock);
    await again.r.start();
    expect(again.r.scheduler.counts()).toMatchObject({ due: 2, scheduled: 0 });
    again.failWith(timeout);
    expect(await again.r.runDue()).toBe(0);
    expect(again.sends.map((s) => s.message.id).sort()).toEqual(['m-1', 'm-2']);
    // The first retry after the restart failed: the next comes after the base delay, not the old back-off.
    clock.advance(2_000);
    again.failWith(undefined);
    expect(await again.r.runDue()).toBe(2);
    again.r.close();
  });

  it('a message from the peer makes its failed steps due at once', async () => {
    const { r, clock, sends } = setup();
    await r.noteSending(msg('m-1', 't-1'), 'did:example:s', 'authcrypt');
    await r.noteSending(msg('m-2', 't-2'), 'did:example:other', 'authcrypt');
    r.noteFailed(msg('m-1', 't-1'), timeout);
    r.noteFailed(msg('m-2', 't-2'), timeout);
    clock.advance(100);
    expect(await r.runDue()).toBe(0);
    r.scheduler.peerIsBack('did:example:s');
    expect(await r.runDue()).toBe(1);
    expect(sends.map((s) => s.message.id)).toEqual(['m-1']);
    r.close();
  });

  it('gives a thread up at its deadline and counts it abandoned', async () => {
    const given: string[] = [];
    const { r, clock, failWith } = setup({ deadlineMs: 10_000, onGiveUp: async (rec) => void given.push(rec.thid) });
    await r.noteSending(msg('m-1'), 'did:example:s', 'authcrypt');
    r.noteFailed(msg('m-1'), timeout);
    failWith(timeout);
    for (let i = 0; i < 4; i++) {
      clock.advance(5_000);
      await r.runDue();
    }
    expect(given).toEqual(['t-1']);
    expect(r.scheduler.counts()).toMatchObject({ scheduled: 0, due: 0, retrying: 0, abandoned: 1 });
    expect((await r.get('t-1'))?.givenUp).toBe(true);
    r.close();
  });
});

describe('nested handling', () => {
  it('a message whose handling nested a later exchange on its thread does not end the retries of what answered that exchange', async () => {
    const { r, clock, sends } = setup();
    // The peer's propose is handled; inside it we offer, the peer's request arrives and is handled, and we issue.
    const propose = { ...msg('p-1'), from: 'did:example:s' };
    const outer = r.mark();
    await r.noteSending(msg('o-1'), 'did:example:s', 'authcrypt', 'p-1');
    const request = { ...msg('q-1'), from: 'did:example:s' };
    const inner = r.mark();
    await r.noteSending(msg('i-1'), 'did:example:s', 'authcrypt', 'q-1');
    r.noteFailed(msg('i-1'), timeout);
    await r.noteReceived(request, inner);
    await r.noteReceived(propose, outer);
    expect((await r.get('t-1'))?.out?.message.id).toBe('i-1');
    expect((await r.get('t-1'))?.retry).toBeDefined();
    clock.advance(2_000);
    expect(await r.runDue()).toBe(1);
    expect(sends.map((s) => s.message.id)).toEqual(['i-1']);
    r.close();
  });
});

describe('step records', () => {
  it("reads a thread's record from the store once, then keeps what it wrote", async () => {
    const inner = openLightStore();
    let reads = 0;
    const store: Store = {
      ...inner,
      batch: (ops) => inner.batch(ops),
      close: () => inner.close(),
      location: null,
      collection: <T>(name: string) => {
        const c = inner.collection<T>(name);
        return { ...c, name: c.name, get: (k: string) => (reads++, c.get(k)), put: c.put.bind(c), del: c.del.bind(c), list: c.list.bind(c), count: c.count.bind(c) };
      },
    };
    const { r } = setup({}, store);
    await r.noteSending(msg('m-1'), 'did:example:s', 'authcrypt');
    await r.noteReceived({ ...msg('in-1'), from: 'did:example:s' });
    await r.noteSending(msg('m-2'), 'did:example:s', 'authcrypt', 'in-1');
    await r.cancel('t-1');
    expect(reads).toBe(1);
    expect(await inner.collection('steps').get('t-1')).toMatchObject({ thid: 't-1', lastIn: 'in-1', last: { id: 'm-2', after: 'in-1' }, sent: ['m-1', 'm-2'] });
    expect(((await inner.collection('steps').get('t-1')) as { retry?: unknown }).retry).toBeUndefined();
    r.close();
  });
});
