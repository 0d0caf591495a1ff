// seen.ts: a message id is marked seen only once its outcome is final. A handler failure
// that may pass leaves it free for the sender's retry; a deliberate refusal stays seen; two
// copies at once run the handler once; seen records expire after the retention window.
import { describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { createRouter, type MessageHandler, type Outbound, type RouterOptions, type SeenRecord } from '../../src/router/router.js';
import { isTransientProblem, seenKey } from '../../src/router/seen.js';
import type { PlainMessage } from '../../src/didcomm/types.js';
import { b64uDecodeText } from '../../src/encoding.js';
import { IdsyncError } from '../../src/errors.js';
import { basicProtocols } from '../../src/protocols/basic.js';
import { openStore, type Store } from '../../src/store/store.js';
import { stubContext, stubJwe, stubPack, stubUnpack } from '../protocols/stub-envelope.js';

const ALICE = 'did:example:alice';
const BOB = 'did:example:bob';
const HIT = 'https://example.org/count/1.0/hit';
const DAY = 24 * 3600 * 1000;

/** Bob's router with one `hit` handler; what it sends is kept (plaintext of each stub envelope). */
function bob(handler: MessageHandler, extra: Partial<RouterOptions> = {}, problems = true) {
  const sent: PlainMessage[] = [];
  const send: Outbound = async (packed) => {
    const value = JSON.parse(packed) as { ciphertext?: string };
    sent.push(JSON.parse(value.ciphertext ? b64uDecodeText(value.ciphertext) : packed) as PlainMessage);
  };
  const logs: { level: string; msg: string }[] = [];
  const clock = (extra.clock as ManualClock | undefined) ?? new ManualClock();
  const router = createRouter({
    envelope: stubContext, pack: stubPack, unpack: stubUnpack, clock, ids: sequentialIds('b'), myDids: [BOB], send,
    logger: (level, msg) => void logs.push({ level, msg }), ...extra,
  });
  if (problems) router.use(...basicProtocols());
  router.use({ piuri: 'https://example.org/count/1.0', handlers: { hit: handler } });
  return { router, sent, logs, clock };
}

function fromAlice(message: Partial<PlainMessage> = {}): string {
  return stubJwe({ id: 'm-1', type: HIT, from: ALICE, to: [BOB], body: {}, ...message }, `${BOB}#key-2`, `${ALICE}#key-2`);
}

/** A handler that fails the first `times` calls with `error`, then succeeds; counts its calls. */
function failing(error: unknown, times = 1) {
  const calls = { n: 0 };
  const handler: MessageHandler = () => {
    calls.n += 1;
    if (calls.n <= times) throw error;
  };
  return { calls, handler };
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('router retries after a handler failure', () => {
  it('handles the retry of a message whose handler failed with a store error', async () => {
    const { calls, handler } = failing(new IdsyncError('store_error', 'put to x: disk full'));
    const { router } = bob(handler);
    const packed = fromAlice();
    const first = await router.receive(packed);
    expect(first).toMatchObject({ status: 'failed', code: 'store_error', problemCode: 'e.p.me.res.storage', retryable: true });
    expect((await router.receive(packed)).status).toBe('handled');
    expect(calls.n).toBe(2);
    // Once handled, the id is used up.
    expect((await router.receive(packed)).status).toBe('duplicate');
    expect(calls.n).toBe(2);
  });

  it('handles the retry after a handler bug (a plain Error), a timeout and an unresolved DID', async () => {
    for (const error of [new TypeError('x is undefined'), new IdsyncError('timeout', 'no answer'), new IdsyncError('did_not_resolved', 'resolver timed out')]) {
      const { calls, handler } = failing(error);
      const { router } = bob(handler);
      const packed = fromAlice();
      expect((await router.receive(packed))).toMatchObject({ status: 'failed', retryable: true });
      expect((await router.receive(packed)).status).toBe('handled');
      expect(calls.n).toBe(2);
    }
  });

  it('keeps a deliberate refusal seen: its retry is a duplicate and the handler is not run again', async () => {
    const { calls, handler } = failing(new IdsyncError('declined', 'not now'));
    const { router, sent } = bob(handler);
    const packed = fromAlice({ thid: 't-1' });
    const first = await router.receive(packed);
    expect(first).toMatchObject({ status: 'failed', code: 'declined', problemCode: 'e.p.req.declined' });
    expect(first.retryable).toBeUndefined();
    expect(await router.receive(packed)).toMatchObject({ status: 'duplicate', problemCode: 'e.p.msg.duplicate' });
    expect(calls.n).toBe(1);
    expect(sent.map((m) => m.body.code)).toEqual(['e.p.req.declined', 'e.p.msg.duplicate']);
  });

  it('keeps router refusals (expired, unsupported) seen', async () => {
    const { router } = bob(() => {});
    const expired = fromAlice({ id: 'e-1', expires_time: Date.UTC(2025, 0, 1) / 1000 });
    expect((await router.receive(expired)).status).toBe('expired');
    expect((await router.receive(expired)).status).toBe('duplicate');
    const unknown = fromAlice({ id: 'u-1', type: 'https://example.org/other/1.0/x' });
    expect((await router.receive(unknown)).status).toBe('unsupported');
    expect((await router.receive(unknown)).status).toBe('duplicate');
  });

  it('leaves the id free when no problem report could be sent for the refusal', async () => {
    const { calls, handler } = failing(new IdsyncError('declined', 'not now'));
    const { router } = bob(handler, {}, false);
    const packed = fromAlice();
    expect(await router.receive(packed)).toMatchObject({ status: 'failed', retryable: true });
    expect((await router.receive(packed)).status).toBe('handled');
    expect(calls.n).toBe(2);
  });

  it('refuses for good a message that can never succeed because nobody can be answered (anoncrypt, no from)', async () => {
    // The handler asks to reply (as a trust ping with response_requested does); there is no sender.
    const calls = { n: 0 };
    const { router, sent, logs } = bob(async (ctx) => {
      calls.n++;
      await ctx.reply({ type: HIT, body: {} });
    });
    const packed = stubJwe({ id: 'a-1', type: HIT, to: [BOB], body: {} }, `${BOB}#key-2`);
    const first = await router.receive(packed);
    expect(first).toMatchObject({ status: 'failed', code: 'no_reply_address', refusal: { code: 'no_reply_address', problemCode: 'e.p.req.no-reply-address' } });
    expect(first.retryable).toBeUndefined();
    expect(first.problemCode).toBeUndefined();
    // Every copy gets the same refusal; the handler does not run again.
    expect(await router.receive(packed)).toMatchObject({ status: 'duplicate', refusal: { code: 'no_reply_address' } });
    expect(calls.n).toBe(1);
    expect(sent).toEqual([]);
    // A refusal of the message, not a fault of ours: logged as a warning.
    expect(logs).toContainEqual({ level: 'warn', msg: 'message failed' });
    expect(logs.some((l) => l.level === 'error')).toBe(false);
  });

  it('refuses for good a deliberate refusal whose report could not be delivered, and says so in the result', async () => {
    const { calls, handler } = failing(new IdsyncError('forbidden', 'not yours'));
    const { router } = bob(handler, { send: async () => Promise.reject(new IdsyncError('transport_unreachable', 'down')) });
    const packed = fromAlice();
    expect(await router.receive(packed)).toMatchObject({ status: 'failed', refusal: { code: 'forbidden', problemCode: 'e.p.trust.forbidden' } });
    expect(await router.receive(packed)).toMatchObject({ status: 'duplicate', refusal: { code: 'forbidden' } });
    expect(calls.n).toBe(1);
  });

  it('carries no refusal when the problem report reached the sender, nor for a plain duplicate of a handled message', async () => {
    const { router } = bob(() => {
      throw new IdsyncError('declined', 'not now');
    });
    const declined = await router.receive(fromAlice({ id: 'd-1' }));
    expect(declined).toMatchObject({ status: 'failed', problemCode: 'e.p.req.declined' });
    expect(declined.refusal).toBeUndefined();
    const ok = bob(() => {});
    const packed = fromAlice({ id: 'h-1' });
    expect((await ok.router.receive(packed)).status).toBe('handled');
    const dup = await ok.router.receive(packed);
    expect(dup.status).toBe('duplicate');
    expect(dup.refusal).toBeUndefined();
  });

  it('refuses router refusals (unsupported, expired) nobody can be told of with a refusal', async () => {
    const { router } = bob(() => {});
    const anon = (m: Partial<PlainMessage>) => stubJwe({ to: [BOB], body: {}, ...m }, `${BOB}#key-2`);
    expect(await router.receive(anon({ id: 'u-1', type: 'https://example.org/other/1.0/x' }))).toMatchObject({
      status: 'unsupported', refusal: { code: 'unsupported_message_type', problemCode: 'e.p.msg.unsupported' },
    });
    expect(await router.receive(anon({ id: 'e-1', type: HIT, expires_time: Date.UTC(2025, 0, 1) / 1000 }))).toMatchObject({
      status: 'expired', refusal: { code: 'message_expired', problemCode: 'e.m.req.time.expired' },
    });
  });

  it('handles the retry after a restart when the first attempt failed (seen kept in a store)', async () => {
    const store = await openStore();
    const seen = store.collection<SeenRecord>('seen');
    const packed = fromAlice();
    const before = bob(failing(new IdsyncError('store_error', 'disk full')).handler, { seen });
    expect((await before.router.receive(packed)).status).toBe('failed');
    const after = bob(() => {}, { seen });
    expect((await after.router.receive(packed)).status).toBe('handled');
    expect((await bob(() => {}, { seen }).router.receive(packed)).status).toBe('duplicate');
    await store.close();
  });

  it('reports the message handled when marking it seen fails, and says so in the log', async () => {
    const seen = { get: async () => undefined, put: async () => Promise.reject(new IdsyncError('store_error', 'disk full')) };
    const { router, logs } = bob(() => {}, { seen });
    expect((await router.receive(fromAlice())).status).toBe('handled');
    expect(logs).toContainEqual({ level: 'error', msg: 'could not mark a message id as seen' });
  });

  it('classifies problem codes that may pass by their descriptors', () => {
    expect(['e.p.me', 'e.p.me.res.storage', 'e.p.xfer', 'e.p.req.time', 'e.p.did.not-resolved'].map(isTransientProblem)).toEqual([true, true, true, true, true]);
    expect(['e.m.req.time.expired', 'e.p.req.declined', 'e.p.msg.unknown-thread', 'e.p.trust.forbidden'].map(isTransientProblem)).toEqual([false, false, false, false]);
  });
});

describe('router with two copies of a message at once', () => {
  for (const kind of ['in memory', 'in a store'] as const) {
    it(`runs the handler once (seen ${kind})`, async () => {
      const store: Store | undefined = kind === 'in a store' ? await openStore() : undefined;
      const gate = deferred();
      let calls = 0;
      const { router } = bob(async () => {
        calls += 1;
        await gate.promise;
      }, store ? { seen: store.collection<SeenRecord>('seen') } : {});
      const packed = fromAlice();
      const copies = [router.receive(packed), router.receive(packed)];
      // While one copy is held in its handler, the other is refused.
      expect((await Promise.race(copies)).status).toBe('duplicate');
      expect(calls).toBe(1);
      gate.resolve();
      expect((await Promise.all(copies)).map((r) => r.status).sort()).toEqual(['duplicate', 'handled']);
      expect(calls).toBe(1);
      await store?.close();
    });
  }

  it('frees the id for a later retry when the copy being handled fails', async () => {
    const gate = deferred();
    let calls = 0;
    const { router } = bob(async () => {
      calls += 1;
      if (calls === 1) {
        await gate.promise;
        throw new IdsyncError('store_error', 'disk full');
      }
    });
    const packed = fromAlice();
    const copies = [router.receive(packed), router.receive(packed)];
    expect((await Promise.race(copies)).status).toBe('duplicate');
    gate.resolve();
    expect((await Promise.all(copies)).map((r) => r.status).sort()).toEqual(['duplicate', 'failed']);
    expect((await router.receive(packed)).status).toBe('handled');
    expect(calls).toBe(2);
  });
});

describe('router seen retention', () => {
  it('no longer counts an id seen longer ago than seenRetentionMs', async () => {
    let calls = 0;
    const { router, clock } = bob(() => void (calls += 1), { seenRetentionMs: DAY });
    const packed = fromAlice();
    await router.receive(packed);
    clock.advance(DAY - 1);
    expect((await router.receive(packed)).status).toBe('duplicate');
    clock.advance(1);
    expect((await router.receive(packed)).status).toBe('handled');
    expect(calls).toBe(2);
  });

  it('defaults to seven days', async () => {
    const { router, clock } = bob(() => {});
    const packed = fromAlice();
    await router.receive(packed);
    clock.advance(7 * DAY - 1);
    expect((await router.receive(packed)).status).toBe('duplicate');
    clock.advance(1);
    expect((await router.receive(packed)).status).toBe('handled');
  });

  it('deletes old seen records from a store collection after every seenPruneEvery writes, keeping the recent ones', async () => {
    const store = await openStore();
    const seen = store.collection<SeenRecord>('seen');
    const { router, clock } = bob(() => {}, { seen, seenRetentionMs: DAY, seenPruneEvery: 3 });
    await router.receive(fromAlice({ id: 'old-1' }));
    await router.receive(fromAlice({ id: 'old-2' }));
    clock.advance(DAY);
    expect(await seen.count()).toBe(2);
    // The third write triggers the prune: the two from a day ago go.
    await router.receive(fromAlice({ id: 'new-1' }));
    expect((await seen.list()).map((e) => e.key)).toEqual([seenKey('new-1', ALICE)]);
    expect((await seen.get(seenKey('new-1', ALICE)))?.at).toBe(clock.now());
    await store.close();
  });

  it('prunes on demand, in memory too', async () => {
    const store = await openStore();
    const seen = store.collection<SeenRecord>('seen');
    for (const options of [{ seen }, {}]) {
      const { router, clock } = bob(() => {}, { ...options, seenRetentionMs: DAY });
      for (let i = 0; i < 3; i++) await router.receive(fromAlice({ id: `p-${i}` }));
      clock.advance(DAY);
      await router.receive(fromAlice({ id: 'fresh' }));
      expect(await router.pruneSeen()).toBe(3);
      expect(await router.pruneSeen()).toBe(0);
      expect((await router.receive(fromAlice({ id: 'fresh' }))).status).toBe('duplicate');
    }
    await store.close();
  });

  it('keys a long id (or unauthenticated from) by its hash, so a key stays short', () => {
    const key = seenKey('x'.repeat(100_000), ALICE);
    expect(key).toMatch(/^sha256:[A-Za-z0-9_-]{43}$/);
    expect(seenKey('X'.repeat(100_000), ALICE)).toBe(key);
    expect(seenKey('M-1', ALICE)).toBe(`m-1|${ALICE}`);
  });
});
