import { describe, expect, it } from 'vitest';
import { fromMultikey, generateKeyPair, keyPairFromJwk, privateJwk, publicJwk, sign, toMultikey, verify } from '../src/keys.js';
import { base58btcDecode, base58btcEncode, b64uDecode, b64uEncode, jcs, sha256Multihash } from '../src/encoding.js';

describe('keys', () => {
  it('round-trips Ed25519 and X25519 through JWK and Multikey', () => {
    for (const type of ['Ed25519', 'X25519'] as const) {
      const kp = generateKeyPair(type);
      expect(keyPairFromJwk(privateJwk(kp)).publicKey).toEqual(kp.publicKey);
      expect(fromMultikey(toMultikey(kp))).toEqual({ type, publicKey: kp.publicKey });
      expect(publicJwk(kp)).not.toHaveProperty('d');
    }
  });

  it('uses the multicodec prefixes other agents expect (z6Mk… Ed25519, z6LS… X25519)', () => {
    expect(toMultikey(generateKeyPair('Ed25519'))).toMatch(/^z6Mk/);
    expect(toMultikey(generateKeyPair('X25519'))).toMatch(/^z6LS/);
  });

  it('signs and verifies, and rejects a changed message', () => {
    const kp = generateKeyPair('Ed25519');
    const msg = new TextEncoder().encode('hello');
    const sig = sign(kp.privateKey, msg);
    expect(verify(kp.publicKey, msg, sig)).toBe(true);
    expect(verify(kp.publicKey, new TextEncoder().encode('hellO'), sig)).toBe(false);
  });

  it('derives keys and signs as the RFC vectors say (RFC 8032 §7.1 TEST 1, RFC 7748 §6.1)', () => {
    const hex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
    const ed = generateKeyPair('Ed25519', hex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60'));
    expect(Buffer.from(ed.publicKey).toString('hex')).toBe('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
    const sig = sign(ed.privateKey, new Uint8Array(0));
    expect(Buffer.from(sig).toString('hex')).toBe(
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
    );
    expect(verify(ed.publicKey, new Uint8Array(0), sig)).toBe(true);
    const x = generateKeyPair('X25519', hex('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a'));
    expect(Buffer.from(x.publicKey).toString('hex')).toBe('8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a');
  });

  it('does not trust a signing key array changed in place', () => {
    const a = generateKeyPair('Ed25519');
    const b = generateKeyPair('Ed25519');
    const key = new Uint8Array(a.privateKey);
    const msg = new TextEncoder().encode('m');
    expect(verify(a.publicKey, msg, sign(key, msg))).toBe(true);
    key.set(b.privateKey);
    expect(verify(b.publicKey, msg, sign(key, msg))).toBe(true);
  });

  it('refuses a private JWK whose halves do not match, without echoing key bytes', () => {
    const a = privateJwk(generateKeyPair('Ed25519'));
    const b = privateJwk(generateKeyPair('Ed25519'));
    try {
      keyPairFromJwk({ ...a, d: b.d });
      expect.unreachable();
    } catch (err) {
      expect((err as { code: string }).code).toBe('invalid_key');
      expect(String((err as Error).message)).not.toContain(b.d);
    }
  });
});

describe('encoding', () => {
  it('base58btc matches a known vector', () => {
    // "Hello World!" → 2NEpo7TZRRrLZSi2U (base58 Bitcoin alphabet)
    expect(base58btcEncode(new TextEncoder().encode('Hello World!'))).toBe('2NEpo7TZRRrLZSi2U');
    expect(new TextDecoder().decode(base58btcDecode('2NEpo7TZRRrLZSi2U'))).toBe('Hello World!');
    expect(base58btcDecode(base58btcEncode(new Uint8Array([0, 0, 1])))).toEqual(new Uint8Array([0, 0, 1]));
  });

  it('base64url round-trips and rejects junk', () => {
    expect(b64uDecode(b64uEncode(new Uint8Array([250, 251, 252])))).toEqual(new Uint8Array([250, 251, 252]));
    expect(() => b64uDecode('not base64!')).toThrow();
  });

  it('JCS sorts keys (RFC 8785) and multihash prefixes sha2-256', () => {
    expect(jcs({ b: 1, a: [true, null] })).toBe('{"a":[true,null],"b":1}');
    const mh = sha256Multihash('x');
    expect([mh[0], mh[1], mh.length]).toEqual([0x12, 0x20, 34]);
  });
});
