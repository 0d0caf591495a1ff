// When a durable step is sent again (router/resend.ts, docs/protocols.md "Durable steps"): never
// while its send is still open, soon after a send that failed (not before the peer's
// Retry-After), and only as a liveness check long after the peer accepted it (2xx). Under load an
// answer takes longer than the first back-off; resending then only added to the load.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { IdsyncError } from '../../src/errors.js';
import { createResender, resendTally, type ResendOptions, type ResendOut, type ResendRecord } from '../../src/router/resend.js';
import { openLightStore } from '../../src/store/light-store.js';
import type { PlainMessage } from '../../src/didcomm/types.js';

const PRESENTATION = 'https://didcomm.org/present-proof/3.0/presentation';
const msg = (id: string): PlainMessage => ({ id, type: PRESENTATION, thid: 't-1', from: 'did:example:w', to: ['did:example:s'], body: {} });

/** A resender with base 2 s, max 60 s, accepted 30 s; jitter off (random 0.999… → the full delay). */
function setup(extra: Partial<ResendOptions> = {}) {
  const clock = new ManualClock();
  const sends: ResendOut[] = [];
  let fail: Error | undefined;
  const r = createResender(
    { store: openLightStore().collection<ResendRecord>('resend'), kind: () => 'retry', random: () => 0.999999, ...extra },
    {
      clock,
      log: () => undefined,
      send: async (out) => {
        sends.push(out);
        if (fail) throw fail;
      },
    },
  );
  return { r, clock, sends, failWith: (e?: Error) => void (fail = e) };
}

describe('resend policy: by what became of the send', () => {
  it('sends nothing again while the first send is open, however long it takes', async () => {
    const { r, clock, sends } = setup();
    await r.noteSending(msg('m-1'), 'did:example:s', 'authcrypt');
    clock.advance(30_000);
    expect(await r.runDue()).toBe(0);
    expect(sends).toHaveLength(0);
    r.close();
  });

  it('retries a failed send after the base delay, and a refused one (503) not before its Retry-After', async () => {
    const { r, clock, sends, failWith } = setup();
    await r.noteSending(msg('m-1'), 'did:example:s', 'authcrypt');
    r.noteFailed(msg('m-1'));
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

  it('retries soon what the owner kept after the endpoint failed (notAccepted), and stops once answered', async () => {
    const kept = new Set(['m-1']);
    const { r, clock, sends } = setup({ notAccepted: (m) => (kept.has(m.id) ? {} : undefined) });
    await r.noteSending(msg('m-1'), 'did:example:s', 'authcrypt');
    r.noteSent(msg('m-1'));
    clock.advance(2_000);
    expect(await r.runDue()).toBe(1);
    expect(sends).toHaveLength(1);
    // The answer arrives: no more retries.
    await r.noteReceived({ id: 'a-1', type: PRESENTATION.replace('presentation', 'ack'), thid: 't-1', body: {} });
    clock.advance(600_000);
    expect(await r.runDue()).toBe(0);
    r.close();
  });
});

describe('resend records', () => {
  it('reads a thread\'s record from the store once, then keeps what it wrote (each step carries the whole last message)', async () => {
    const col = openLightStore().collection<ResendRecord>('resend');
    let reads = 0;
    const store = { get: (k: string) => (reads++, col.get(k)), put: col.put.bind(col), list: col.list.bind(col) };
    const { r } = setup({ store });
    await r.noteSending(msg('m-1'), 'did:example:s', 'authcrypt');
    await r.noteReceived({ ...msg('in-1'), from: 'did:example:s' });
    await r.noteSending(msg('m-2'), 'did:example:s', 'authcrypt', 'in-1');
    await r.cancel('t-1');
    expect(reads).toBe(1);
    // What is stored is what it keeps.
    expect(await col.get('t-1')).toMatchObject({ thid: 't-1', lastIn: 'in-1', out: { message: { id: 'm-2' }, after: 'in-1' }, sent: ['m-1', 'm-2'] });
    expect((await col.get('t-1'))!.retry).toBeUndefined();
    r.close();
  });
});
