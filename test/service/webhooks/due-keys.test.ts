// The due index (DUE, `<time>|<deliveryId>`) and the retry schedule (docs/service.md "Delivery
// and retries", "Ordering"): a pending delivery is attempted no earlier than its next attempt's
// time, whatever listing of due keys the attempt was started from.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../../src/clock.js';
import { openStore, type Collection, type Store } from '../../../src/store/store.js';
import { createWebhookDispatcher, DELIVERIES, DUE, type WebhookDelivery } from '../../../src/service/webhooks/dispatcher.js';
import { dataSyncEvent } from '../../../src/service/webhooks/events.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** Lets queued callbacks and I/O run: everything the dispatcher can do without the clock moving. */
const settle = async (turns = 20) => {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
};

async function until(cond: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (await cond()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`never happened: ${what}`);
}

/**
 * A store whose listings of DUE can be held: while `hold()` is on, a listing reads the keys at
 * once and hands them over only at `release()`, so the keys it returns may be gone by then.
 */
function holdingStore(inner: Store) {
  let holding = false;
  let gate: Promise<void> | undefined;
  let open: (() => void) | undefined;
  let held = 0;
  const store: Store = {
    location: inner.location,
    batch: (ops) => inner.batch(ops),
    close: () => inner.close(),
    collection<T>(name: string): Collection<T> {
      const c = inner.collection<T>(name);
      if (name !== DUE) return c;
      return {
        name: c.name,
        get: (k) => c.get(k),
        put: (k, v) => c.put(k, v),
        del: (k) => c.del(k),
        count: (o) => c.count(o),
        async list(o) {
          const entries = await c.list(o);
          if (holding && gate) {
            held++;
            await gate;
          }
          return entries;
        },
      };
    },
  };
  return {
    store,
    hold() {
      holding = true;
      gate = new Promise((r) => (open = r));
    },
    /** New listings go through again; those held so far still wait for release(). */
    stopHolding() {
      holding = false;
    },
    release() {
      open?.();
    },
    held: () => held,
  };
}

/** A fetch the test answers by hand: every POST is recorded with the clock's time and waits for `answer`. */
function controlledFetch(clock: ManualClock) {
  const calls: { url: string; id: string; at: number; answer: (status: number) => void; answered: boolean }[] = [];
  let auto: number | undefined;
  const fetch = ((url: string, init: { headers: Record<string, string> }) =>
    new Promise<Response>((resolve) => {
      const call = {
        url: String(url),
        id: init.headers['webhook-id']!,
        at: clock.now(),
        answered: false,
        answer: (status: number) => {
          call.answered = true;
          resolve(new Response('ok', { status }));
        },
      };
      calls.push(call);
      if (auto !== undefined) call.answer(auto);
    })) as unknown as typeof globalThis.fetch;
  return {
    fetch,
    calls,
    /** Answers this status to every POST from now on (and to those waiting). */
    answerAll(status: number) {
      auto = status;
      for (const c of calls) if (!c.answered) c.answer(status);
    },
  };
}

async function setup(backoff: { baseMs: number; maxMs: number; maxAttempts: number }) {
  const inner = await openStore();
  cleanup.push(() => inner.close());
  const holding = holdingStore(inner);
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const http = controlledFetch(clock);
  // The poll loop's timer is left out of it (a minute): only the passes the test starts run.
  const dispatcher = createWebhookDispatcher({ store: holding.store, clock, ids: sequentialIds('evt'), fetch: http.fetch, backoff, random: () => 0.5, pollMs: 60_000 });
  cleanup.push(async () => {
    http.answerAll(200);
    await dispatcher.stop();
  });
  const dueKeys = async () => (await inner.collection<string>(DUE).list()).map((e) => e.key);
  const delivery = async (id: string) => (await inner.collection<WebhookDelivery>(DELIVERIES).get(id))!;
  return { inner, holding, clock, http, dispatcher, dueKeys, delivery };
}

