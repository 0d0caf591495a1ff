import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Secret } from '../../src/did/types.js';
import { generateKeyPair, privateJwk } from '../../src/keys.js';
import { storeSecrets } from '../../src/store/secrets.js';
import { openStore } from '../../src/store/store.js';

// Everything an error can carry to a log: message, details, cause chain, stack.
function allText(err: unknown): string {
  return inspect(err, { depth: 20, showHidden: true }) + JSON.stringify(err);
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('store secrets', () => {
  const jwk = privateJwk(generateKeyPair('Ed25519'));
  const d = jwk.d;

  it('never puts private key material in a thrown error', async () => {
    const store = await openStore();
    const secrets = storeSecrets(store);
    const bad: unknown[] = [
      { id: 'no-did-here', type: 'JsonWebKey2020', privateKeyJwk: jwk },
      { id: 'did:example:a#k', type: 'Ed25519VerificationKey2020', privateKeyJwk: jwk },
      { id: 'did:example:a#k', type: 'JsonWebKey2020', privateKeyJwk: { ...jwk, kty: 42 } },
      { id: 'did:example:a#k', type: 'JsonWebKey2020', privateKeyJwk: { kty: 'OKP', d: 7, x: d } },
      { id: d, type: 'JsonWebKey2020', privateKeyJwk: jwk },
      null,
    ];
    for (const s of bad) {
      const err = await caught(secrets.add([s as Secret]));
      expect(err).toMatchObject({ code: 'invalid_secret' });
      expect(allText(err)).not.toContain(d);
    }
    const ok: Secret = { id: 'did:example:a#k', type: 'JsonWebKey2020', privateKeyJwk: jwk };
    await secrets.add([ok]);
    await store.close();
    for (const p of [secrets.add([ok]), secrets.get(ok.id), secrets.find([ok.id]), secrets.kids(), secrets.remove(ok.id)]) {
      const err = await caught(p);
      expect(err).toMatchObject({ code: 'store_closed' });
      expect(allText(err)).not.toContain(d);
    }
  });

  it('hands a secret back with the kid it was asked for', async () => {
    const store = await openStore();
    const secrets = storeSecrets(store);
    await secrets.add([{ id: 'did:example:a#k', type: 'JsonWebKey2020', privateKeyJwk: jwk }]);
    expect(await secrets.get('did:example:a#k')).toEqual({ id: 'did:example:a#k', type: 'JsonWebKey2020', privateKeyJwk: jwk });
    await store.close();
  });
});

describe('store secrets cache', () => {
  it('stays in step across views of one store: a removed key is gone, a re-added key is the new one', async () => {
    const store = await openStore();
    const a = storeSecrets(store);
    const b = storeSecrets(store);
    const kid = 'did:example:cache#key-1';
    const first: Secret = { id: kid, type: 'JsonWebKey2020', privateKeyJwk: privateJwk(generateKeyPair('X25519'), kid) };
    await a.add([first]);
    expect((await b.get(kid))?.privateKeyJwk.x).toBe(first.privateKeyJwk.x);
    await a.remove(kid);
    expect(await b.get(kid)).toBeUndefined();
    const second: Secret = { id: kid, type: 'JsonWebKey2020', privateKeyJwk: privateJwk(generateKeyPair('X25519'), kid) };
    await b.add([second]);
    expect((await a.get(kid))?.privateKeyJwk.x).toBe(second.privateKeyJwk.x);
    await store.close();
  });
});
