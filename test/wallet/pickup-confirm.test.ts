// What a wallet behind a mediator confirms with messages-received (Message Pickup 3.0): only a
// message whose outcome is final. One whose handling failed in a way that may pass (a store error)
// stays queued at the mediator and is handled when delivered again (a copy refused while another
// copy is still being handled is not confirmed either: test/router/duplicates.test.ts); "Delivered messages MUST NOT be deleted until delivery is
// acknowledged by a messages-received message". And a backlog larger than one pickup's round
// guard is collected whole when the wallet comes back live (§Live Mode: "Messages already in the
// queue are not affected by Live Mode; they must still be requested with delivery-request messages").
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IdsyncError } from '../../src/errors.js';
import { startMediator, type RunningMediator } from '../../src/mediator/server.js';
import { wsTransport, type WsTransportOptions } from '../../src/didcomm/transport/ws.js';
import { httpTransport } from '../../src/didcomm/transport/http.js';
import { openStore, type Collection, type Store } from '../../src/store/store.js';
import { createWallet } from '../../src/wallet/wallet.js';
import { MAX_LEFT_QUEUED } from '../../src/wallet/pickup.js';
import { party, sender } from '../mediator/parties.js';

/**
 * A store whose `name` collection, for keys starting with `prefix`, can be held at a gate and then
 * fail, as a full disk would: the wallet's replay memory for one message id, so only that message's
 * handling meets it.
 */
function faultyStore(store: Store, name: string, prefix: string) {
  const state = { fail: false, gate: undefined as Promise<void> | undefined, reached: undefined as (() => void) | undefined };
  const faulty: Store = {
    location: store.location,
    collection<T>(n: string): Collection<T> {
      const c = store.collection<T>(n);
      if (n !== name) return c;
      const guard = <R>(f: (key: string, ...rest: never[]) => Promise<R>) => async (key: string, ...rest: never[]): Promise<R> => {
        if (key.startsWith(prefix)) {
          if (state.gate) {
            state.reached?.();
            await state.gate;
          }
          if (state.fail) throw new IdsyncError('store_error', 'the disk is full');
        }
        return f(key, ...rest);
      };
      return { name: c.name, get: guard(c.get.bind(c)), put: guard(c.put.bind(c) as never), del: guard(c.del.bind(c)), list: c.list.bind(c), count: c.count.bind(c) };
    },
    batch: (ops) => store.batch(ops),
    close: () => store.close(),
  };
  return { store: faulty, state };
}

const PING = 'https://didcomm.org/trust-ping/2.0/ping';
const ping = (id: string) => ({ id, type: PING, body: { response_requested: false } });

const open: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const o of open.reverse()) await o.close();
  open.length = 0;
});

async function mediator(): Promise<RunningMediator> {
  const store = await openStore();
  const m = await startMediator({ store });
  open.push(store, m);
  return m;
}