describe('webhook dispatcher: due keys and the retry schedule', () => {
  it('does not retry a delivery at once from a listing made before its failed attempt rescheduled it', async () => {
    // random 0.5 with equal jitter: the retry after the first failure comes 750 ms later.
    const { holding, clock, http, dispatcher, dueKeys, delivery } = await setup({ baseMs: 1_000, maxMs: 8_000, maxAttempts: 4 });
    await dispatcher.subscribe({ id: 'slow', url: 'http://127.0.0.1:9/slow' });
    await dispatcher.subscribe({ id: 'quick', url: 'http://127.0.0.1:9/quick' });
    const t0 = clock.now();
    const eventId = await dispatcher.emit(dataSyncEvent('DATA_SYNC_STARTED', { cptyDID: 'did:x', dataSyncOperationId: 'op', userId: 'ada' }));
    const slow = `${eventId}:slow`;
    dispatcher.start();
    await until(() => http.calls.length === 2, 'both deliveries attempted');
    const [slowCall] = http.calls.filter((c) => c.url.endsWith('/slow'));
    const [quickCall] = http.calls.filter((c) => c.url.endsWith('/quick'));

    // The quick one is delivered while the slow one's POST is under way: the end of its attempt
    // starts what is due, and that listing still holds the slow delivery's key.
    holding.hold();
    quickCall!.answer(200);
    await until(() => holding.held() > 0, 'a listing of due keys made while the slow attempt runs');
    holding.stopHolding();

    // The slow one fails: its key is replaced by one 750 ms later.
    const retried = new Promise<WebhookDelivery>((resolve) => dispatcher.on('retry', resolve));
    slowCall!.answer(500);
    expect((await retried).nextAttemptAt).toBe(t0 + 750);
    await settle();
    expect(await dueKeys()).toEqual([expect.stringMatching(new RegExp(`\\|${slow}$`))]);

    // The listing made before that goes on with the slow delivery's old key.
    holding.release();
    await settle();
    expect(http.calls.filter((c) => c.id === eventId && c.url.endsWith('/slow')).map((c) => c.at - t0)).toEqual([0]);

    // The retry comes at its time, once.
    http.answerAll(200);
    clock.advance(749);
    expect(await dispatcher.deliverDue()).toBe(0);
    clock.advance(1);
    expect(await dispatcher.deliverDue()).toBe(1);
    await settle();
    expect(http.calls.filter((c) => c.url.endsWith('/slow')).map((c) => c.at - t0)).toEqual([0, 750]);
    const d = await delivery(slow);
    expect(d.state).toBe('delivered');
    expect(d.attempts.map((a) => [Date.parse(a.at) - t0, a.status])).toEqual([[0, 500], [750, 200]]);
    expect(await dueKeys()).toEqual([]);
  });

  it("does not retry early a held-back delivery from the key it waited on after it went and failed", async () => {
    // Equal jitter with random 0.5: a retry 150 s after the first failure, later than the
    // minute a held-back delivery waits before it is looked at again.
    const { clock, http, dispatcher, dueKeys, delivery } = await setup({ baseMs: 200_000, maxMs: 200_000, maxAttempts: 4 });
    await dispatcher.subscribe({ id: 's', url: 'http://127.0.0.1:9/s' });
    const t0 = clock.now();
    const ada = (event: 'DATA_SYNC_STARTED' | 'DATA_SYNC_COMPLETED') => dispatcher.emit(dataSyncEvent(event, { cptyDID: 'did:x', dataSyncOperationId: 'op', userId: 'ada' }));
    const first = await ada('DATA_SYNC_STARTED');
    const second = await ada('DATA_SYNC_COMPLETED');
    const secondId = `${second}:s`;

    const pass = dispatcher.deliverDue();
    await until(() => http.calls.length === 1, 'the first event posted');
    expect(http.calls[0]!.id).toBe(first);
    // The second waits for the first: looked at again in a minute.
    await until(async () => (await delivery(secondId)).nextAttemptAt === t0 + 60_000, 'the second event held back');
    // The first is delivered: the second goes at once, and fails.
    http.calls[0]!.answer(200);
    await until(() => http.calls.length === 2, 'the second event posted');
    expect(http.calls[1]!.id).toBe(second);
    http.calls[1]!.answer(500);
    expect(await pass).toBe(2);
    expect((await delivery(secondId)).nextAttemptAt).toBe(t0 + 150_000);

    http.answerAll(200);
    clock.advance(60_000);
    expect(await dispatcher.deliverDue()).toBe(0);
    clock.advance(90_000);
    expect(await dispatcher.deliverDue()).toBe(1);
    expect(http.calls.filter((c) => c.id === second).map((c) => c.at - t0)).toEqual([0, 150_000]);
    expect((await delivery(secondId)).state).toBe('delivered');
    expect(await dueKeys()).toEqual([]);
  });
});
