// Fuzzing with the sender's own DID: a did:peer:2 is whatever its author wrote, and a party that
// answers reads its services to find where. Each sender here holds the keys of a did:peer:2 whose
// services are drawn from a seeded generator (endpoints that refuse, that name the receiver's own
// DID or the sender's, URLs of other schemes, objects and lists where strings belong, routing keys
// that are no keys) and sends an authcrypted trust-ping asking for an answer, with no return route,
// to the mediator over HTTP and to the service twin's agent. Nothing answers 500 (an answer that
// could not be delivered yet is a coded 503 with Retry-After; one no transport can carry, a 400),
// no handler fails uncoded, no answer loops, and both still answer a well-formed ping afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretFor } from '../../src/did/document.js';
import { encodePeerDid2, resolvePeerDid } from '../../src/did/peer.js';
import type { CreatedDid } from '../../src/did/types.js';
import { pack } from '../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import { MEDIA_TYPES, type EnvelopeContext, type PlainMessage } from '../../src/didcomm/types.js';
import { generateKeyPair, toMultikey } from '../../src/keys.js';
import { startMediator, type RunningMediator } from '../../src/mediator/server.js';
import { TRUST_PING } from '../../src/protocols/trust-ping.js';
import { openStore, type Store } from '../../src/store/store.js';
import { memoryHarness, type MemoryHarness } from '../service/didcomm/harness.js';
import { draw } from '../fuzz-kit.js';
import { party, type Party } from './parties.js';

