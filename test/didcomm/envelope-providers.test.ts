// The native engine computes X25519 and Ed25519 in libsodium or, with IDSYNC_CRYPTO=node or
// without sodium-native, in node:crypto (X25519 on KeyObjects): two copies of the
// engine, one under each provider, must read each other's envelopes in every mode and content
// encryption, the envelope's refusals included; the NIST curves take the same path under both.
import { describe, expect, it, vi } from 'vitest';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import type { AnoncryptEnc, EnvelopeContext, EnvelopeMode, PlainMessage } from '../../src/didcomm/types.js';
import { mapResolver } from './envelope-fixtures.js';
import { curveParty, type AgreementCurve, type SigningCurve } from './envelope-parties.js';

type Envelope = typeof import('../../src/didcomm/envelope/index.js');

async function engineWith(setting: string): Promise<{ provider: string; envelope: Envelope }> {
  vi.stubEnv('IDSYNC_CRYPTO', setting);
  vi.resetModules();
  const { cryptoProvider } = await import('../../src/crypto/provider.js');
  const envelope = await import('../../src/didcomm/envelope/index.js');
  vi.unstubAllEnvs();
  return { provider: cryptoProvider, envelope };
}

const sodium = await engineWith('');
const node = await engineWith('node');

const MODES: EnvelopeMode[] = ['anoncrypt', 'authcrypt', 'signed', 'authcrypt-signed', 'anoncrypt-authcrypt', 'anoncrypt-signed'];
const ENCS: AnoncryptEnc[] = ['XC20P', 'A256GCM', 'A256CBC-HS512'];

function parties(agreement: AgreementCurve, signing: SigningCurve) {
  const alice = curveParty('alice', { agreement: [agreement], signing: [signing] });
  const bob = curveParty('bob', { agreement: [agreement, agreement], signing: [signing] });
  const resolve = mapResolver([alice.doc, bob.doc]);
  const ctx = (p: typeof alice): EnvelopeContext => ({ resolve, secrets: memorySecrets(p.secrets), engine: 'native' });
  const message: PlainMessage = { id: 'm-1', type: 'https://example.com/x', from: alice.did, to: [bob.did], created_time: 1, body: { text: 'héllo'.repeat(50) } };
  return { alice: ctx(alice), bob: ctx(bob), message };
}

describe('native engine under libsodium and under node:crypto', () => {
  it('runs under the provider it was imported with', () => {
    expect([sodium.provider, node.provider]).toEqual(['libsodium', 'node:crypto']);
  });

  for (const [agreement, signing] of [
    ['X25519', 'Ed25519'],
    ['P-256', 'P-256'],
  ] as const) {
    for (const mode of MODES) {
      it(`${mode} on ${agreement}/${signing}: what one packs the other unpacks, both ways`, async () => {
        for (const [packer, unpacker] of [
          [sodium, node],
          [node, sodium],
        ] as const) {
          for (const encAlgAnon of mode.startsWith('anoncrypt') ? ENCS : ['XC20P' as const]) {
            const p = parties(agreement, signing);
            const packed = await packer.envelope.pack(p.message, { mode, encAlgAnon }, p.alice);
            const out = await unpacker.envelope.unpack(packed.packed, p.bob);
            expect(out.message.body, `${packer.provider} → ${unpacker.provider} ${encAlgAnon}`).toEqual(p.message.body);
            expect(out.metadata.mode).toBe(mode);
          }
        }
      });
    }
  }

  it('refuses alike: a changed signature, a changed ciphertext, a changed epk', async () => {
    const p = parties('X25519', 'Ed25519');
    for (const [packer, unpacker] of [
      [sodium, node],
      [node, sodium],
    ] as const) {
      const signed = JSON.parse((await packer.envelope.pack(p.message, { mode: 'signed' }, p.alice)).packed) as { signatures: { signature: string }[] };
      const sig = Buffer.from(signed.signatures[0]!.signature, 'base64url');
      sig[5]! ^= 1;
      signed.signatures[0]!.signature = sig.toString('base64url');
      const authcrypt = JSON.parse((await packer.envelope.pack(p.message, { mode: 'authcrypt' }, p.alice)).packed) as { ciphertext: string; protected: string };
      const changedCiphertext = { ...authcrypt, ciphertext: `${authcrypt.ciphertext.slice(0, 10)}${authcrypt.ciphertext[10] === 'A' ? 'B' : 'A'}${authcrypt.ciphertext.slice(11)}` };
      // An epk on the low-order point 0 (RFC 7748 §6.1): the agreement gives the all-zero value.
      const anon = JSON.parse((await packer.envelope.pack(p.message, { mode: 'anoncrypt' }, p.alice)).packed) as { protected: string };
      const header = JSON.parse(Buffer.from(anon.protected, 'base64url').toString('utf8')) as { epk: { x: string } };
      header.epk.x = Buffer.alloc(32).toString('base64url');
      const lowOrder = { ...anon, protected: Buffer.from(JSON.stringify(header)).toString('base64url') };
      for (const bad of [signed, changedCiphertext, lowOrder]) {
        const outcomes = await Promise.all(
          [packer, unpacker].map((e) =>
            e.envelope.unpack(JSON.stringify(bad), p.bob).then(
              () => 'accepted',
              (err: { code?: string; details?: { rule?: string } }) => `${err.code} ${err.details?.rule}`,
            ),
          ),
        );
        expect(outcomes[0]).not.toBe('accepted');
        expect(outcomes[1]).toBe(outcomes[0]);
        // Refused at the agreement itself, not later at the key unwrap.
        if (bad === lowOrder) expect(outcomes[0]).toBe('didcomm_malformed envelope.jwe-epk-public');
      }
    }
  });

  it('both refuse a signed message from a small-order Ed25519 key whose all-zero signature would verify under OpenSSL alone', async () => {
    const did = 'did:example:forger';
    const identity = Buffer.concat([Buffer.of(1), Buffer.alloc(31)]).toString('base64url');
    const doc = {
      id: did,
      verificationMethod: [{ id: `${did}#auth-0`, type: 'JsonWebKey2020', controller: did, publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: identity } }],
      authentication: [`${did}#auth-0`],
    };
    const p = parties('X25519', 'Ed25519');
    const payload = Buffer.from(JSON.stringify({ ...p.message, from: did })).toString('base64url');
    const forged = {
      payload,
      signatures: [{ protected: Buffer.from(JSON.stringify({ typ: 'application/didcomm-signed+json', alg: 'EdDSA' })).toString('base64url'), header: { kid: `${did}#auth-0` }, signature: Buffer.concat([Buffer.from(identity, 'base64url'), Buffer.alloc(32)]).toString('base64url') }],
    };
    const resolve = mapResolver([doc as never]);
    for (const e of [sodium, node]) {
      const outcome = await e.envelope.unpack(JSON.stringify(forged), { resolve, secrets: memorySecrets([]), engine: 'native' }).then(
        () => 'accepted',
        (err: { code?: string }) => err.code,
      );
      expect(outcome, e.provider).not.toBe('accepted');
    }
  });
});