describe('a wallet behind a mediator confirms only what it settled', () => {
  it('leaves a message whose handling failed in a way that may pass queued, and handles it when delivered again', async () => {
    const m = await mediator();
    const inner = await openStore();
    const { store, state } = faultyStore(inner, 'wallet-seen', 'ping-left-queued|');
    const w = createWallet({ store, mediator: m.invitationUrl, mediation: { live: false, pollIntervalMs: 600_000 } });
    const s = sender();
    open.push(inner, w, s);
    await w.init();
    await s.router.send(ping('ping-left-queued'), { to: w.did });
    expect(await m.agent.mediator.queue.count(w.did)).toBe(1);

    state.fail = true;
    const first = await w.pickup();
    expect(first.results.map((r) => [r.status, r.code, r.retryable])).toEqual([['failed', 'store_error', true]]);
    expect(first.leftQueued).toBe(1);
    expect(await m.agent.mediator.queue.count(w.did)).toBe(1);

    state.fail = false;
    const second = await w.pickup();
    expect(second.results.map((r) => [r.status, r.message?.type])).toEqual([['handled', PING]]);
    expect(second.leftQueued).toBe(0);
    expect(await m.agent.mediator.queue.count(w.did)).toBe(0);
  });

  it('confirms a message its store kept failing on after a few deliveries, and collects what waits behind it', async () => {
    const m = await mediator();
    const inner = await openStore();
    const { store, state } = faultyStore(inner, 'wallet-seen', 'ping-stuck|');
    const w = createWallet({ store, mediator: m.invitationUrl, mediation: { live: false, pollIntervalMs: 600_000 } });
    const s = sender();
    open.push(inner, w, s);
    await w.init();
    await s.router.send(ping('ping-stuck'), { to: w.did });
    await s.router.send(ping('ping-behind'), { to: w.did });
    state.fail = true;
    const outcomes: string[] = [];
    for (let i = 0; i < MAX_LEFT_QUEUED; i++) {
      const r = await w.pickup();
      outcomes.push(r.results.map((x) => `${String(x.message?.id)}:${x.status}`).join(','));
    }
    // Left queued twice, confirmed at the third failure; the message behind it handled at once.
    expect(outcomes).toEqual(['ping-stuck:failed,ping-behind:handled', 'ping-stuck:failed', 'ping-stuck:failed']);
    expect(await m.agent.mediator.queue.count(w.did)).toBe(0);
  });

  it('confirms a message whose handling failed on its sender\'s side (a reply it could not deliver)', async () => {
    const m = await mediator();
    const store = await openStore();
    const w = createWallet({ store, mediator: m.invitationUrl, mediation: { live: false, pollIntervalMs: 600_000 } });
    const dead = party({ endpoint: 'http://127.0.0.1:9/didcomm' });
    open.push(store, w, dead);
    await w.init();
    await dead.router.send({ id: 'answer-me', type: PING, body: { response_requested: true } }, { to: w.did });
    const r = await w.pickup();
    expect(r.results.map((x) => [x.status, x.retryable])).toEqual([['failed', true]]);
    expect(r.leftQueued).toBe(0);
    expect(await m.agent.mediator.queue.count(w.did)).toBe(0);
  });

  it('asks its mediator again, in live mode, for what it left queued', async () => {
    const m = await mediator();
    const inner = await openStore();
    const { store, state } = faultyStore(inner, 'wallet-seen', 'ping-pushed|');
    const w = createWallet({ store, mediator: m.invitationUrl, mediation: { pollIntervalMs: 20 } });
    const s = sender();
    open.push(inner, w, s);
    await w.init();
    expect(w.collecting).toBe('live');
    const outcome = (status: string) =>
      new Promise<void>((resolve) =>
        w.on('message', (e) => {
          if (e.direction === 'in' && e.message?.type === PING && e.status === status) resolve();
        }),
      );
    const failed = outcome('failed');
    const handled = outcome('handled');
    const left = new Promise<{ count: number }>((resolve) => w.on('pickup-left-queued', resolve));
    state.fail = true;
    await s.router.send(ping('ping-pushed'), { to: w.did });
    await failed;
    expect((await left).count).toBe(1);
    state.fail = false;
    // Live mode pushes only what arrives from now on: the wallet asks for the rest itself.
    await handled;
    await vi.waitFor(async () => expect(await m.agent.mediator.queue.count(w.did)).toBe(0));
    expect(w.collecting).toBe('live');
  });

  it('asks again, in live mode, when the status confirming its messages-received never comes (the confirmation was lost)', async () => {
    const m = await mediator();
    const store = await openStore();
    // The wallet's socket loses its first messages-received on the wire.
    let dropped = 0;
    let sentAfter = 0;
    const w = createWallet({
      store,
      mediator: m.invitationUrl,
      mediation: { pollIntervalMs: 20 },
      webSocket: (o) => {
        const t = wsTransport(o);
        return {
          ...t,
          schemes: t.schemes,
          send: (endpoint, packed, options) => {
            if (!options?.messageType?.endsWith('/messages-received')) return t.send(endpoint, packed, options);
            if (dropped === 0) {
              dropped++;
              return Promise.resolve([]);
            }
            sentAfter++;
            return t.send(endpoint, packed, options);
          },
          close: () => t.close?.() ?? Promise.resolve(),
        };
      },
    });
    const s = sender();
    open.push(store, w, s);
    await w.init();
    expect(w.collecting).toBe('live');
    const handled = new Promise<void>((resolve) =>
      w.on('message', (e) => {
        if (e.direction === 'in' && e.message?.type === PING && e.status === 'handled') resolve();
      }),
    );
    await s.router.send(ping('ping-confirm-lost'), { to: w.did });
    await handled;
    // "Delivered messages MUST NOT be deleted until delivery is acknowledged by a messages-received
    // message": it waits at the mediator until the wallet asks for it and confirms it again.
    await vi.waitFor(async () => expect(await m.agent.mediator.queue.count(w.did)).toBe(0));
    expect([dropped, sentAfter]).toEqual([1, 1]);
    expect(w.collecting).toBe('live');
  });

  it('asks again, in live mode, when collecting what waited while it was away failed', async () => {
    const m = await mediator();
    const store = await openStore();
    const s = sender();
    open.push(store, s);
    // Made once, then away: a message waits for it at the mediator.
    const first = createWallet({ store, mediator: m.invitationUrl, mediation: { pollIntervalMs: 20 } });
    await first.init();
    const did = first.did;
    await first.close();
    await s.router.send(ping('ping-while-away'), { to: did });
    expect(await m.agent.mediator.queue.count(did)).toBe(1);
    // Back, live; the first delivery-request of its backlog is lost (no answer).
    let lost = 0;
    const http = httpTransport();
    const w = createWallet({
      store,
      mediator: m.invitationUrl,
      mediation: { pollIntervalMs: 20 },
      transports: [
        {
          schemes: http.schemes,
          send: (endpoint, packed, options) => {
            if (options?.messageType?.endsWith('/delivery-request') && lost++ === 0) return Promise.reject(new IdsyncError('transport_unreachable', 'the request was lost'));
            return http.send(endpoint, packed, options);
          },
        },
      ],
    });
    open.push(w);
    await w.init();
    expect(w.collecting).toBe('live');
    await vi.waitFor(async () => expect(await m.agent.mediator.queue.count(did)).toBe(0));
    expect(lost).toBeGreaterThan(1);
    expect((await w.messages({ type: PING })).map((r) => r.message?.id)).toContain('ping-while-away');
  });

  it('stays live with its mediator when another WebSocket of its own closes', async () => {
    const m = await mediator();
    const store = await openStore();
    let socketOptions!: WsTransportOptions;
    const w = createWallet({
      store,
      mediator: m.invitationUrl,
      mediation: { pollIntervalMs: 600_000 },
      webSocket: (o) => {
        socketOptions = o;
        return wsTransport(o);
      },
    });
    open.push(store, w);
    await w.init();
    expect(w.collecting).toBe('live');
    const ended: unknown[] = [];
    w.on('live-ended', (e) => ended.push(e));
    // A socket to some other peer closes (a service's WebSocket endpoint the wallet answered over).
    socketOptions.onClose?.('ws://127.0.0.1:9/didcomm', 1000);
    expect(ended).toEqual([]);
    expect(w.collecting).toBe('live');
    // The mediator still pushes, and what it pushes is taken.
    const s = sender();
    open.push(s);
    const handled = new Promise<void>((resolve) =>
      w.on('message', (e) => {
        if (e.direction === 'in' && e.message?.type === PING && e.status === 'handled') resolve();
      }),
    );
    await s.router.send(ping('ping-after-close'), { to: w.did });
    await handled;
  });

  it('asks for fewer messages at a time when a delivery is larger than its transport takes', async () => {
    const m = await mediator();
    const store = await openStore();
    // Replies over 400 KB refused: a delivery of several 120 KB messages is, one alone is not.
    const w = createWallet({ store, mediator: m.invitationUrl, mediation: { live: false, pollIntervalMs: 600_000 }, transports: [httpTransport({ maxReplyBytes: 400_000 })] });
    const s = sender();
    open.push(store, w, s);
    await w.init();
    for (let i = 0; i < 4; i++) await s.router.send({ type: PING, body: { response_requested: false, pad: 'x'.repeat(120_000) } }, { to: w.did });
    await s.router.send(ping('small-behind'), { to: w.did });
    const r = await w.pickup();
    expect(r.results.map((x) => x.status)).toEqual(['handled', 'handled', 'handled', 'handled', 'handled']);
    expect(await m.agent.mediator.queue.count(w.did)).toBe(0);
  });

  it('collects a backlog larger than one pickup takes when it comes back live', async () => {
    const m = await mediator();
    const store = await openStore();
    open.push(store);
    const away = createWallet({ store, mediator: m.invitationUrl, mediation: { collect: false } });
    await away.init();
    const did = away.did;
    await away.close();
    const s = sender();
    open.push(s);
    // One pickup takes at most 50 delivery requests of 10 messages (its round guard).
    const N = 520;
    await Promise.all(
      Array.from({ length: 4 }, async (_, k) => {
        for (let i = k; i < N; i += 4) await s.router.send({ type: PING, body: { response_requested: false } }, { to: did });
      }),
    );
    expect(await m.agent.mediator.queue.count(did)).toBe(N);

    const back = createWallet({ store, mediation: { pollIntervalMs: 600_000 } });
    open.push(back);
    await back.init();
    expect(back.collecting).toBe('live');
    expect(await m.agent.mediator.queue.count(did)).toBe(0);
  }, 60_000);
});
