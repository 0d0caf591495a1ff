// Envelopes between parties whose DIDs come from src/did (ion long form, peer:2, peer:4, key) and whose
// documents come from the project resolver, not from hand-built test documents.
import { describe, expect, it } from 'vitest';
import { createIonDid } from '../../src/did/ion.js';
import { createKeyDid } from '../../src/did/key.js';
import { createPeerDid } from '../../src/did/peer.js';
import { createPeerDid4 } from '../../src/did/peer4.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { pack, unpack } from '../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import type { EnvelopeContext, EnvelopeMode, PlainMessage } from '../../src/didcomm/types.js';

const ion = createIonDid({ endpoint: 'https://wallet.example/didcomm' });
const peer = createPeerDid({ endpoint: 'https://service.example/didcomm' });
const key = createKeyDid();
const registry = new Map([[ion.shortDid!, ion.did]]);
const resolve = documentResolver(createResolver({ registry: { get: async (did) => registry.get(did) } }));
const ionCtx: EnvelopeContext = { resolve, secrets: memorySecrets(ion.secrets) };
const peerCtx: EnvelopeContext = { resolve, secrets: memorySecrets(peer.secrets) };
const keyCtx: EnvelopeContext = { resolve, secrets: memorySecrets(key.secrets) };

let n = 0;
function msg(from: string, to: string): PlainMessage {
  n += 1;
  return { id: `m-${n}`, type: 'https://didcomm.org/trust-ping/2.0/ping', from, to: [to], body: { response_requested: true } };
}

const MODES: EnvelopeMode[] = ['authcrypt', 'anoncrypt', 'signed', 'anoncrypt-authcrypt', 'authcrypt-signed', 'anoncrypt-signed'];

describe('envelopes between did:ion and did:peer:2 parties', () => {
  for (const mode of MODES) {
    it(`round-trips ${mode} from the ion long form to the peer and back`, async () => {
      const out = msg(ion.did, peer.did);
      const p1 = await pack(out, { mode }, ionCtx);
      expect(p1.serviceEndpoint).toBe('https://service.example/didcomm');
      const got = await unpack(p1.packed, peerCtx);
      expect(got.message).toMatchObject({ id: out.id, from: ion.did, body: out.body });
      expect(got.metadata.mode).toBe(mode);

      const back = { ...msg(peer.did, ion.did), thid: out.id };
      const p2 = await pack(back, { mode }, peerCtx);
      expect(p2.serviceEndpoint).toBe('https://wallet.example/didcomm');
      const reply = await unpack(p2.packed, ionCtx);
      expect(reply.message).toMatchObject({ thid: out.id, from: peer.did });
      expect(reply.metadata.mode).toBe(mode);
    });
  }

  it('talks to the ion party by its short form once the long form is registered', async () => {
    const out = msg(peer.did, ion.shortDid!);
    const p = await pack(out, { mode: 'authcrypt' }, peerCtx);
    expect(p.toKids).toEqual([`${ion.shortDid}#key-2`]);
    // The ion party's secrets are held under the long-form kids.
    expect(ion.secrets[1].id).toBe(`${ion.did}#key-2`);
    const got = await unpack(p.packed, ionCtx);
    expect(got.message.to).toEqual([ion.shortDid]);

    const back = { ...msg(ion.shortDid!, peer.did), thid: out.id };
    const reply = await unpack((await pack(back, { mode: 'authcrypt-signed' }, ionCtx)).packed, peerCtx);
    expect(reply.metadata).toMatchObject({ encryptedFromKid: `${ion.shortDid}#key-2`, signFrom: `${ion.shortDid}#key-1` });
  });

  it('round-trips with a did:key party (Multikey document, derived X25519 key)', async () => {
    const p = await pack(msg(key.did, peer.did), { mode: 'authcrypt-signed' }, keyCtx);
    expect((await unpack(p.packed, peerCtx)).metadata.mode).toBe('authcrypt-signed');
    const r = await pack(msg(peer.did, key.did), { mode: 'authcrypt' }, peerCtx);
    expect((await unpack(r.packed, keyCtx)).message.from).toBe(peer.did);
  });
});

describe('envelopes with a did:peer:4 party (long form)', () => {
  const p4 = createPeerDid4({ endpoint: 'https://peer4.example/didcomm' });
  const p4Ctx: EnvelopeContext = { resolve, secrets: memorySecrets(p4.secrets) };
  for (const engine of ['native', 'didcomm-node'] as const) {
    it(`round-trips authcrypt and authcrypt-signed with the did:peer:2 party (${engine})`, async () => {
      for (const mode of ['authcrypt', 'authcrypt-signed'] as const) {
        const out = msg(p4.did, peer.did);
        const got = await unpack((await pack(out, { mode, engine }, p4Ctx)).packed, { ...peerCtx, engine });
        expect(got.message.from).toBe(p4.did);
        expect(got.metadata.mode).toBe(mode);
        const back = await pack({ ...msg(peer.did, p4.did), thid: out.id }, { mode, engine }, peerCtx);
        expect(back.serviceEndpoint).toBe('https://peer4.example/didcomm');
        expect((await unpack(back.packed, { ...p4Ctx, engine })).message.thid).toBe(out.id);
      }
    });
  }

  it('talks to the did:peer:4 party by its short form once the long form is registered; its secrets stay under the long form', async () => {
    const resolveShort = documentResolver(createResolver({ registry: { get: async (did) => (did === p4.shortDid ? p4.did : registry.get(did)) } }));
    const out = msg(peer.did, p4.shortDid!);
    const p = await pack(out, { mode: 'authcrypt' }, { ...peerCtx, resolve: resolveShort });
    expect(p.toKids).toEqual([`${p4.shortDid}#key-1`]);
    const got = await unpack(p.packed, { ...p4Ctx, resolve: resolveShort });
    expect(got.message.to).toEqual([p4.shortDid]);
    const back = await pack({ ...msg(p4.shortDid!, peer.did), thid: out.id }, { mode: 'authcrypt' }, { ...p4Ctx, resolve: resolveShort });
    expect((await unpack(back.packed, { ...peerCtx, resolve: resolveShort })).metadata.encryptedFromKid).toBe(`${p4.shortDid}#key-1`);
  });
});
