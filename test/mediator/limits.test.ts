// The mediator's limits and routing 2.0 headers, each refusal coded: a forward over
// --max-message-bytes gets HTTP 413, a full queue 503 with Retry-After (and what waits is kept),
// a delay_milli over --max-delay 400 with its code; delay_milli holds a message back until its
// time, expires_time drops it at its time (injected clock); a forward for a DID registered at
// another mediator is passed on to it; queues and keylists survive a restart on the same folder.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../src/clock.js';
import { encodePeerDid2 } from '../../src/did/peer.js';
import { pack } from '../../src/didcomm/envelope/index.js';
import { generateKeyPair, toMultikey } from '../../src/keys.js';
import { MEDIA_TYPES } from '../../src/didcomm/types.js';
import { queryRecipients, requestMediation, updateRecipients } from '../../src/protocols/coordinate-mediation.js';
import { wrapForMediator } from '../../src/protocols/routing.js';
import { TRUST_PING } from '../../src/protocols/trust-ping.js';
import { startMediator, type RunningMediator, type StartMediatorOptions } from '../../src/mediator/server.js';
import { openStore, type ListOptions, type Store } from '../../src/store/store.js';
import { KEYLIST_COLLECTIONS } from '../../src/mediator/keylist.js';
import { tempDir } from '../cli/run-cli.js';
import { deliveryRequest, extraDid, goLive, messagesReceived, nextPush, open, party, sender, status, type Delivered, type Party } from './parties.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setup(o: Partial<StartMediatorOptions> = {}, store?: Store) {
  const s0 = store ?? (await openStore());
  const m = await startMediator({ store: s0, ...o });
  const r = party();
  const s = sender();
  cleanup.push(...(store ? [] : [() => s0.close()]), () => m.close(), () => r.close(), () => s.close());
  const a = extraDid(r, m.did).did;
  await requestMediation(r.router, m.did, '2.0');
  await updateRecipients(r.router, m.did, [{ recipientDid: a, action: 'add' }]);
  return { m, r, s, a };
}

/** A ping from `s` for `to`, wrapped in a forward to `m` by hand (headers chosen), POSTed; the HTTP answer. */
async function forward(m: RunningMediator, s: Party, to: string, o: { expiresTime?: number; delayMilli?: number; padding?: number } = {}) {
  const ping = { id: crypto.randomUUID(), type: TRUST_PING.ping, from: s.did, to: [to], body: { response_requested: false, ...(o.padding ? { padding: 'x'.repeat(o.padding) } : {}) } };
  const inner = (await pack(ping, { mode: 'authcrypt', to, forward: false }, s.envelope)).packed;
  const { packed } = await wrapForMediator(inner, { next: to, mediator: m.did, ...o }, s.envelope, { clock: systemClock });
  const res = await fetch(`${m.url}/didcomm`, { method: 'POST', headers: { 'content-type': MEDIA_TYPES.encrypted }, body: packed });
  const body = await res.text();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), problem: body ? (JSON.parse(body) as { code?: string; problemCode?: string }) : undefined, pingId: ping.id };
}

const isDelivery = (d: unknown): d is Delivered => Array.isArray((d as Delivered).messages);

