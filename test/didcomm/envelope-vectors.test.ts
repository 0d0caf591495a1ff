// The DIF DIDComm Messaging v2 appendix vectors (fixtures/didcomm-v2-spec/, Apache-2.0).
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pack, unpack } from '../../src/didcomm/envelope.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import type { EnvelopeContext, EnvelopeMode } from '../../src/didcomm/types.js';
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

// P-384 / P-521 key agreement, which didcomm-node does not implement.
const UNSUPPORTED = ['anoncrypt-p384-a256cbc.json', 'anoncrypt-p521-a256gcm.json', 'signed-authcrypt-then-anoncrypt-x25519.json'];

describe('DIF DIDComm v2 spec vectors', () => {
  it('normalises the "kid " member of secrets-bob.json', () => {
    const secrets = vectorSecrets('secrets-bob.json');
    expect(secrets.map((s) => s.id)).toContain('did:example:bob#key-x25519-1');
    expect(secrets.every((s) => !('kid ' in (s.privateKeyJwk as object)))).toBe(true);
  });

  for (const [file, want] of Object.entries(SUPPORTED)) {
    it(`unpacks ${file} to the plaintext vector`, async () => {
      const { message, metadata } = await unpack(readVector(file), bob);
      for (const field of ['id', 'from', 'to', 'created_time', 'expires_time', 'body']) {
        expect(message[field], field).toEqual(plaintext[field]);
      }
      // The appendix prints the plaintext type with https://, its packed vectors carry http://.
      expect(message.type.replace(/^http:/, 'https:')).toBe(plaintext.type);
      expect(metadata).toMatchObject(want);
    });
  }

  for (const file of UNSUPPORTED) {
    it(`reports ${file} as didcomm_unsupported, with a clear message`, async () => {
      const err = await unpack(readVector(file), bob).then(
        () => undefined,
        (e: unknown) => e as { code?: string; message: string },
      );
      expect(err?.code).toBe('didcomm_unsupported');
      expect(err?.message).toMatch(/Unsupported/);
      expect(err?.message).toContain('X25519 and P-256 only');
    });
  }

  it('refuses to pack to P-384 or P-521 keys with didcomm_unsupported', async () => {
    const alice: EnvelopeContext = { resolve: bob.resolve, secrets: memorySecrets(vectorSecrets('secrets-alice.json')) };
    for (const [to, mode] of [
      ['did:example:bob#key-p384-1', 'anoncrypt'],
      ['did:example:bob#key-p521-1', 'anoncrypt'],
      ['did:example:bob#key-p521-1', 'authcrypt'],
    ] as const) {
      const err = await pack(plaintext, { mode, to }, alice).then(
        () => undefined,
        (e: unknown) => e as { code?: string },
      );
      expect(err?.code, `${mode} to ${to}`).toBe('didcomm_unsupported');
    }
    // The same parties do talk on X25519 and P-256.
    const p256 = await pack(plaintext, { mode: 'authcrypt', to: 'did:example:bob#key-p256-1' }, alice);
    expect(p256.fromKid).toBe('did:example:alice#key-p256-1');
    expect((await unpack(p256.packed, bob)).metadata.mode).toBe('authcrypt');
  });

  it('covers every message vector in the fixtures', () => {
    const files = readdirSync(new URL('../../fixtures/didcomm-v2-spec/', import.meta.url)).filter(
      (f) => f.endsWith('.json') && !/^(diddocs|secrets|plaintext)/.test(f),
    );
    expect([...Object.keys(SUPPORTED), ...UNSUPPORTED].sort()).toEqual(files.sort());
  });
});