describe("fuzzing with the sender's own did:peer:2", () => {
  let store: Store;
  let m: RunningMediator;
  let h: MemoryHarness;
  let plain: Party;
  const uncoded: unknown[] = [];

  beforeAll(async () => {
    store = await openStore();
    m = await startMediator({ store });
    m.agent.events.on('inbound', (e: { code?: string }) => void (e.code === 'internal_error' && uncoded.push({ at: 'mediator', ...e })));
    m.agent.events.on('mediator-error', (e: object) => void uncoded.push({ at: 'mediator', ...e }));
    h = await memoryHarness();
    h.agent.events.on('received', (e: { code?: string }) => void (e.code === 'internal_error' && uncoded.push({ at: 'service', ...e })));
    plain = party();
  });
  afterAll(async () => {
    await m.close();
    await plain.close();
    await store.close();
    await h.close();
  });

  it('answers or drops each ping, coded, without a 500 or a loop', async () => {
    const { rnd, int, pick, value } = draw(Number(process.env.FUZZ_SEED ?? 20261129), () => [m.did, h.service.deps.serviceDid]);
    const endpoints = (self: string) => [
      'http://127.0.0.1:1/didcomm', 'ws://127.0.0.1:1', 'https://127.0.0.1:1', 'did:example:nobody', m.did, h.service.deps.serviceDid, self,
      `${m.url}/didcomm`, 'file:///etc/passwd', 'javascript:alert(1)', 'mailto:a@example.com', '', 'x', `${m.url}/nowhere`,
    ];
    function service(self: string): Record<string, unknown> {
      const s: Record<string, unknown> = { type: rnd() < 0.85 ? 'DIDCommMessaging' : value(2) };
      const uri = rnd() < 0.85 ? pick(endpoints(self)) : value(2);
      s.serviceEndpoint = rnd() < 0.6
        ? { uri, ...(rnd() < 0.5 ? { routingKeys: rnd() < 0.6 ? [pick([`${m.did}#key-1`, `${self}#key-1`, 'did:example:nobody#k', 'x'])] : value(2) } : {}), ...(rnd() < 0.3 ? { accept: value(2) } : {}) }
        : rnd() < 0.7 ? uri : [{ uri }, value(2)];
      if (rnd() < 0.2) s.id = value(2);
      return s;
    }
    /** A did:peer:2 whose keys we hold and whose services are drawn; undefined when it does not resolve. */
    function sender(): { did: string; envelope: EnvelopeContext } | undefined {
      const agree = generateKeyPair('X25519');
      const auth = generateKeyPair('Ed25519');
      const keys = [{ purpose: 'E' as const, publicKeyMultibase: toMultikey(agree) }, { purpose: 'V' as const, publicKeyMultibase: toMultikey(auth) }];
      // The services may name the DID itself: drawn against a placeholder, then against the DID made without them.
      const selfless = encodePeerDid2({ keys });
      const did = encodePeerDid2({ keys, services: Array.from({ length: 1 + int(2) }, () => service(selfless)) });
      let created: CreatedDid;
      try {
        created = { did, document: resolvePeerDid(did), secrets: [secretFor(`${did}#key-1`, agree), secretFor(`${did}#key-2`, auth)] };
      } catch {
        return undefined;
      }
      const resolve = async (d: string) => (d === did ? created.document : d === h.service.deps.serviceDid ? h.service.deps.identity.document : plain.envelope.resolve(d));
      return { did, envelope: { resolve, secrets: memorySecrets(created.secrets) } };
    }

    let sent = 0;
    for (let i = 0; i < 40; i++) {
      const s = sender();
      if (!s) continue;
      for (const to of [m.did, h.service.deps.serviceDid]) {
        const ping = { id: crypto.randomUUID(), type: TRUST_PING.ping, from: s.did, to: [to], body: { response_requested: true } } as PlainMessage;
        const packed = (await pack(ping, { mode: 'authcrypt', to, forward: false }, s.envelope)).packed;
        if (to === m.did) {
          const res = await fetch(`${m.url}/didcomm`, { method: 'POST', headers: { 'content-type': MEDIA_TYPES.encrypted }, body: packed });
          const text = await res.text();
          // An answer that could not be delivered leaves the ping free to be sent again: 503 with
          // Retry-After, coded (the router's "may pass"), never a 500.
          if (res.status >= 500) {
            expect(res.status).toBe(503);
            expect(res.headers.get('retry-after')).not.toBeNull();
            expect((JSON.parse(text) as { code?: string }).code).toBe('temporarily_unavailable');
          }
        } else {
          await h.agent.receive(packed, { transport: 'http' });
        }
        sent++;
      }
    }
    await m.agent.idle();
    await h.agent.idle();
    expect(sent).toBeGreaterThan(40);
    expect(uncoded).toEqual([]);
  });

  it('the mediator refuses for good a ping whose answer no transport can carry: 400 and the same again, not 503 for ever', async () => {
    // DIDComm v2.1 §Problem Codes: `did` is "DID is unusable ... its DID doc lacks required data";
    // a DID naming only endpoints of a scheme no transport takes stays so, whatever is resent.
    // (The twin keeps such an answer for the sender to pick up, and takes the ping: 202.)
    const agree = generateKeyPair('X25519');
    const auth = generateKeyPair('Ed25519');
    const did = encodePeerDid2({
      keys: [{ purpose: 'E', publicKeyMultibase: toMultikey(agree) }, { purpose: 'V', publicKeyMultibase: toMultikey(auth) }],
      services: [{ type: 'DIDCommMessaging', serviceEndpoint: { uri: 'mailto:a@example.com' } }],
    });
    const document = resolvePeerDid(did);
    const envelope: EnvelopeContext = {
      resolve: async (d) => (d === did ? document : d === h.service.deps.serviceDid ? h.service.deps.identity.document : plain.envelope.resolve(d)),
      secrets: memorySecrets([secretFor(`${did}#key-1`, agree), secretFor(`${did}#key-2`, auth)]),
    };
    const ping = { id: crypto.randomUUID(), type: TRUST_PING.ping, from: did, to: [m.did], body: { response_requested: true } } as PlainMessage;
    const packed = (await pack(ping, { mode: 'authcrypt', to: m.did, forward: false }, envelope)).packed;
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${m.url}/didcomm`, { method: 'POST', headers: { 'content-type': MEDIA_TYPES.encrypted }, body: packed });
      expect(res.status, `attempt ${i + 1}`).toBe(400);
      expect(res.headers.get('retry-after')).toBeNull();
      expect(await res.json()).toMatchObject({ code: 'unsupported_scheme', problemCode: 'e.p.did.unusable-endpoint' });
    }
  });

  it('both still answer a well-formed ping', async () => {
    const ping = { id: crypto.randomUUID(), type: TRUST_PING.ping, from: plain.did, to: [m.did], body: { response_requested: true }, return_route: 'all' } as unknown as PlainMessage;
    const packed = (await pack(ping, { mode: 'authcrypt', to: m.did, forward: false }, plain.envelope)).packed;
    const res = await fetch(`${m.url}/didcomm`, { method: 'POST', headers: { 'content-type': MEDIA_TYPES.encrypted }, body: packed });
    expect(res.status).toBe(200);
    const holder = h.holder();
    const { ping: sendPing } = await import('../../src/protocols/trust-ping.js');
    const { response } = await sendPing(holder.router, h.service.deps.serviceDid);
    expect(response.thid).toBeDefined();
  });
});
