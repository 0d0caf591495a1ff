// src/crypto/ does Ed25519 and X25519 in libsodium where sodium-native loads, else in
// node:crypto. Both providers must be interchangeable: the same public keys and (deterministic,
// RFC 8032 §5.1.6) signatures, each verifying the other's, the same shared secrets, the same
// refusals; and IDSYNC_CRYPTO=node (or a sodium-native that does not load) must really select
// node:crypto. Each provider is a fresh copy of the modules, imported under its own setting.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadSodium } from '../../src/crypto/provider.js';

type Ed = typeof import('../../src/crypto/ed25519.js');
type X = typeof import('../../src/crypto/x25519.js');
type XChaCha = typeof import('../../src/crypto/xchacha20-poly1305.js');
interface Provider {
  name: string;
  loaded: boolean;
  ed: Ed;
  x: X;
  xc: XChaCha;
}

async function providerWith(setting: string): Promise<Provider> {
  vi.stubEnv('IDSYNC_CRYPTO', setting);
  vi.resetModules();
  const { cryptoProvider, sodium } = await import('../../src/crypto/provider.js');
  const ed = await import('../../src/crypto/ed25519.js');
  const x = await import('../../src/crypto/x25519.js');
  const xc = await import('../../src/crypto/xchacha20-poly1305.js');
  vi.unstubAllEnvs();
  return { name: cryptoProvider, loaded: sodium !== undefined, ed, x, xc };
}

const hex = (h: string) => Buffer.from(h, 'hex');
const random = (n: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(n)));

afterEach(() => vi.unstubAllEnvs());

describe('crypto provider choice', () => {
  it('is libsodium by default (sodium-native is a dependency, built for this platform) and node:crypto when IDSYNC_CRYPTO=node', async () => {
    expect(await providerWith('')).toMatchObject({ name: 'libsodium', loaded: true });
    expect(await providerWith('node')).toMatchObject({ name: 'node:crypto', loaded: false });
  });

  it('falls back to node:crypto when sodium-native does not load, or is not what it should be', () => {
    const fine = { crypto_sign_detached() {}, crypto_scalarmult() {} };
    expect(loadSodium({}, () => fine)).toBe(fine);
    expect(loadSodium({ IDSYNC_CRYPTO: 'node' }, () => fine)).toBeUndefined();
    expect(
      loadSodium({}, () => {
        throw new Error('No native build was found for platform=plan9');
      }),
    ).toBeUndefined();
    expect(loadSodium({}, () => ({}))).toBeUndefined();
  });

});

