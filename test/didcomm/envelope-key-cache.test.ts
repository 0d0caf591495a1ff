// The native engine keeps KeyObjects per JWK object (key-objects.ts); a cached key must never
// stand in for different key material: a secret whose JWK is changed in place (rotated by
// assignment) is a new key from then on.
import { describe, expect, it } from 'vitest';
import { pack, unpack } from '../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import type { EnvelopeContext, PlainMessage } from '../../src/didcomm/types.js';
import { mapResolver } from './envelope-fixtures.js';
import { curveParty, jwkPair } from './envelope-parties.js';

describe('native engine key cache', () => {
  it('uses the key a secret JWK holds now, not the one cached for the same object before it was changed', async () => {
    const alice = curveParty('alice', { agreement: ['X25519'] });
    const bob = curveParty('bob', { agreement: ['X25519'] });
    const resolve = mapResolver([alice.doc, bob.doc]);
    const ctx = (secrets: typeof bob.secrets): EnvelopeContext => ({ resolve, secrets: memorySecrets(secrets), engine: 'native' });
    const message = (id: string): PlainMessage => ({ id, type: 'https://example.com/x', from: alice.did, to: [bob.did], body: { n: id } });

    const first = await pack(message('1'), { mode: 'authcrypt' }, ctx(alice.secrets));
    const second = await pack(message('2'), { mode: 'authcrypt' }, ctx(alice.secrets));
    expect((await unpack(first.packed, ctx(bob.secrets))).message.id).toBe('1'); // Bob's key is now cached

    // Bob's secret object gets another key in place; his document still names the old one.
    const jwk = bob.secrets[0]!.privateKeyJwk as unknown as Record<string, string>;
    const other = jwkPair('X25519').privateJwk;
    jwk.d = other.d!;
    jwk.x = other.x!;
    await expect(unpack(second.packed, ctx(bob.secrets))).rejects.toMatchObject({ code: 'didcomm_malformed' });
  });
});
