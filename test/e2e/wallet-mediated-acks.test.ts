// How a wallet behind idsync's mediator confirms what is pushed to it live (Message Pickup 3.0
// §Messages Received), over real sockets on 127.0.0.1: deliveries handled within the wallet's
// ackDelayMs are confirmed by one messages-received naming them all, they stay queued at the
// mediator until then, and a wallet that closes first confirms them before its socket goes,
// the delivery it is still handling included.
import { afterEach, describe, expect, it } from 'vitest';
import { startMediator } from '../../src/mediator/server.js';
import { PickupSession } from '../../src/wallet/pickup.js';
import { TRUST_PING } from '../../src/protocols/trust-ping.js';
import { openStore } from '../../src/store/store.js';
import { createWallet } from '../../src/wallet/wallet.js';
import { sender } from '../mediator/parties.js';

const MESSAGES_RECEIVED = 'https://didcomm.org/messagepickup/3.0/messages-received';
const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/**
 * idsync's mediator, a sender, and a wallet behind the mediator confirming live deliveries after
 * a wait far longer than a test, so that only close() sends a confirmation.
 */
async function behindMediator() {
  const medStore = await openStore();
  const m = await startMediator({ store: medStore });
  const walletStore = await openStore();
  const s = sender();
  cleanup.push(() => medStore.close(), () => m.close(), () => walletStore.close(), () => s.close());
  const w = createWallet({ store: walletStore, mediator: m.invitationUrl, mediation: { ackDelayMs: 600_000 } });
  return { m, s, w };
}

describe('live deliveries confirmed together', () => {
  it('lists every delivery handled within ackDelayMs in one messages-received, kept queued until then, sent when the wallet closes', async () => {
    const { m, s, w } = await behindMediator();
    let closed = false;
    cleanup.push(async () => void (closed ? undefined : await w.close()));
    await w.init();
    expect(w.collecting).toBe('live');

    const handled = new Set<string>();
    const both = w.waitFor('message', (e) => {
      if (e.direction === 'in' && e.message?.type === TRUST_PING.ping) handled.add(e.message.id);
      return handled.size === 2;
    }, { timeoutMs: 10_000 });
    const sent = [];
    for (let i = 0; i < 2; i++) sent.push((await s.router.send({ type: TRUST_PING.ping, body: { response_requested: false } }, { to: w.did })).message.id);
    await both;
    expect([...handled].sort()).toEqual([...sent].sort());
    // Handled and stored, not confirmed yet: "Delivered messages MUST NOT be deleted until
    // delivery is acknowledged by a messages-received message."
    expect(await m.agent.mediator.queue.count(w.did)).toBe(2);
    expect(await w.messages({ type: MESSAGES_RECEIVED })).toHaveLength(0);

    const acks: string[] = [];
    m.agent.events.on('inbound', (e: { type?: string; id: string }) => void (e.type === MESSAGES_RECEIVED && acks.push(e.id)));
    const received = new Promise<{ removed: number; queueIds: string[] }>((resolve) => m.agent.mediator.events.once('pickup-received', resolve));
    const did = w.did;
    await w.close();
    closed = true;
    // One messages-received for both: "message_id_list is a list of ids of each message received".
    expect(await received).toMatchObject({ removed: 2, queueIds: [expect.any(String), expect.any(String)] });
    expect(acks).toHaveLength(1);
    expect(await m.agent.mediator.queue.count(did)).toBe(0);
  });

  it('a wallet closed while a live delivery is still in its router confirms that delivery before its socket goes', async () => {
    const { m, s, w } = await behindMediator();
    await w.init();
    const did = w.did;
    const acks: string[] = [];
    m.agent.events.on('inbound', (e: { type?: string; id: string }) => void (e.type === MESSAGES_RECEIVED && acks.push(e.id)));
    // Closed the moment the ping is logged as received: its delivery is still being handled
    // (as a fleet wallet is closed when its credential is stored, inside that delivery).
    const closing = new Promise<void>((resolve, reject) => {
      w.on('message', (e) => {
        if (e.direction === 'in' && e.message?.type === TRUST_PING.ping) w.close().then(resolve, reject);
      });
    });
    await s.router.send({ type: TRUST_PING.ping, body: { response_requested: false } }, { to: did });
    await closing;
    // Confirmed by the close, not left queued behind a confirmation timer that keeps the wallet.
    expect(acks).toHaveLength(1);
    expect(await m.agent.mediator.queue.count(did)).toBe(0);
  });

  it('settled() waits for deliveries that start while it waits, and gives up after its bound', async () => {
    const session = new PickupSession();
    expect(await session.settled(10)).toBe(true);
    const order: string[] = [];
    let second: Promise<void> | undefined;
    void session.track(
      new Promise<void>((resolve) => setTimeout(resolve, 20)).then(() => {
        order.push('first');
        second = session.track(new Promise<void>((resolve) => setTimeout(resolve, 20)).then(() => void order.push('second')));
      }),
    );
    expect(await session.settled(5_000)).toBe(true);
    expect(order).toEqual(['first', 'second']);
    await second;
    // A handler that never ends (one waiting on the wallet's own close) does not hold the close.
    void session.track(new Promise<void>(() => undefined));
    const t0 = Date.now();
    expect(await session.settled(30)).toBe(false);
    expect(Date.now() - t0).toBeLessThan(2_000);
  });

  it('takes the status answering a messages-received of its own even after live mode ended, and forgets the oldest beyond its bound', () => {
    const session = new PickupSession();
    session.awaitStatus('ack-1');
    // The status answering it is recognised once (a second one answers nothing of ours).
    expect(session.statusOfAck('ack-1')).toBe(true);
    expect(session.statusOfAck('ack-1')).toBe(false);
    expect(session.statusOfAck(undefined)).toBe(false);
    for (let i = 0; i < 300; i++) session.awaitStatus(`a-${i}`);
    expect(session.statusOfAck('a-0')).toBe(false);
    expect(session.statusOfAck('a-299')).toBe(true);
  });
});
