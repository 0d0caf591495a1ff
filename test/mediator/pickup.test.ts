// A message through the standalone mediator over real sockets: a sender sends to a DID whose
// DIDComm service names the mediator's DID (pack() wraps the forward), the mediator queues it
// for the party that registered that DID, and the party collects it with Message Pickup 3.0:
// status counts, delivery with the packed message unchanged, messages-received removing exactly
// what it names, recipient_did scoping, and live mode over the WebSocket.
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { pack } from '../../src/didcomm/envelope/index.js';
import { buildLiveDeliveryChange, buildMessagesReceived, type QueueStatus } from '../../src/protocols/message-pickup.js';
import type { PlainMessage } from '../../src/didcomm/types.js';
import { queryRecipients, requestMediation, updateRecipients } from '../../src/protocols/coordinate-mediation.js';
import { TRUST_PING } from '../../src/protocols/trust-ping.js';
import { KEYLIST_COLLECTIONS } from '../../src/mediator/keylist.js';
import { MAX_DELIVERY_BYTES, timeSpan } from '../../src/mediator/pickup.js';
import { startMediator, type RunningMediator } from '../../src/mediator/server.js';
import { messageLog } from '../../src/store/messages.js';
import { openStore, type Store } from '../../src/store/store.js';
import { deliveryRequest, extraDid, goLive, messagesReceived, nextPush, open, party, sender, status, type Delivered, type Party } from './parties.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setup(): Promise<{ m: RunningMediator; r: Party; s: Party; a: string; b: string; store: Store }> {
  const store = await openStore();
  const m = await startMediator({ store });
  const r = party();
  const s = sender();
  cleanup.push(() => store.close(), () => m.close(), () => r.close(), () => s.close());
  const a = extraDid(r, m.did).did;
  const b = extraDid(r, m.did).did;
  await requestMediation(r.router, m.did, '2.0');
  await updateRecipients(r.router, m.did, [{ recipientDid: a, action: 'add' }, { recipientDid: b, action: 'add' }]);
  return { m, r, s, a, b, store };
}

const isDelivery = (d: unknown): d is Delivered => Array.isArray((d as Delivered).messages);

/** The setup, live mode on the WebSocket, and one ping for `a` pushed to the recipient. */
async function livePush() {
  const parties = await setup();
  const { m, r, s, a } = parties;
  const wsEndpoint = `${m.url.replace(/^http/, 'ws')}/didcomm`;
  const live = await goLive(r, m.did, wsEndpoint);
  const pushed = nextPush(r);
  const pingId = await ping(s, a);
  return { ...parties, wsEndpoint, live, pingId, d: await pushed };
}

async function ping(s: Party, to: string): Promise<string> {
  const sent = await s.router.send({ type: TRUST_PING.ping, body: { response_requested: false } }, { to });
  return sent.message.id;
}

