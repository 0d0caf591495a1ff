// Replies (without an explicit `from`) and the router's own problem reports go out from the form
// of our DID the message was addressed to, authcrypted with the sender key id in that same form.
import { describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { createIonDid } from '../../src/did/ion.js';
import { createPeerDid } from '../../src/did/peer.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { didOf } from '../../src/didcomm/message.js';
import { createRouter, transportOutbound, type Outbound, type PackFn, type Router } from '../../src/router/router.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import { memoryNetwork } from '../../src/didcomm/transport/memory.js';
import type { PackOptions, PlainMessage } from '../../src/didcomm/types.js';
import { b64uDecodeText } from '../../src/encoding.js';
import { basicProtocols } from '../../src/protocols/basic.js';
import { PROBLEM_REPORT } from '../../src/protocols/report-problem.js';
import { TRUST_PING, ping } from '../../src/protocols/trust-ping.js';
import { stubContext, stubJwe, stubPack, stubUnpack } from '../protocols/stub-envelope.js';

const ALICE = 'did:example:alice';
const wallet = createIonDid();
const LONG = wallet.did;
const SHORT = wallet.shortDid!;

/** A wallet-like router (long form first, as the wallet registers them) over stub envelopes. */
function ionRouter(myDids: string[] = [LONG, SHORT]) {
  const sent: PlainMessage[] = [];
  const packs: PackOptions[] = [];
  // The stub writes `${from}#key-2` as skid: hand it the DID and keep the kid the router asked for.
  const pack: PackFn = async (m, o, c) => {
    packs.push(o);
    return stubPack(m, { ...o, from: o.from ? didOf(o.from) : undefined }, c);
  };
  const send: Outbound = async (packed) => {
    const value = JSON.parse(packed) as { ciphertext?: string };
    sent.push(JSON.parse(value.ciphertext ? b64uDecodeText(value.ciphertext) : packed) as PlainMessage);
  };
  const router = createRouter({ envelope: stubContext, pack, unpack: stubUnpack, clock: new ManualClock(), ids: sequentialIds('w'), myDids, send }).use(...basicProtocols());
  return { router, sent, packs };
}

function pingTo(to: string[] | undefined, toKid: string, id = 'ping-1'): string {
  return stubJwe({ id, type: TRUST_PING.ping, from: ALICE, ...(to ? { to } : {}), body: { response_requested: true } }, toKid, `${ALICE}#key-2`);
}

describe('router reply from', () => {
  it('replies from the short form when the message was addressed to the short form', async () => {
    const { router, sent, packs } = ionRouter();
    expect((await router.receive(pingTo([SHORT], `${SHORT}#key-2`))).status).toBe('handled');
    expect(sent[0]).toMatchObject({ type: TRUST_PING.pingResponse, from: SHORT, to: [ALICE], thid: 'ping-1' });
    expect(packs[0]).toMatchObject({ mode: 'authcrypt', from: `${SHORT}#key-2`, to: ALICE });
  });

  it('replies from the long form when the message was addressed to the long form', async () => {
    const { router, sent, packs } = ionRouter([SHORT, LONG]);
    await router.receive(pingTo([LONG], `${LONG}#key-2`));
    expect(sent[0].from).toBe(LONG);
    expect(packs[0].from).toBe(`${LONG}#key-2`);
  });

  it('writes the sender key id in the form of from, whatever form the envelope used', async () => {
    const { router, sent, packs } = ionRouter();
    await router.receive(pingTo([SHORT], `${LONG}#key-2`));
    expect(sent[0].from).toBe(SHORT);
    expect(packs[0].from).toBe(`${SHORT}#key-2`);
  });

  it('falls back to the DID of the envelope recipient key when to names none of our DIDs', async () => {
    const { router, sent } = ionRouter();
    await router.receive(pingTo(undefined, `${SHORT}#key-2`));
    expect(sent[0].from).toBe(SHORT);
  });

  it('falls back to our first DID when neither to nor the envelope names one of ours', async () => {
    const { router, sent, packs } = ionRouter();
    await router.receive(JSON.stringify({ id: 'p-1', type: TRUST_PING.ping, from: ALICE, body: { response_requested: true } }));
    expect(sent[0]).toMatchObject({ type: TRUST_PING.pingResponse, from: LONG });
    expect(packs[0].mode).toBe('plaintext');
  });

  it('sends its own problem reports from the form the message was addressed to', async () => {
    const { router, sent, packs } = ionRouter();
    const packed = stubJwe({ id: 'x-1', type: 'https://example.org/lunch/1.0/proposal', from: ALICE, to: [SHORT], body: {} }, `${SHORT}#key-2`, `${ALICE}#key-2`);
    expect((await router.receive(packed)).problemCode).toBe('e.p.msg.unsupported');
    expect(sent[0]).toMatchObject({ type: PROBLEM_REPORT, from: SHORT, pthid: 'x-1' });
    expect(packs[0].from).toBe(`${SHORT}#key-2`);
  });

  it('keeps the from a handler names in its reply draft', async () => {
    const { router, sent } = ionRouter();
    router.use({
      piuri: 'https://example.org/echo/1.0',
      handlers: { say: (ctx) => void ctx.reply({ type: 'https://example.org/echo/1.0/said', from: LONG, body: {} }) },
    });
    await router.receive(stubJwe({ id: 's-1', type: 'https://example.org/echo/1.0/say', from: ALICE, to: [SHORT], body: {} }, `${SHORT}#key-2`, `${ALICE}#key-2`));
    expect(sent[0].from).toBe(LONG);
  });

  it('tells handlers the form of our DID the message was addressed to', async () => {
    const { router } = ionRouter();
    let me: string | undefined;
    router.use({ piuri: 'https://example.org/echo/1.0', handlers: { say: (ctx) => void (me = ctx.me) } });
    await router.receive(stubJwe({ id: 's-2', type: 'https://example.org/echo/1.0/say', from: ALICE, to: [SHORT], body: {} }, `${SHORT}#key-2`, `${ALICE}#key-2`));
    expect(me).toBe(SHORT);
  });

  it('leaves the sender key to the envelope when the message was only anoncrypted', async () => {
    const { router, sent, packs } = ionRouter();
    await router.receive(stubJwe({ id: 'a-1', type: TRUST_PING.ping, to: [SHORT], body: { response_requested: true } }, `${SHORT}#key-2`));
    // Anonymous sender: nobody to reply to, nothing sent.
    expect(sent).toEqual([]);
    expect(packs).toEqual([]);
  });
});

describe('router reply from, over real envelopes', () => {
  /** A did:ion wallet and a did:peer service on a memory network; both know the wallet's short form. */
  function parties() {
    const network = memoryNetwork();
    const clock = new ManualClock();
    const w = createIonDid({ endpoint: 'memory://wallet' });
    const s = createPeerDid({ endpoint: 'memory://service' });
    const resolve = documentResolver(createResolver({ cache: false, registry: { get: async (did) => (did === w.shortDid ? w.did : undefined) } }));
    const make = (name: string, myDids: string[], secrets: typeof w.secrets): Router => {
      const router = createRouter({ envelope: { resolve, secrets: memorySecrets(secrets) }, clock, ids: sequentialIds(name), myDids, send: transportOutbound(network.transport()) }).use(
        ...basicProtocols(),
      );
      network.endpoint(`memory://${name}`, (packed, info) => router.inbound(packed, info));
      return router;
    };
    return { w, wallet: make('wallet', [w.did, w.shortDid!], w.secrets), service: make('service', [s.did], s.secrets) };
  }

  it('answers a ping to the short form from the short form with a short-form sender key id', async () => {
    const { w, wallet, service } = parties();
    const sent: { message: PlainMessage; packed: string }[] = [];
    wallet.events.on('sent', (e: { message: PlainMessage; packed: string }) => void sent.push(e));
    const received = service.waitFor<{ metadata: { encryptedFromKid?: string } }>('handled');
    const { response } = await ping(service, w.shortDid!);
    expect(response.from).toBe(w.shortDid);
    expect((await received).metadata.encryptedFromKid).toBe(`${w.shortDid}#key-2`);
    // The long form (~1 KB of suffix data) appears nowhere in the reply's envelope.
    expect(sent[0].packed).not.toContain(w.did);
  });

  it('answers a ping to the long form from the long form', async () => {
    const { w, wallet, service } = parties();
    const received = service.waitFor<{ metadata: { encryptedFromKid?: string } }>('handled');
    const { response } = await ping(service, w.did);
    expect(response.from).toBe(w.did);
    expect((await received).metadata.encryptedFromKid).toBe(`${w.did}#key-2`);
    expect(wallet.dids()).toEqual([w.did, w.shortDid]);
  });
});