describe('mediator limits and routing headers', () => {
  it('refuses with 400 a forward that opens but whose attachments are no list (plaintext.attachments), and keeps nothing', async () => {
    const { m, r, s, a } = await setup();
    const post = async (body: string, contentType: string) => {
      const res = await fetch(`${m.url}/didcomm`, { method: 'POST', headers: { 'content-type': contentType }, body });
      return { status: res.status, problem: JSON.parse(await res.text()) as { code?: string; title?: string; detail?: string } };
    };
    const inner = { protected: 'e30', iv: 'aXY', ciphertext: 'Y3Q', tag: 'dGFn', recipients: [{ header: { kid: `${a}#key-2` }, encrypted_key: 'ZWs' }] };
    for (const attachments of [{ data: { json: inner } }, [null]]) {
      const fwd = { id: crypto.randomUUID(), type: 'https://didcomm.org/routing/2.0/forward', to: [m.did], body: { next: a }, attachments };
      // Anoncrypted to the mediator as a sender would: the envelope is sound, its plaintext is not.
      const { packed } = await pack(fwd as never, { mode: 'anoncrypt', to: m.did, forward: false }, s.envelope);
      const anon = await post(packed, MEDIA_TYPES.encrypted);
      expect(anon.status).toBe(400);
      expect(anon.problem).toMatchObject({ code: 'didcomm_malformed' });
      expect(anon.problem).toMatchObject({ title: 'Bad Request', detail: expect.stringMatching(/plaintext\.attachments/) });
      // The same as a plaintext message.
      expect(await post(JSON.stringify(fwd), MEDIA_TYPES.plaintext)).toMatchObject({ status: 400, problem: { code: 'didcomm_malformed' } });
    }
    // An envelope it cannot open at all is still taken (202), as before, and nothing is queued.
    const { packed } = await wrapForMediator(JSON.stringify(inner), { next: a, mediator: m.did }, s.envelope, { clock: systemClock });
    const jwe = JSON.parse(packed) as { ciphertext: string };
    jwe.ciphertext = (jwe.ciphertext.startsWith('A') ? 'B' : 'A') + jwe.ciphertext.slice(1);
    expect((await fetch(`${m.url}/didcomm`, { method: 'POST', headers: { 'content-type': MEDIA_TYPES.encrypted }, body: JSON.stringify(jwe) })).status).toBe(202);
    expect((await status(r, m.did)).status.messageCount).toBe(0);
  });

  it('answers a forward over --max-message-bytes with 413 and keeps nothing', async () => {
    const { m, r, s, a } = await setup({ policy: { maxMessageBytes: 8192 } });
    expect(await forward(m, s, a)).toMatchObject({ status: 202 });
    expect(await forward(m, s, a, { padding: 10_000 })).toMatchObject({ status: 413, problem: { code: 'forward_too_large', problemCode: 'e.p.msg.too-large' } });
    expect((await status(r, m.did)).status.messageCount).toBe(1);
  });

  it('answers without a socket (serve) as over HTTP: a forward queued 202, the same one over the limit 413, other routes as the server', async () => {
    const { m, r, s, a } = await setup({ policy: { maxMessageBytes: 8192 } });
    const packedFor = async (padding?: number) => {
      const ping = { id: crypto.randomUUID(), type: TRUST_PING.ping, from: s.did, to: [a], body: { response_requested: false, ...(padding ? { padding: 'x'.repeat(padding) } : {}) } };
      const inner = (await pack(ping, { mode: 'authcrypt', to: a, forward: false }, s.envelope)).packed;
      return (await wrapForMediator(inner, { next: a, mediator: m.did }, s.envelope, { clock: systemClock })).packed;
    };
    const post = async (body: string) => m.serve({ method: 'POST', url: `${m.url}/didcomm`, body, contentType: MEDIA_TYPES.encrypted });
    expect(await post(await packedFor())).toMatchObject({ status: 202 });
    expect(await post(await packedFor(10_000))).toMatchObject({ status: 413, problem: { code: 'forward_too_large' } });
    expect((await status(r, m.did)).status.messageCount).toBe(1);
    expect(await m.serve({ method: 'GET', url: `${m.url}/didcomm` })).toMatchObject({ status: 405, headers: { allow: 'POST' } });
    expect(JSON.parse((await m.serve({ method: 'GET', url: `${m.url}/health` })).body!)).toMatchObject({ status: 'ok', did: m.did });
  });

  it('refuses a keylist update that would pass --max-keys, whole and with a problem report, and takes one that stays within it', async () => {
    const { m, r } = await setup({ policy: { maxKeys: 3 } });
    const [b, c, d] = [extraDid(r, m.did).did, extraDid(r, m.did).did, extraDid(r, m.did).did];
    const add = (did: string) => ({ recipientDid: did, action: 'add' as const });
    // One registered (setup) and three more would make four.
    const refused = await updateRecipients(r.router, m.did, [add(b), add(c), add(d)]).then(() => undefined, (err: unknown) => err);
    expect(refused).toMatchObject({ details: { problem: { code: 'e.p.req.keylist-full', args: [expect.stringMatching(/at most 3 recipient DIDs per party; the update would leave 4/)] } } });
    expect((await queryRecipients(r.router, m.did)).dids).toHaveLength(1);
    // Within the limit: two more, then one out and one in (still three).
    expect((await updateRecipients(r.router, m.did, [add(b), add(c)])).map((u) => u.result)).toEqual(['success', 'success']);
    const swapped = await updateRecipients(r.router, m.did, [{ recipientDid: c, action: 'remove' }, add(d)]);
    expect(swapped.map((u) => u.result)).toEqual(['success', 'success']);
    const held = (await queryRecipients(r.router, m.did)).dids;
    expect(held).toHaveLength(3);
    expect(held).toEqual(expect.arrayContaining([b, d]));
    expect(held).not.toContain(c);
  });

  it('holds --max-keys against two updates of one party at once', async () => {
    // The party's keylist listing (what the limit counts) is held until a second listing starts,
    // or 200 ms at most: two updates counted at once would see the keylist before either's add.
    const inner = await openStore();
    cleanup.push(() => inner.close());
    let armed = false;
    let first: (() => void) | undefined;
    const store: Store = {
      location: inner.location,
      batch: (ops) => inner.batch(ops),
      close: () => inner.close(),
      collection<T>(name: string) {
        const c = inner.collection<T>(name);
        if (name !== KEYLIST_COLLECTIONS.owned) return c;
        return {
          name: c.name, get: c.get.bind(c), put: c.put.bind(c), del: c.del.bind(c), count: c.count.bind(c),
          list: async (o?: ListOptions) => {
            const out = await c.list(o);
            if (!armed) return out;
            if (first) {
              armed = false;
              first();
            } else {
              await new Promise<void>((resolve) => {
                first = resolve;
                setTimeout(resolve, 200);
              });
            }
            return out;
          },
        };
      },
    };
    const { m, r } = await setup({ policy: { maxKeys: 2 } }, store);
    armed = true;
    const [b, c] = [extraDid(r, m.did).did, extraDid(r, m.did).did];
    // One registered (setup): either update alone fits, both together would make three.
    const outcomes = await Promise.all(
      [b, c].map((did) => updateRecipients(r.router, m.did, [{ recipientDid: did, action: 'add' }]).then((u) => u[0]!.result, (err: { details?: { problem?: { code?: string } } }) => err.details?.problem?.code)),
    );
    expect(outcomes.sort()).toEqual(['e.p.req.keylist-full', 'success']);
    expect((await queryRecipients(r.router, m.did)).dids).toHaveLength(2);
  });

  it('answers a forward beyond --max-queue with 503 and Retry-After, keeping what waits', async () => {
    const { m, r, s, a } = await setup({ policy: { maxQueue: 2 } });
    expect((await forward(m, s, a)).status).toBe(202);
    expect((await forward(m, s, a)).status).toBe(202);
    const full = await forward(m, s, a);
    expect(full.status).toBe(503);
    expect(Number(full.retryAfter)).toBeGreaterThan(0);
    // An anoncrypted forward has no sender to report to: the 503 itself names the refusal.
    expect(full.problem).toMatchObject({ code: 'queue_full', problemCode: 'e.p.me.res.storage.queue-full' });
    expect((await status(r, m.did)).status.messageCount).toBe(2);
  });

  it('holds a message back for delay_milli and refuses a delay over --max-delay', async () => {
    const clock = new ManualClock(Date.now());
    const { m, r, s, a } = await setup({ clock, policy: { maxDelayMs: 60_000 } });
    expect(await forward(m, s, a, { delayMilli: 120_000 })).toMatchObject({ status: 400, problem: { code: 'forward_delay_refused', problemCode: 'e.p.msg.delay-too-long' } });
    const { pingId } = await forward(m, s, a, { delayMilli: 30_000 });
    expect((await status(r, m.did)).status.messageCount).toBe(0);
    clock.advance(30_000);
    const d = await deliveryRequest(r, m.did);
    if (!isDelivery(d)) throw new Error('expected a delivery once the delay is over');
    expect((await open(r, d.messages[0]!.packed)).id).toBe(pingId);
  });

  it('pushes a held-back message live only if it still waits when due: not once expired, not once collected and confirmed', async () => {
    const clock = new ManualClock(Date.now());
    const { m, r, s, a } = await setup({ clock, policy: { maxDelayMs: 60_000 } });
    await goLive(r, m.did, `${m.url.replace(/^http/, 'ws')}/didcomm`);
    const now = Math.floor(clock.now() / 1000);
    // Held back 300 ms (the push waits that long in real time), expiring in 1 s by the mediator's clock.
    expect((await forward(m, s, a, { delayMilli: 300, expiresTime: now + 1 })).status).toBe(202);
    const expiredPush = nextPush(r, 1500).then(() => 'pushed', () => 'none');
    clock.advance(2_000);
    expect(await expiredPush).toBe('none');
    expect((await status(r, m.did)).status.messageCount).toBe(0);
    // Held back (1.5 s of real time for its push: room for a loaded machine), then collected and
    // confirmed by a delivery-request before that push was due.
    const { pingId } = await forward(m, s, a, { delayMilli: 1_500 });
    clock.advance(1_500);
    const d = await deliveryRequest(r, m.did);
    if (!isDelivery(d)) throw new Error('expected a delivery once the delay is over');
    expect((await open(r, d.messages[0]!.packed)).id).toBe(pingId);
    const confirmedPush = nextPush(r, 2500).then(() => 'pushed', () => 'none');
    await messagesReceived(r, m.did, d.messages.map((x) => x.id));
    expect(await confirmedPush).toBe('none');
  });

  it('pushes a held-back message when its timer fires, though the mediator\'s clock has not quite reached its time', async () => {
    // The timer waits delay_milli of real time; a timer may fire a little before the clock reads
    // the message's time. Here the mediator's clock stays still: the push must not be dropped.
    const clock = new ManualClock(Date.now());
    const { m, r, s, a } = await setup({ clock, policy: { maxDelayMs: 60_000 } });
    await goLive(r, m.did, `${m.url.replace(/^http/, 'ws')}/didcomm`);
    const pushed = nextPush(r, 3_000);
    const { pingId } = await forward(m, s, a, { delayMilli: 100 });
    expect((await open(r, (await pushed).messages[0]!.packed)).id).toBe(pingId);
  });

  it('drops a queued message at its expires_time, and refuses a forward already expired', async () => {
    const clock = new ManualClock(Date.now());
    const { m, r, s, a } = await setup({ clock });
    const now = Math.floor(clock.now() / 1000);
    expect(await forward(m, s, a, { expiresTime: now - 10 })).toMatchObject({ status: 400, problem: { code: 'message_expired' } });
    expect((await forward(m, s, a, { expiresTime: now + 60 })).status).toBe(202);
    expect((await status(r, m.did)).status.messageCount).toBe(1);
    clock.advance(61_000);
    expect((await status(r, m.did)).status.messageCount).toBe(0);
  });

  it('passes a forward for a DID registered at another mediator on to that mediator, when onwards forwarding is on', async () => {
    const first = await setup({ policy: { onwards: true } });
    const second = await setup();
    const queued = new Promise((resolve) => second.m.agent.events.once('forward-queued', resolve));
    // next = a DID whose service names the second mediator's DID: the first wraps it for the second.
    const relayed = new Promise((resolve) => first.m.agent.events.once('forward-relayed', resolve));
    expect((await forward(first.m, first.s, second.a)).status).toBe(202);
    await relayed;
    await queued;
    expect((await status(second.r, second.m.did)).status.messageCount).toBe(1);
    expect((await status(first.r, first.m.did)).status.messageCount).toBe(0);
  });

  it('refuses to pass a forward on, for good, to a DID whose only endpoint no transport takes', async () => {
    const first = await setup({ policy: { onwards: true } });
    const keys = [{ purpose: 'E' as const, publicKeyMultibase: toMultikey(generateKeyPair('X25519')) }, { purpose: 'V' as const, publicKeyMultibase: toMultikey(generateKeyPair('Ed25519')) }];
    const next = encodePeerDid2({ keys, services: [{ type: 'DIDCommMessaging', serviceEndpoint: { uri: 'mailto:a@example.com' } }] });
    // As for a DID that names no endpoint: 400, not a 503 asking for a resend that would fail the same way.
    expect(await forward(first.m, first.s, next)).toMatchObject({ status: 400, retryAfter: null, problem: { code: 'forward_unknown_recipient' } });
  });

  it('refuses to pass a forward on when onwards forwarding is off (the default)', async () => {
    const first = await setup();
    const second = await setup();
    expect(await forward(first.m, first.s, second.a)).toMatchObject({ status: 400, problem: { code: 'forward_unknown_recipient' } });
  });

  it('keeps grants, keylists and queues across a restart on the same folder', async () => {
    const dir = await tempDir();
    cleanup.push(() => dir.remove());
    const store = await openStore({ path: dir.file('m') });
    const port = await new Promise<number>((resolve) => {
      // A fixed port: the mediator's DID names it.
      import('node:net').then(({ createServer }) => {
        const srv = createServer().listen(0, '127.0.0.1', () => {
          const p = (srv.address() as { port: number }).port;
          srv.close(() => resolve(p));
        });
      });
    });
    const { m, r, s, a } = await setup({ port }, store);
    const { pingId } = await forward(m, s, a);
    // An expires_time so far ahead that in milliseconds it is Infinity, which JSON stores as null: it
    // must still read back as "no end", not as an end already passed.
    const far = await forward(m, s, a, { expiresTime: 1e308 });
    expect(far.status).toBe(202);
    await m.close();
    await store.close();
    const again = await openStore({ path: dir.file('m') });
    cleanup.push(() => again.close());
    const m2 = await startMediator({ store: again, port });
    cleanup.push(() => m2.close());
    expect(m2.did).toBe(m.did);
    const d = await deliveryRequest(r, m2.did);
    if (!isDelivery(d)) throw new Error('expected the queued message after the restart');
    expect(await Promise.all(d.messages.map(async (x) => (await open(r, x.packed)).id))).toEqual([pingId, far.pingId]);
  });
});
