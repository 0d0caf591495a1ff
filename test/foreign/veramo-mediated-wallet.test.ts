// idsync's wallet behind Veramo 7's mediator handlers (veramo-agent.ts, `mediator: true`): where it
// stops, and why. docs/mediation.md "Behind Veramo's mediator handlers" cites the Veramo code for
// each stop; veramo-mediator-verdicts.test.ts is what the mediator suite finds there.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPeerDid } from '../../src/did/peer.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { sameDid } from '../../src/didcomm/message.js';
import { pack, unpack } from '../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import { openLeniently } from '../../src/didcomm/envelope/diagnose.js';
import { mediationTypes } from '../../src/protocols/coordinate-mediation.js';
import { openStore, type Store } from '../../src/store/store.js';
import { createWallet } from '../../src/wallet/wallet.js';
import { startVeramoAgent, type VeramoHandle } from './veramo-agent.js';

let veramo: VeramoHandle;
const stores: Store[] = [];

beforeAll(async () => {
  // MessagingRouter console.errors every refusal; the answers are recorded instead.
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  veramo = await startVeramoAgent({ mediator: true });
});
afterAll(async () => {
  await veramo?.close();
  for (const s of stores) await s.close();
});

async function tryWallet(version: '2.0' | '3.0' | 'auto') {
  const store = await openStore();
  stores.push(store);
  const w = createWallet({ store, mediator: veramo.did, mediation: { version, collect: false } });
  const before = veramo.answers.length;
  const outcome = await w.init().then(() => 'granted', (err: { code: string; details?: Record<string, unknown> }) => err);
  const answers = veramo.answers.slice(before);
  await w.close();
  return { outcome, answers, wallet: w };
}

describe("idsync's wallet behind Veramo's mediator handlers", () => {
  it('stops at the first message: Veramo cannot open the authcrypted mediate-request (2.0 and 3.0), and answers HTTP 400', async () => {
    for (const version of ['2.0', '3.0'] as const) {
      const { outcome, answers } = await tryWallet(version);
      expect(outcome, version).toMatchObject({ code: 'mediation_failed' });
      // DIDCommMessageHandler swallows the unpack error (ECDH-1PU draft 04, which v2.1 requires,
      // does not open with Veramo's draft-03 KDF); MessagingRouter answers the next handler's refusal with 400.
      expect(answers.length, version).toBeGreaterThan(0);
      expect(answers.every((a) => a.status === 400 && /Unsupported message type/.test(a.body)), JSON.stringify(answers)).toBe(true);
    }
  });

  it("'auto' tries 2.0 then 3.0 and names the last refusal", async () => {
    const { outcome, answers } = await tryWallet('auto');
    expect(outcome).toMatchObject({ code: 'mediation_failed' });
    expect(answers.filter((a) => a.status === 400)).toHaveLength(2);
  });

  it('sent anoncrypted instead (from in the plaintext), a 3.0 request is granted, but the grant is a JSON string in JSON and authcrypted with the draft-03 KDF', async () => {
    const me = createPeerDid({});
    const base = documentResolver(createResolver({ cache: false }));
    const ctx = { resolve: async (d: string) => (sameDid(d, me.did) ? me.document : base(d)), secrets: memorySecrets(me.secrets) };
    const message = { id: 'veramo-grant-1', type: mediationTypes('3.0').request, from: me.did, to: [veramo.did], body: {}, return_route: 'all' as const };
    const { packed } = await pack(message, { mode: 'anoncrypt', to: veramo.did }, ctx);
    const res = await fetch(veramo.endpoint, { method: 'POST', headers: { 'content-type': 'application/didcomm-encrypted+json' }, body: packed });
    const text = await res.text();
    expect(res.status).toBe(200);
    // MessagingRouter: res.json(packed string): the JWE is a JSON string literal, not the JWE object.
    expect(text.startsWith('"')).toBe(true);
    const jwe = JSON.parse(text) as string;
    expect(JSON.parse(jwe)).toMatchObject({ protected: expect.any(String), recipients: expect.any(Array) });
    // Even unwrapped, idsync cannot open it: ECDH-1PU with the draft-03 KDF (no tag), which v2.1 does not allow.
    await expect(unpack(jwe, ctx)).rejects.toBeDefined();
    const lenient = await openLeniently(jwe, ctx);
    expect(lenient.deviations.map((d) => d.rule)).toContain('envelope.authcrypt-kdf');
    // What it says once opened leniently: the 3.0 grant, routing_did a list naming Veramo's DID.
    expect(lenient.message).toMatchObject({ type: mediationTypes('3.0').grant, body: { routing_did: [veramo.did] } });
  });
});
