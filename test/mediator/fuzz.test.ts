// Fuzzing the mediator with sound envelopes around unsound messages: a party granted mediation
// sends every message type the mediator handles (coordinate-mediation 2.0 and 3.0, pickup 3.0,
// routing forward, trust-ping, discover-features), each body and header filled from a seeded
// generator, authcrypted (anoncrypted for forwards) as a real client would, over HTTP and on a
// WebSocket. Nothing a user sends may crash a server or produce a 500: every answer is under 500,
// no handler fails with an uncoded error (internal_error), and afterwards the mediator still
// queues, counts and delivers a well-formed forward, and the party's registration is intact.
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { pack } from '../../src/didcomm/envelope/index.js';
import { MEDIA_TYPES, type PlainMessage } from '../../src/didcomm/types.js';
import { b64uDecodeText, b64uEncode } from '../../src/encoding.js';
import { startMediator, type RunningMediator } from '../../src/mediator/server.js';
import { queryRecipients, requestMediation, updateRecipients } from '../../src/protocols/coordinate-mediation.js';
import { wrapForMediator } from '../../src/protocols/routing.js';
import { TRUST_PING } from '../../src/protocols/trust-ping.js';
import { openStore, type Store } from '../../src/store/store.js';
import { draw } from '../fuzz-kit.js';
import { deliveryRequest, extraDid, messagesReceived, party, sender, status, type Delivered, type Party } from './parties.js';

const CM2 = 'https://didcomm.org/coordinate-mediation/2.0';
const CM3 = 'https://didcomm.org/coordinate-mediation/3.0';
const PICKUP = 'https://didcomm.org/messagepickup/3.0';
const FORWARD = 'https://didcomm.org/routing/2.0/forward';

/** Each type with the body members its protocol names (filled with anything, or left out). */
const TYPES: Record<string, string[]> = {
  [`${CM2}/mediate-request`]: [],
  [`${CM2}/keylist-update`]: ['updates'],
  [`${CM2}/keylist-query`]: ['paginate'],
  [`${CM3}/mediate-request`]: [],
  [`${CM3}/recipient-update`]: ['updates'],
  [`${CM3}/recipient-query`]: ['paginate'],
  [`${PICKUP}/status-request`]: ['recipient_did'],
  [`${PICKUP}/delivery-request`]: ['limit', 'recipient_did'],
  [`${PICKUP}/messages-received`]: ['message_id_list'],
  [`${PICKUP}/live-delivery-change`]: ['live_delivery'],
  [TRUST_PING.ping]: ['response_requested'],
  'https://didcomm.org/discover-features/2.0/queries': ['queries'],
  [FORWARD]: ['next'],
};