describe('forward and pickup', () => {
  it('queues a forward for the registered DID, counts it, delivers it unchanged, and removes it on messages-received', async () => {
    const { m, r, s, a } = await setup();
    const queued = new Promise((resolve) => m.agent.events.once('forward-queued', resolve));
    const pingId = await ping(s, a);
    expect(await queued).toMatchObject({ queueIds: [expect.any(String)] });

    expect((await status(r, m.did)).status.messageCount).toBe(1);
    const d = await deliveryRequest(r, m.did, 10);
    if (!isDelivery(d)) throw new Error('expected a delivery');
    expect(d.messages).toHaveLength(1);
    const inner = await open(r, d.messages[0]!.packed);
    expect(inner).toMatchObject({ id: pingId, type: TRUST_PING.ping, from: s.did });
    // Delivered is not confirmed: it stays until messages-received names it.
    expect((await status(r, m.did)).status.messageCount).toBe(1);
    expect(await messagesReceived(r, m.did, [d.messages[0]!.id])).toMatchObject({ messageCount: 0 });
    // Nothing left: a delivery-request gets a status.
    expect(await deliveryRequest(r, m.did)).toMatchObject({ status: { messageCount: 0 } });
  });

  it('counts and delivers once a message for a party that registered its own DID (as idsync\'s wallet does)', async () => {
    const store = await openStore();
    const m = await startMediator({ store });
    const r = party({ endpoint: m.did });
    const s = sender();
    cleanup.push(() => store.close(), () => m.close(), () => r.close(), () => s.close());
    await requestMediation(r.router, m.did, '2.0');
    await updateRecipients(r.router, m.did, [{ recipientDid: r.did, action: 'add' }]);
    await ping(s, r.did);
    expect((await status(r, m.did)).status.messageCount).toBe(1);
    const d = await deliveryRequest(r, m.did, 10);
    if (!isDelivery(d)) throw new Error('expected a delivery');
    expect(d.messages).toHaveLength(1);
  });

  it('scopes status and delivery to recipient_did, and echoes it in the status', async () => {
    const { m, r, s, a, b } = await setup();
    await ping(s, a);
    await ping(s, a);
    await ping(s, b);
    const forA = await status(r, m.did, a);
    expect(forA.status).toMatchObject({ messageCount: 2, recipientDid: a });
    expect((await status(r, m.did, b)).status).toMatchObject({ messageCount: 1, recipientDid: b });
    expect((await status(r, m.did)).status.messageCount).toBe(3);
    const d = await deliveryRequest(r, m.did, 10, b);
    if (!isDelivery(d)) throw new Error('expected a delivery');
    expect(d.messages).toHaveLength(1);
    expect(d.message.body.recipient_did).toBe(b);
    // limit: at most that many, oldest first.
    const one = await deliveryRequest(r, m.did, 1);
    if (!isDelivery(one)) throw new Error('expected a delivery');
    expect(one.messages).toHaveLength(1);
  });

  it('keeps what waits for a DID its owner removes: no more forwards, the owner collects the rest, and nobody else takes the DID meanwhile', async () => {
    const { m, r, s, a } = await setup();
    const queued = new Promise((resolve) => m.agent.events.once('forward-queued', resolve));
    const pingId = await ping(s, a);
    await queued;
    expect(await updateRecipients(r.router, m.did, [{ recipientDid: a, action: 'remove' }])).toEqual([{ recipientDid: a, action: 'remove', result: 'success' }]);
    expect((await queryRecipients(r.router, m.did)).dids).not.toContain(a);

    // Forwards for it are refused from now on (routing 2.0: the mediator accepts forwards for registered keys).
    const refused: unknown[] = [];
    m.agent.events.on('inbound', (e: { code?: string }) => void (e.code === 'forward_unknown_recipient' && refused.push(e)));
    await ping(s, a).catch(() => undefined);
    expect(refused).toHaveLength(1);

    // Another party cannot register it while the owner's message waits: it could collect or confirm it.
    const other = party();
    cleanup.push(() => other.close());
    await requestMediation(other.router, m.did, '2.0');
    await expect(updateRecipients(other.router, m.did, [{ recipientDid: a, action: 'add' }])).rejects.toMatchObject({ code: 'mediation_update_failed', message: expect.stringMatching(/client_error$/) });

    // The owner still collects it, with or without recipient_did.
    expect((await status(r, m.did)).status.messageCount).toBe(1);
    expect((await status(r, m.did, a)).status).toMatchObject({ messageCount: 1, recipientDid: a });
    const d = await deliveryRequest(r, m.did, 10);
    if (!isDelivery(d)) throw new Error('expected a delivery');
    expect((await open(r, d.messages[0]!.packed)).id).toBe(pingId);
    expect(await messagesReceived(r, m.did, [d.messages[0]!.id])).toMatchObject({ messageCount: 0 });

    // Collected: the DID is free, and the other party may have it.
    expect(await updateRecipients(other.router, m.did, [{ recipientDid: a, action: 'add' }])).toEqual([{ recipientDid: a, action: 'add', result: 'success' }]);
  });

  it('registers again, for its owner, a DID removed while messages for it waited, and lets nothing go', async () => {
    const { m, r, s, a } = await setup();
    await ping(s, a);
    await updateRecipients(r.router, m.did, [{ recipientDid: a, action: 'remove' }]);
    expect(await updateRecipients(r.router, m.did, [{ recipientDid: a, action: 'add' }])).toEqual([{ recipientDid: a, action: 'add', result: 'success' }]);
    expect((await queryRecipients(r.router, m.did)).dids).toContain(a);
    const queued = new Promise((resolve) => m.agent.events.once('forward-queued', resolve));
    await ping(s, a);
    await queued;
    expect((await status(r, m.did, a)).status.messageCount).toBe(2);
  });

  it("refuses another party's recipient_did (e.p.trust.forbidden) and an unregistered one (e.p.req.not-enrolled)", async () => {
    const { m, a } = await setup();
    const other = party();
    cleanup.push(() => other.close());
    await requestMediation(other.router, m.did, '2.0');
    const problems: string[] = [];
    other.router.events.on('received', (e: { message: { type: string; body: { code?: string } } }) => {
      if (e.message.type.endsWith('/problem-report')) problems.push(String(e.message.body.code));
    });
    await other.router.send({ type: 'https://didcomm.org/messagepickup/3.0/status-request', body: { recipient_did: a }, return_route: 'all' }, { to: m.did });
    await other.router.send({ type: 'https://didcomm.org/messagepickup/3.0/status-request', body: { recipient_did: 'did:example:nobody' }, return_route: 'all' }, { to: m.did });
    expect(problems).toEqual(['e.p.trust.forbidden', 'e.p.req.not-enrolled']);
  });

  it("never reads another granted party's own DID through a registration of it another party holds", async () => {
    const { m, store } = await setup();
    const a = party();
    const b = party();
    cleanup.push(() => a.close(), () => b.close());
    await requestMediation(b.router, m.did, '2.0');
    await requestMediation(a.router, m.did, '2.0');
    // A registration of b's DID by a, as kept in the store from before a grant let such go.
    await store.batch([
      { type: 'put', collection: KEYLIST_COLLECTIONS.recipients, key: b.did, value: { recipientDid: b.did, owner: a.did, addedAt: new Date().toISOString() } },
      { type: 'put', collection: KEYLIST_COLLECTIONS.owned, key: `${a.did} ${b.did}`, value: { recipientDid: b.did } },
    ]);
    const queued = await m.agent.mediator.queue.enqueue(b.did, JSON.stringify({ protected: 'p', ciphertext: 'for b' }));
    expect((await status(a, m.did)).status.messageCount).toBe(0);
    expect(await messagesReceived(a, m.did, [queued.id])).toMatchObject({ messageCount: 0 });
    const problems: string[] = [];
    a.router.events.on('received', (e: { message: { type: string; body: { code?: string } } }) => {
      if (e.message.type.endsWith('/problem-report')) problems.push(String(e.message.body.code));
    });
    await a.router.send({ type: 'https://didcomm.org/messagepickup/3.0/status-request', body: { recipient_did: b.did }, return_route: 'all' }, { to: m.did });
    expect(problems).toEqual(['e.p.trust.forbidden']);
    expect((await status(b, m.did)).status.messageCount).toBe(1);
  });

  it('delivers large messages in deliveries of bounded size, fewer than the limit, until all are collected', async () => {
    const { m, r, a } = await setup();
    // Six of about 200 KB: within the 256 KiB a forward may carry, 1.6 MB base64-encoded in one delivery.
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await m.agent.mediator.queue.enqueue(a, JSON.stringify({ protected: `p${i}`, ciphertext: 'c'.repeat(200_000) }))).id);
    const collected: string[] = [];
    for (let round = 0; round < 6 && collected.length < ids.length; round++) {
      const d = await deliveryRequest(r, m.did, 10);
      if (!isDelivery(d)) throw new Error('expected a delivery');
      expect(d.messages.length).toBeLessThan(10);
      expect(d.messages.reduce((n, x) => n + x.packed.length, 0)).toBeLessThanOrEqual(MAX_DELIVERY_BYTES);
      collected.push(...d.messages.map((x) => x.id));
      await messagesReceived(r, m.did, d.messages.map((x) => x.id));
    }
    expect(collected).toEqual(ids);
    expect(await deliveryRequest(r, m.did)).toMatchObject({ status: { messageCount: 0 } });
  });

  it('refuses a forward to a DID nobody registered, and keeps nothing', async () => {
    const { m, r, s } = await setup();
    const unknown = extraDid(r, m.did).did;
    await expect(s.router.send({ type: TRUST_PING.ping, body: { response_requested: false } }, { to: unknown })).rejects.toMatchObject({
      code: 'transport_rejected',
      details: { status: 400, problemCode: 'forward_unknown_recipient' },
    });
    expect((await status(r, m.did)).status.messageCount).toBe(0);
  });

  it('in live mode pushes a forward inside a delivery on the WebSocket, and keeps it until messages-received', async () => {
    const { m, r, a, wsEndpoint, live, pingId, d } = await livePush();
    expect(live).toMatchObject({ messageCount: 0, liveDelivery: true });
    expect((await open(r, d.messages[0]!.packed)).id).toBe(pingId);
    expect(await m.agent.mediator.queue.count(a)).toBe(1);
    expect(await messagesReceived(r, m.did, [d.messages[0]!.id], wsEndpoint)).toMatchObject({ messageCount: 0 });
  });

  it('keeps a party live on its older connection when the newer one ends, or turns live mode off there', async () => {
    const { m, r, s, a } = await setup();
    const first = `${m.url.replace(/^http/, 'ws')}/didcomm`;
    const second = `${first}?second`;
    await goLive(r, m.did, first);
    await goLive(r, m.did, second);
    // "If Live Mode is active, and the connection is broken, a new inbound connection starts with
    // Live Mode disabled": the broken one, not the other, which was told live_delivery true.
    r.ws.disconnect(second);
    let pushed = nextPush(r);
    const one = await ping(s, a);
    expect((await open(r, (await pushed).messages[0]!.packed)).id).toBe(one);
    expect((await status(r, m.did, undefined, first)).status.liveDelivery).toBe(true);
    // Live mode turned off on a second live connection leaves the first live.
    await goLive(r, m.did, second);
    const off = buildLiveDeliveryChange({ to: m.did, liveDelivery: false }, { clock: systemClock });
    const answered = new Promise<QueueStatus>((resolve) => r.events.on('status', (e: { message: PlainMessage; status: QueueStatus }) => e.message.thid === off.id && resolve(e.status)));
    await r.router.send(off, { to: m.did, via: second });
    expect((await answered).liveDelivery).toBe(false);
    pushed = nextPush(r);
    const two = await ping(s, a);
    expect((await open(r, (await pushed).messages[0]!.packed)).id).toBe(two);
    expect((await status(r, m.did, undefined, first)).status.liveDelivery).toBe(true);
  });

  it('answers a status asked over HTTP with whether any socket is live, and turns live mode off on all of them when asked over HTTP', async () => {
    const { m, r, s, a } = await setup();
    await goLive(r, m.did, `${m.url.replace(/^http/, 'ws')}/didcomm`);
    // Over HTTP (the party's router posts to the mediator's HTTP endpoint): an answer is no connection.
    expect((await status(r, m.did)).status.liveDelivery).toBe(true);
    const off = buildLiveDeliveryChange({ to: m.did, liveDelivery: false }, { clock: systemClock });
    const answered = new Promise<QueueStatus>((resolve) => r.events.on('status', (e: { message: PlainMessage; status: QueueStatus }) => e.message.thid === off.id && resolve(e.status)));
    await r.router.send({ ...off, return_route: 'all' }, { to: m.did });
    expect((await answered).liveDelivery).toBe(false);
    // Nothing is pushed any more: the forward waits for a delivery-request.
    const pushed = nextPush(r, 500).then(() => 'pushed', () => 'none');
    await ping(s, a);
    expect(await pushed).toBe('none');
    expect(await m.agent.mediator.queue.count(a)).toBe(1);
  });

  it('logs each live delivery it pushes, checked against the rules as any message it sends', async () => {
    const { m, r, store, d } = await livePush();
    await m.agent.idle();
    const log = await messageLog(store, systemClock).list({ direction: 'out', type: 'https://didcomm.org/messagepickup/3.0/delivery' });
    expect(log).toHaveLength(1);
    const [rec] = log;
    expect(rec).toMatchObject({ result: 'sent', mode: 'anoncrypt', to: [r.did] });
    expect(rec!.conformance!.length).toBeGreaterThan(0);
    expect(rec!.conformance!.filter((c) => !c.ok)).toEqual([]);
    // The message as it went on the socket: its attachment is the queued message, by queue id.
    expect((rec!.message.attachments as { id: string }[]).map((x) => x.id)).toEqual([d.messages[0]!.id]);
  });

  it('logs a live push the connection lost as failed (live_connection_closed), and keeps the message queued', async () => {
    const { m, r, s, a, store } = await setup();
    // Live mode turned on over a connection that answers once (the status) and is gone by the push.
    let frames = 0;
    const change = buildLiveDeliveryChange({ from: r.did, to: m.did, liveDelivery: true }, { clock: systemClock });
    const { packed } = await pack(change, { mode: 'authcrypt', forward: false }, r.envelope);
    await m.agent.receive(packed, {
      transport: 'ws',
      reply: async () => {
        if (frames++ > 0) throw new Error('socket closed');
      },
    });
    expect(m.agent.mediator.live.has(r.did)).toBe(true);
    await ping(s, a);
    await m.agent.idle();
    expect(m.agent.mediator.live.has(r.did)).toBe(false);
    expect(await m.agent.mediator.queue.count(a)).toBe(1);
    const log = await messageLog(store, systemClock).list({ direction: 'out', type: 'https://didcomm.org/messagepickup/3.0/delivery' });
    expect(log.map((rec) => [rec.result, rec.errorCode])).toEqual([['failed', 'live_connection_closed']]);
    expect((await status(r, m.did)).status.messageCount).toBe(1);
  });

  it('removes what a recipient confirms as it disconnects, and builds no status for the closed socket', async () => {
    const { m, r, a, store, d } = await livePush();
    const received = new Promise<{ removed: number }>((resolve) => m.agent.events.once('pickup-received', resolve));
    // The confirmation as it comes off a socket that closed meanwhile (a wallet that confirms at
    // close): handed to the mediator as its WebSocket endpoint does, the socket's state read as closed.
    const confirmation = buildMessagesReceived({ from: r.did, to: m.did, messageIds: [d.messages[0]!.id] }, { clock: systemClock });
    const { packed } = await pack(confirmation, { mode: 'authcrypt', forward: false }, r.envelope);
    const replies: string[] = [];
    await m.agent.receive(packed, { transport: 'ws', reply: async (p) => void replies.push(p), open: () => false });
    expect(await received).toMatchObject({ removed: 1 });
    await m.agent.idle();
    expect(replies).toEqual([]);
    expect(await m.agent.mediator.queue.count(a)).toBe(0);
    // Nothing was made for it: no status in the mediator's log, sent or failed.
    const made = (await messageLog(store, systemClock).list({ direction: 'out' })).filter((rec) => rec.thid === confirmation.id);
    expect(made).toEqual([]);
  });

  it('answers live mode asked for over HTTP with e.m.live-mode-not-supported, and stays off', async () => {
    const { m, r } = await setup();
    const problem = new Promise<{ message: { body: { code: string } } }>((resolve) => r.router.events.on('received', (e) => e.message.type.endsWith('/problem-report') && resolve(e)));
    await r.router.send({ type: 'https://didcomm.org/messagepickup/3.0/live-delivery-change', body: { live_delivery: true }, return_route: 'all' }, { to: m.did });
    expect((await problem).message.body.code).toBe('e.m.live-mode-not-supported');
    expect((await status(r, m.did)).status.liveDelivery).toBe(false);
  });
});

describe('status over a long queue', () => {
  it('finds the oldest and newest of more queueing times than a call takes arguments', () => {
    const t0 = Date.UTC(2026, 0, 1);
    const entries = Array.from({ length: 300_000 }, (_, i) => ({ queuedAt: t0 + ((i * 7919) % 300_000) }));
    expect(timeSpan(entries)).toEqual({ oldest: t0, newest: t0 + 299_999 });
    expect(timeSpan([])).toBeUndefined();
  });
});
