// The DIF DIDComm Messaging v2 appendix vectors (fixtures/didcomm-v2-spec/, Apache-2.0): all nine
// unpack with the native engine, the six on X25519 and P-256 with didcomm-node too.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pack, unpack } from '../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import { ENVELOPE_ENGINES, type EnvelopeContext, type EnvelopeMode } from '../../src/didcomm/types.js';
import { mapResolver, readVector, vectorDocs, vectorSecrets } from './envelope-fixtures.js';

const plaintext = JSON.parse(readVector('plaintext.json'));
const bob: EnvelopeContext = { resolve: mapResolver(vectorDocs()), secrets: memorySecrets(vectorSecrets('secrets-bob.json')) };

// file → the mode it unpacks as and the key ids the metadata names (curves from its headers).
const SUPPORTED: Record<string, { mode: EnvelopeMode; signFrom?: string; encryptedFromKid?: string; anonymousSender: boolean }> = {
  'signed-eddsa-ed25519.json': { mode: 'signed', signFrom: 'did:example:alice#key-1', anonymousSender: false },
  'signed-es256-p256.json': { mode: 'signed', signFrom: 'did:example:alice#key-2', anonymousSender: false },
  'signed-es256k-secp256k1.json': { mode: 'signed', signFrom: 'did:example:alice#key-3', anonymousSender: false },
  'anoncrypt-x25519-xc20p.json': { mode: 'anoncrypt', anonymousSender: true },
  'authcrypt-x25519-a256cbc.json': { mode: 'authcrypt', encryptedFromKid: 'did:example:alice#key-x25519-1', anonymousSender: false },
  // Named p521 in the vector set, but its JWE is ECDH-1PU on P-256 (see the fixtures README).
  'signed-then-authcrypt-p521.json': {
    mode: 'authcrypt-signed',
    signFrom: 'did:example:alice#key-1',
    encryptedFromKid: 'did:example:alice#key-p256-1',
    anonymousSender: false,
  },
};

// P-384 / P-521 key agreement: the native engine reads them, didcomm-node 0.4.1 does not.
const P384_P521: Record<string, { mode: EnvelopeMode; encryptedFromKid?: string; signFrom?: string; anonymousSender: boolean; curves: string[] }> = {
  'anoncrypt-p384-a256cbc.json': { mode: 'anoncrypt', anonymousSender: true, curves: ['P-384'] },
  'anoncrypt-p521-a256gcm.json': { mode: 'anoncrypt', anonymousSender: true, curves: ['P-521'] },
  // Named x25519 in the vector set; its outer anoncrypt and inner authcrypt are on P-521.
  'signed-authcrypt-then-anoncrypt-x25519.json': {
    mode: 'authcrypt-signed',
    encryptedFromKid: 'did:example:alice#key-p521-1',
    signFrom: 'did:example:alice#key-1',
    anonymousSender: true,
    curves: ['P-521', 'P-521'],
  },
};

function expectPlaintext(message: Record<string, unknown>): void {
  for (const field of ['id', 'from', 'to', 'created_time', 'expires_time', 'body']) {
    expect(message[field], field).toEqual(plaintext[field]);
  }
  // The appendix prints the plaintext type with https://, its packed vectors carry http://.
  expect(String(message.type).replace(/^http:/, 'https:')).toBe(plaintext.type);
}

describe('DIF DIDComm v2 spec vectors', () => {
  it('normalises the "kid " member of secrets-bob.json', () => {
    const secrets = vectorSecrets('secrets-bob.json');
    expect(secrets.map((s) => s.id)).toContain('did:example:bob#key-x25519-1');
    expect(secrets.every((s) => !('kid ' in (s.privateKeyJwk as object)))).toBe(true);
  });

  for (const engine of ENVELOPE_ENGINES) {
    for (const [file, want] of Object.entries(SUPPORTED)) {
      it(`${engine}: unpacks ${file} to the plaintext vector`, async () => {
        const { message, metadata } = await unpack(readVector(file), bob, { engine });
        expectPlaintext(message);
        expect(metadata).toMatchObject(want);
      });
    }
  }

  for (const [file, { curves, ...want }] of Object.entries(P384_P521)) {
    it(`native: unpacks ${file} and notes the ${curves.join(' and ')} key agreement`, async () => {
      const { message, metadata } = await unpack(readVector(file), bob, { engine: 'native' });
      expectPlaintext(message);
      expect(metadata).toMatchObject(want);
      const noted = (metadata.notes ?? []).filter((n) => n.rule === 'envelope.jwe-curve').map((n) => n.detail.match(/on (P-\d+)/)?.[1]);
      expect(noted).toEqual(curves);
    });

    it(`didcomm-node: reports ${file} as didcomm_unsupported, with a clear message`, async () => {
      const err = await unpack(readVector(file), bob, { engine: 'didcomm-node' }).then(
        () => undefined,
        (e: unknown) => e as { code?: string; message: string },
      );
      expect(err?.code).toBe('didcomm_unsupported');
      expect(err?.message).toMatch(/Unsupported/);
      expect(err?.message).toContain('X25519 and P-256 only');
    });
  }

  it('packs to P-384 and P-521 keys natively; didcomm-node refuses with didcomm_unsupported', async () => {
    const alice: EnvelopeContext = { resolve: bob.resolve, secrets: memorySecrets(vectorSecrets('secrets-alice.json')) };
    for (const [to, mode] of [
      ['did:example:bob#key-p384-1', 'anoncrypt'],
      ['did:example:bob#key-p521-1', 'anoncrypt'],
      ['did:example:bob#key-p521-1', 'authcrypt'],
    ] as const) {
      const p = await pack(plaintext, { mode, to, engine: 'native' }, alice);
      expect(p.toKids).toEqual([to]);
      expect((await unpack(p.packed, bob, { engine: 'native' })).metadata.mode).toBe(mode);
      const err = await pack(plaintext, { mode, to, engine: 'didcomm-node' }, alice).then(
        () => undefined,
        (e: unknown) => e as { code?: string },
      );
      expect(err?.code, `${mode} to ${to}`).toBe('didcomm_unsupported');
    }
    // Both engines talk on X25519 and P-256.
    for (const engine of ENVELOPE_ENGINES) {
      const p256 = await pack(plaintext, { mode: 'authcrypt', to: 'did:example:bob#key-p256-1', engine }, alice);
      expect(p256.fromKid).toBe('did:example:alice#key-p256-1');
      expect((await unpack(p256.packed, bob, { engine })).metadata.mode).toBe('authcrypt');
    }
  });

  it('covers every message vector in the fixtures', () => {
    const files = readdirSync(new URL('../../fixtures/didcomm-v2-spec/', import.meta.url)).filter(
      (f) => f.endsWith('.json') && !/^(diddocs|secrets|plaintext)/.test(f),
    );
    expect([...Object.keys(SUPPORTED), ...Object.keys(P384_P521)].sort()).toEqual(files.sort());
  });
});