describe('fuzzing the mediator with sound envelopes', () => {
  let store: Store;
  let m: RunningMediator;
  let r: Party;
  let s: Party;
  let a: string;
  const uncoded: unknown[] = [];

  beforeAll(async () => {
    store = await openStore();
    m = await startMediator({ store, policy: { maxKeys: 40, maxQueue: 500 } });
    m.agent.events.on('inbound', (e: { code?: string }) => void (e.code === 'internal_error' && uncoded.push(e)));
    m.agent.events.on('mediator-error', (e: unknown) => void uncoded.push(e));
    r = party();
    s = sender();
    a = extraDid(r, m.did).did;
    await requestMediation(r.router, m.did, '2.0');
    await updateRecipients(r.router, m.did, [{ recipientDid: a, action: 'add' }]);
  });
  afterAll(async () => {
    await m.close();
    await r.close();
    await s.close();
    await store.close();
  });

  function generator(seed: number) {
    const { rnd, int, pick, value } = draw(seed, () => ['did:peer:2', 'did:example:nobody', a, r.did, m.did, s.did, `${a}#key-1`, 'add', 'remove', 'ADD', 'all', 'none', 'thread']);
    const strings = () => ['', '0', '../x', 'did:example:nobody', 'x'.repeat(300)];
    const dids = () => [a, r.did, m.did, s.did, `${a}#key-1`, 'did:example:nobody', 'did:peer:2', 'did:peer:2.Ez6LS', 'did:key:z6Mk', `${a}?x=1`, a.toUpperCase(), `${a} `];
    /** A value of the shape the member's protocol names, at its edges (a DID nobody holds, a limit of 0, a list of 50). */
    function nearValid(member: string): unknown {
      const ints = [0, 1, -1, 2.5, 50, 10_000, 1e9, Number.MAX_SAFE_INTEGER];
      switch (member) {
        case 'updates':
          return Array.from({ length: int(rnd() < 0.1 ? 50 : 5) }, () => ({ recipient_did: pick(dids()), action: pick(['add', 'remove', 'add', 'remove', 'update']) }));
        case 'paginate':
          return { limit: pick(ints), offset: pick(ints) };
        case 'recipient_did':
        case 'next':
          return pick(dids());
        case 'limit':
          return pick(ints);
        case 'message_id_list':
          return Array.from({ length: int(6) }, () => pick([crypto.randomUUID(), '', '0', '../x', 'x'.repeat(500), `${int(1e6)}`]));
        case 'live_delivery':
        case 'response_requested':
          return rnd() < 0.5;
        case 'queries':
          return Array.from({ length: int(4) }, () => ({ 'feature-type': pick(['protocol', 'goal-code', 'header', 'x']), match: pick(['*', 'https://didcomm.org/*', '', '**', '[', '(a+)+$', `${'a*'.repeat(40)}b`, 'https://didcomm.org/messagepickup/3.0']) }));
        default:
          return value(1);
      }
    }
    /** One message of a type the mediator handles, its body and some headers filled from the generator. */
    function message(): PlainMessage {
      const type = pick(Object.keys(TYPES));
      const body: Record<string, unknown> = {};
      for (const k of TYPES[type]!) if (rnd() < 0.9) body[k] = rnd() < 0.7 ? nearValid(k) : value();
      if (rnd() < 0.2) body[pick(['extra', '__proto__', 'constructor'])] = value(1);
      // id a non-empty string and body an object: pack() refuses anything else before any envelope.
      const msg: Record<string, unknown> = { id: rnd() < 0.9 ? crypto.randomUUID() : `${pick(strings())}${int(1000)}`, type, body };
      if (rnd() < 0.5) msg.return_route = rnd() < 0.85 ? 'all' : value(1);
      if (rnd() < 0.15) msg.thid = rnd() < 0.7 ? crypto.randomUUID() : value(1);
      if (rnd() < 0.1) msg.pthid = rnd() < 0.7 ? crypto.randomUUID() : value(1);
      if (rnd() < 0.1) msg.expires_time = rnd() < 0.7 ? pick([0, 1, Math.floor(Date.now() / 1000) - 10, Math.floor(Date.now() / 1000) + 3600, 1e12]) : value(1);
      if (rnd() < 0.1) msg.created_time = rnd() < 0.7 ? pick([0, -1, Math.floor(Date.now() / 1000), 1e12]) : value(1);
      if (rnd() < 0.05) msg.please_ack = value(1);
      if (type === FORWARD) {
        if (rnd() < 0.1) msg.delay_milli = pick([0, 1, -5, 2.5, 1e12]);
        if (rnd() < 0.3) msg.body = { ...body, next: a };
        msg.attachments = rnd() < 0.8 ? [{ id: crypto.randomUUID(), data: rnd() < 0.5 ? { json: value(1) } : { base64: pick(['', 'e30', '!!!', 'eyJhIjoxfQ']) } }] : value(1);
      }
      return msg as unknown as PlainMessage;
    }
    return { rnd, message };
  }

  /** Packed as a client would: a forward anoncrypted from anyone, the rest authcrypted from the party. */
  async function packed(msg: PlainMessage): Promise<string> {
    const forward = msg.type === FORWARD;
    const to = [m.did];
    return (await pack({ ...msg, to, ...(forward ? {} : { from: r.did }) } as PlainMessage, { mode: forward ? 'anoncrypt' : 'authcrypt', to: m.did, forward: false }, forward ? s.envelope : r.envelope)).packed;
  }

  it('answers every message over HTTP under 500, and no handler fails uncoded', async () => {
    uncoded.length = 0;
    const { message } = generator(Number(process.env.FUZZ_SEED ?? 20261129));
    const statuses = new Map<number, number>();
    for (let i = 0; i < 400; i++) {
      const msg = message();
      const res = await fetch(`${m.url}/didcomm`, { method: 'POST', headers: { 'content-type': MEDIA_TYPES.encrypted }, body: await packed(msg) });
      const text = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status >= 500 && res.status !== 503) expect.fail(`${res.status} for ${JSON.stringify(msg).slice(0, 300)}: ${text.slice(0, 300)}`);
    }
    await m.agent.idle();
    expect(uncoded).toEqual([]);
    // The generator reached both sides: messages taken (202, or 200 with an answer) and refused (4xx).
    expect([...statuses.keys()].some((st) => st < 300)).toBe(true);
    expect([...statuses.keys()].some((st) => st >= 400 && st < 500)).toBe(true);
  });

  it('takes the same on a WebSocket without closing it, and no handler fails uncoded', async () => {
    uncoded.length = 0;
    const { message } = generator(Number(process.env.FUZZ_SEED ?? 4242) + 1);
    const ws = new WebSocket(`${m.url.replace(/^http/, 'ws')}/didcomm`);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    let closed = false;
    ws.on('close', () => void (closed = true));
    const frames: string[] = [];
    ws.on('message', (d) => void frames.push(d.toString()));
    for (let i = 0; i < 200; i++) ws.send(await packed(message()));
    // A trust-ping asking for an answer on this socket, sent last: its answer means every frame before it was taken.
    const ping = { id: crypto.randomUUID(), type: TRUST_PING.ping, body: { response_requested: true }, return_route: 'all' } as unknown as PlainMessage;
    ws.send(await packed(ping));
    const deadline = Date.now() + 10_000;
    let answered = false;
    while (!answered && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 20));
      for (const f of frames.splice(0)) {
        await r.router.receive(f, { transport: 'ws' }).catch(() => undefined);
      }
      answered = r.inbox.some((x) => x.type === TRUST_PING.pingResponse && x.thid === ping.id);
    }
    expect(answered).toBe(true);
    expect(closed).toBe(false);
    ws.close();
    await m.agent.idle();
    expect(uncoded).toEqual([]);
  });

  it("takes an envelope whose epk names a member every object inherits (kty 'constructor') without a 500", async () => {
    // The envelope rules looked the kty up in a plain object: "constructor" found Object's, and threw.
    for (const kty of ['constructor', 'toString', '__proto__']) {
      const packedPing = await packed({ id: crypto.randomUUID(), type: TRUST_PING.ping, body: {} } as unknown as PlainMessage);
      const jwe = JSON.parse(packedPing) as { protected: string };
      const header = JSON.parse(b64uDecodeText(jwe.protected)) as { epk: Record<string, unknown> };
      header.epk.kty = kty;
      jwe.protected = b64uEncode(JSON.stringify(header));
      const res = await fetch(`${m.url}/didcomm`, { method: 'POST', headers: { 'content-type': MEDIA_TYPES.encrypted }, body: JSON.stringify(jwe) });
      expect(res.status).toBeLessThan(500);
    }
  });

  it('still queues, counts and delivers a well-formed forward, and keeps the registration', async () => {
    // A fuzzed keylist-update may have removed `a` (its strings include it, and "remove"): put back.
    if (!(await queryRecipients(r.router, m.did, '2.0')).dids.includes(a)) await updateRecipients(r.router, m.did, [{ recipientDid: a, action: 'add' }]);
    expect((await queryRecipients(r.router, m.did, '2.0')).dids).toContain(a);
    // Whatever the fuzzing left queued for `a` (a forward that opened with next: a), confirmed first.
    for (;;) {
      const got = await deliveryRequest(r, m.did, 50, a);
      if (!Array.isArray((got as Delivered).messages)) break;
      await messagesReceived(r, m.did, (got as Delivered).messages.map((x) => x.id));
    }
    const ping = { id: crypto.randomUUID(), type: TRUST_PING.ping, from: s.did, to: [a], body: { response_requested: false } };
    const inner = (await pack(ping, { mode: 'authcrypt', to: a, forward: false }, s.envelope)).packed;
    const { packed: fwd } = await wrapForMediator(inner, { next: a, mediator: m.did }, s.envelope, { clock: systemClock });
    const res = await fetch(`${m.url}/didcomm`, { method: 'POST', headers: { 'content-type': MEDIA_TYPES.encrypted }, body: fwd });
    expect(res.status).toBe(202);
    expect((await status(r, m.did, a)).status.messageCount).toBe(1);
    const got = await deliveryRequest(r, m.did, 10, a);
    expect(Array.isArray((got as Delivered).messages)).toBe(true);
    expect((got as Delivered).messages.map((x) => JSON.parse(x.packed) as unknown)).toEqual([JSON.parse(inner)]);
    await messagesReceived(r, m.did, (got as Delivered).messages.map((x) => x.id));
    // Scoped to `a`: the party's own DID holds the answers to what it sent without return_route.
    expect((await status(r, m.did, a)).status.messageCount).toBe(0);
  });
});