describe('libsodium and node:crypto agree', async () => {
  const sodium = await providerWith('');
  const node = await providerWith('node');
  const both = [sodium, node];

  it('on the RFC 8032 §7.1 TEST 1 and TEST 2 vectors', () => {
    const vectors = [
      {
        seed: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
        pub: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
        msg: '',
        sig: 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
      },
      {
        seed: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
        pub: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
        msg: '72',
        sig: '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
      },
    ];
    for (const p of both) {
      for (const v of vectors) {
        expect(p.ed.ed25519PublicKey(hex(v.seed)).toString('hex'), p.name).toBe(v.pub);
        expect(p.ed.ed25519Sign(hex(v.seed), hex(v.msg)).toString('hex'), p.name).toBe(v.sig);
        expect(p.ed.ed25519Verify(hex(v.pub), hex(v.msg), hex(v.sig)), p.name).toBe(true);
      }
    }
  });

  it('on the RFC 7748 §6.1 X25519 vector', () => {
    const alice = hex('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a');
    const bob = hex('5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb');
    for (const p of both) {
      expect(p.x.x25519PublicKey(alice).toString('hex'), p.name).toBe('8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a');
      expect(p.x.x25519PublicKey(bob).toString('hex'), p.name).toBe('de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f');
      expect(p.x.x25519(alice, p.x.x25519PublicKey(bob))!.toString('hex'), p.name).toBe('4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742');
    }
  });

  it('signs with one and verifies with the other; both refuse a changed message or signature', () => {
    for (const [signer, verifier] of [
      [sodium, node],
      [node, sodium],
    ] as const) {
      for (let i = 0; i < 20; i++) {
        const seed = random(32);
        const msg = random(i * 37);
        const pub = signer.ed.ed25519PublicKey(seed);
        expect(verifier.ed.ed25519PublicKey(seed)).toEqual(pub);
        const sig = signer.ed.ed25519Sign(seed, msg);
        expect(verifier.ed.ed25519Sign(seed, msg)).toEqual(sig); // RFC 8032 signatures are deterministic
        expect(verifier.ed.ed25519Verify(pub, msg, sig)).toBe(true);
        const changed = Buffer.from(sig);
        changed[i % 64]! ^= 1;
        expect(verifier.ed.ed25519Verify(pub, msg, changed)).toBe(false);
        expect(verifier.ed.ed25519Verify(pub, Buffer.concat([msg, Buffer.of(0)]), sig)).toBe(false);
      }
    }
  });

  it('agrees X25519 keys both ways, with key pairs from either', () => {
    for (const [a, b] of [
      [sodium, node],
      [node, sodium],
    ] as const) {
      for (let i = 0; i < 20; i++) {
        const mine = a.x.x25519KeyPair();
        const theirs = b.x.x25519KeyPair();
        expect(b.x.x25519PublicKey(mine.privateKey)).toEqual(mine.publicKey);
        const z = a.x.x25519(mine.privateKey, theirs.publicKey);
        expect(z).toHaveLength(32);
        expect(b.x.x25519(theirs.privateKey, mine.publicKey)).toEqual(z);
        expect(b.x.x25519(mine.privateKey, theirs.publicKey)).toEqual(z);
      }
    }
  });

  it('seal and open XChaCha20-Poly1305 alike, and refuse a changed tag, ciphertext or AAD alike', () => {
    for (const [a, b] of [
      [sodium, node],
      [node, sodium],
    ] as const) {
      for (const size of [0, 1, 63, 64, 65, 1500]) {
        const key = random(32);
        const nonce = random(24);
        const aad = random(size % 50);
        const plain = random(size);
        const sealed = a.xc.xchachaEncrypt(key, nonce, plain, aad);
        expect(b.xc.xchachaEncrypt(key, nonce, plain, aad)).toEqual(sealed);
        expect(b.xc.xchachaDecrypt(key, nonce, sealed.ciphertext, sealed.tag, aad)).toEqual(plain);
        const tag = Buffer.from(sealed.tag);
        tag[0]! ^= 1;
        expect(b.xc.xchachaDecrypt(key, nonce, sealed.ciphertext, tag, aad)).toBeUndefined();
        expect(b.xc.xchachaDecrypt(key, nonce, sealed.ciphertext, sealed.tag, Buffer.concat([aad, Buffer.of(1)]))).toBeUndefined();
        if (size > 0) {
          const ct = Buffer.from(sealed.ciphertext);
          ct[size - 1]! ^= 1;
          expect(b.xc.xchachaDecrypt(key, nonce, ct, sealed.tag, aad)).toBeUndefined();
        }
      }
    }
  });

  it('both refuse X25519 with a low-order point (RFC 7748 §6.1: the all-zero value)', () => {
    const ff = (first: number) => Buffer.concat([Buffer.of(first), Buffer.alloc(30, 0xff), Buffer.of(0x7f)]);
    const lowOrder = [
      Buffer.alloc(32),
      Buffer.concat([Buffer.of(1), Buffer.alloc(31)]),
      // the two points of order 8, and p - 1, p, p + 1 (u mod p of order 2, 4 and 1)
      hex('e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800'),
      hex('5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157'),
      ff(0xec),
      ff(0xed),
      ff(0xee),
    ];
    for (const p of both) {
      const { privateKey } = p.x.x25519KeyPair();
      for (const point of lowOrder) expect(p.x.x25519(privateKey, point), p.name).toBeUndefined();
    }
  });

  it('both refuse a small-order or non-canonical public key and a small-order R (else a zero signature verifies for every message)', () => {
    const identity = Buffer.concat([Buffer.of(1), Buffer.alloc(31)]);
    const identityAsPPlus1 = Buffer.concat([Buffer.of(0xee), Buffer.alloc(30, 0xff), Buffer.of(0x7f)]); // y = p + 1 ≡ 1
    const forged = Buffer.concat([identity, Buffer.alloc(32)]); // R = identity, S = 0
    const honest = node.ed.ed25519PublicKey(random(32));
    for (const p of both) {
      for (const message of [Buffer.from('pay 100'), Buffer.from('pay 1,000,000')]) {
        expect(p.ed.ed25519Verify(identity, message, forged), p.name).toBe(false);
        expect(p.ed.ed25519Verify(identityAsPPlus1, message, forged), p.name).toBe(false);
        expect(p.ed.ed25519Verify(honest, message, forged), p.name).toBe(false);
      }
    }
  });

  it('both answer false, not an exception, for keys and signatures of the wrong length', () => {
    for (const p of both) {
      expect(p.ed.ed25519Verify(random(31), Buffer.from('m'), random(64))).toBe(false);
      expect(p.ed.ed25519Verify(random(32), Buffer.from('m'), random(63))).toBe(false);
      expect(p.x.x25519(random(31), random(32))).toBeUndefined();
      expect(() => p.ed.ed25519Sign(random(31), Buffer.from('m'))).toThrow(/32 bytes/);
    }
  });

  it('signs with a key array changed in place as the key it holds now', () => {
    for (const p of both) {
      const seed = random(32);
      const before = p.ed.ed25519Sign(seed, Buffer.from('m'));
      const other = random(32);
      seed.set(other);
      const after = p.ed.ed25519Sign(seed, Buffer.from('m'));
      expect(after, p.name).not.toEqual(before);
      expect(p.ed.ed25519Verify(p.ed.ed25519PublicKey(other), Buffer.from('m'), after), p.name).toBe(true);
    }
  });
});
