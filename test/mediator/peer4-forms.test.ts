// A party with a did:peer:4 at the standalone mediator, over real sockets. DID Peer §Method 4: the
// long form goes in a first message, the short form after it; both name one party. So a DID
// registered in one form takes forwards addressed to the other (and to key ids on it), another
// party cannot register the other form, and a party's pickups and live connection, in either form,
// reach what waits under either.
import { afterEach, describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { shortForm } from '../../src/did/short-form.js';
import { requestMediation, updateRecipients } from '../../src/protocols/coordinate-mediation.js';
import { TRUST_PING } from '../../src/protocols/trust-ping.js';
import { startMediator, type RunningMediator } from '../../src/mediator/server.js';
import { openStore } from '../../src/store/store.js';
import { deliveryRequest, goLive, messagesReceived, nextPush, open, party, status, type Delivered, type Party } from './parties.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const isDelivery = (d: unknown): d is Delivered => Array.isArray((d as Delivered).messages);

/**
 * A mediator; a recipient `r` with a did:peer:4 whose endpoint is the mediator's DID, granted
 * mediation under its long form; a sender `s` that has seen r's long form (so it may address r by
 * either form). `mediatorKnowsShortForms`: the mediator resolves r's short form (it holds the long
 * form, as §Method 4 "Short form" asks of a party that saw it), so r may also send in that form.
 */
async function setup(o: { mediatorKnowsShortForms?: boolean } = {}) {
  const store = await openStore();
  // The mediator's resolver: did:peer:4 short forms of the long forms it holds (§Method 4 "Short form").
  const longForms = new Map<string, string>();
  const resolve = documentResolver(createResolver({ cache: false, registry: { get: async (did) => longForms.get(did) } }));
  const m = await startMediator({ store, ...(o.mediatorKnowsShortForms ? { resolve } : {}) });
  const r = party({ peer4: true, endpoint: m.did });
  const long = r.created.did;
  const short = r.created.shortDid!;
  longForms.set(short, long);
  const s = party({ knows: [long] });
  cleanup.push(() => store.close(), () => m.close(), () => r.close(), () => s.close());
  expect(long).not.toBe(short);
  expect(shortForm(long)).toBe(short);
  expect((await requestMediation(r.router, m.did, '2.0')).granted).toBe(true);
  return { store, m, r, s, long, short };
}

async function ping(s: Party, to: string): Promise<string> {
  const sent = await s.router.send({ type: TRUST_PING.ping, body: { response_requested: false } }, { to });
  return sent.message.id;
}

/** Collects everything waiting for `p` in one delivery, checks it is what was sent, and confirms it. */
async function collect(p: Party, m: RunningMediator, expected: string[]): Promise<void> {
  const d = await deliveryRequest(p, m.did, 10);
  if (!isDelivery(d)) throw new Error(`expected a delivery, got a status ${JSON.stringify(d.status)}`);
  const ids = await Promise.all(d.messages.map(async (x) => (await open(p, x.packed)).id));
  expect(ids.sort()).toEqual([...expected].sort());
  expect(await messagesReceived(p, m.did, d.messages.map((x) => x.id))).toMatchObject({ messageCount: 0 });
}

describe('a did:peer:4 party at the mediator, in either form', () => {
  it('takes forwards to the short form (and a key id on it) for a DID registered in its long form', async () => {
    const { m, r, s, long, short } = await setup();
    expect(await updateRecipients(r.router, m.did, [{ recipientDid: long, action: 'add' }])).toEqual([{ recipientDid: long, action: 'add', result: 'success' }]);
    const first = await ping(s, short);
    const second = await ping(s, long);
    expect((await status(r, m.did)).status.messageCount).toBe(2);
    expect((await status(r, m.did, short)).status).toMatchObject({ messageCount: 2, recipientDid: short });
    await collect(r, m, [first, second]);
    expect(await m.agent.mediator.keylist.lookup(`${short}#key-1`)).toMatchObject({ recipientDid: long, owner: long });
  });

  it('takes forwards to the long form for a DID registered in its short form', async () => {
    const { m, r, s, long, short } = await setup();
    await updateRecipients(r.router, m.did, [{ recipientDid: short, action: 'add' }]);
    // Adding the other form is no change: it is the same DID.
    expect(await updateRecipients(r.router, m.did, [{ recipientDid: long, action: 'add' }])).toEqual([{ recipientDid: long, action: 'add', result: 'no_change' }]);
    const first = await ping(s, long);
    const second = await ping(s, short);
    expect((await status(r, m.did)).status.messageCount).toBe(2);
    expect((await status(r, m.did, long)).status).toMatchObject({ messageCount: 2, recipientDid: long });
    await collect(r, m, [first, second]);
  });

  it("refuses another party's registration of the short form of a party granted under its long form", async () => {
    const { m, r, s, short } = await setup();
    const other = party();
    cleanup.push(() => other.close());
    await requestMediation(other.router, m.did, '2.0');
    for (const did of [short, `${short}#key-1`]) {
      await expect(updateRecipients(other.router, m.did, [{ recipientDid: did, action: 'add' }])).rejects.toMatchObject({ code: 'mediation_update_failed', message: expect.stringMatching(/client_error$/) });
    }
    // r's own: registered and collected by r, never by the other party.
    await updateRecipients(r.router, m.did, [{ recipientDid: short, action: 'add' }]);
    const id = await ping(s, short);
    expect((await status(other, m.did)).status.messageCount).toBe(0);
    await collect(r, m, [id]);
  });

  it('counts, for a party asking in its short form, what waits for DIDs it registered in its long form', async () => {
    const { m, r, s, long, short } = await setup({ mediatorKnowsShortForms: true });
    await updateRecipients(r.router, m.did, [{ recipientDid: long, action: 'add' }]);
    const id = await ping(s, short);
    const asShort = party({ created: r.created, as: short });
    cleanup.push(() => asShort.close());
    expect((await status(asShort, m.did)).status.messageCount).toBe(1);
    await collect(asShort, m, [id]);
  });

  it('pushes, on a connection made live in one form, a forward addressed to the other', async () => {
    const { m, r, s, long, short } = await setup({ mediatorKnowsShortForms: true });
    await updateRecipients(r.router, m.did, [{ recipientDid: long, action: 'add' }]);
    // The party turns live mode on in its short form (after first contact, §Method 4).
    const asShort = party({ created: r.created, as: short });
    cleanup.push(() => asShort.close());
    const wsEndpoint = `${m.url.replace(/^http/, 'ws')}/didcomm`;
    expect(await goLive(asShort, m.did, wsEndpoint)).toMatchObject({ liveDelivery: true });
    expect(m.agent.mediator.live.has(long)).toBe(true);
    let pushed = nextPush(asShort, 2000);
    const toLong = await ping(s, long);
    expect((await open(asShort, (await pushed).messages[0]!.packed)).id).toBe(toLong);
    pushed = nextPush(asShort, 2000);
    const toShort = await ping(s, short);
    expect((await open(asShort, (await pushed).messages[0]!.packed)).id).toBe(toShort);
  });
});
