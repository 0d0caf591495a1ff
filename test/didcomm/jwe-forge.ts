// Builds JWEs with any protected header, cryptographically consistent with it (the KDF uses the
// apu and apv given, whatever the header says), straight on node:crypto and apart from the
// engine's code: a sender that gets a DIDComm rule wrong still produces a JWE that decrypts, so
// the refusal tests show the rule check refuses it, not a failing tag. ECDH-1PU per
// draft-madden-jose-ecdh-1pu-04 §2.2/§2.3 (tag in the KDF), or as draft 03 had it (no tag: the KDF
// some agents still use), ECDH-ES per RFC 7518 §4.6.
import { createCipheriv, createHash, createHmac, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';

type Jwk = Record<string, string>;

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const lp = (b: Buffer) => Buffer.concat([u32(b.length), b]);

function kek(z: Buffer, alg: string, apu: Buffer, apv: Buffer, tag?: Buffer): Buffer {
  const info = Buffer.concat([lp(Buffer.from(alg)), lp(apu), lp(apv), u32(256), tag ? lp(tag) : Buffer.alloc(0)]);
  return createHash('sha256').update(u32(1)).update(z).update(info).digest();
}

function pub(jwk: Jwk) {
  const { d: _d, ...p } = jwk;
  return createPublicKey({ key: p, format: 'jwk' });
}

export interface ForgeOptions {
  /** Protected header members; epk is added unless given. */
  header: Record<string, unknown>;
  curve: 'X25519' | 'P-256' | 'P-384' | 'P-521';
  recipients: { kid: string; publicJwk: Jwk }[];
  /** ECDH-1PU: the sender's private JWK. */
  sender?: Jwk;
  /** KDF inputs; by default the header's apu / apv, decoded. */
  apu?: Buffer;
  apv?: Buffer;
  enc: 'A256CBC-HS512' | 'A256GCM';
  plaintext: string;
  /** ECDH-1PU's KDF: draft 04 (default) puts the JWE tag into SuppPubInfo; draft 03 did not. */
  kdf?: 'draft-04' | 'draft-03';
}

export function forgeJwe(o: ForgeOptions): string {
  // The public half straight out of the key generation as JWK: exporting a generated KeyObject
  // afterwards can deadlock Node 20 (see envelope-parties.ts jwkPair).
  const generate = generateKeyPairSync as unknown as (type: 'x25519' | 'ec', options: object) => { privateKey: KeyObject; publicKey: Jwk };
  const publicKeyEncoding = { format: 'jwk' };
  const eph = o.curve === 'X25519' ? generate('x25519', { publicKeyEncoding }) : generate('ec', { namedCurve: o.curve, publicKeyEncoding });
  const e = eph.publicKey;
  const header = { ...o.header };
  if (!('epk' in header)) header.epk = e.y ? { crv: e.crv, kty: e.kty, x: e.x, y: e.y } : { crv: e.crv, kty: e.kty, x: e.x };
  const protectedB64 = Buffer.from(JSON.stringify(header)).toString('base64url');
  const aad = Buffer.from(protectedB64, 'ascii');
  const cbc = o.enc === 'A256CBC-HS512';
  const cek = randomBytes(cbc ? 64 : 32);
  const iv = randomBytes(cbc ? 16 : 12);
  let ciphertext: Buffer;
  let tag: Buffer;
  if (cbc) {
    const c = createCipheriv('aes-256-cbc', cek.subarray(32), iv);
    ciphertext = Buffer.concat([c.update(o.plaintext), c.final()]);
    const al = Buffer.alloc(8);
    al.writeBigUInt64BE(BigInt(aad.length * 8));
    tag = createHmac('sha512', cek.subarray(0, 32)).update(Buffer.concat([aad, iv, ciphertext, al])).digest().subarray(0, 32);
  } else {
    const c = createCipheriv('aes-256-gcm', cek, iv);
    c.setAAD(aad);
    ciphertext = Buffer.concat([c.update(o.plaintext), c.final()]);
    tag = c.getAuthTag();
  }
  const dec = (v: unknown) => (typeof v === 'string' ? Buffer.from(v, 'base64url') : Buffer.alloc(0));
  const apu = o.apu ?? dec(header.apu);
  const apv = o.apv ?? dec(header.apv);
  const alg = String(header.alg);
  const recipients = o.recipients.map((r) => {
    const ze = diffieHellman({ privateKey: eph.privateKey, publicKey: pub(r.publicJwk) });
    const z = o.sender ? Buffer.concat([ze, diffieHellman({ privateKey: createPrivateKey({ key: o.sender, format: 'jwk' }), publicKey: pub(r.publicJwk) })]) : ze;
    const w = createCipheriv('id-aes256-wrap', kek(z, alg, apu, apv, o.sender && o.kdf !== 'draft-03' ? tag : undefined), Buffer.from('A6A6A6A6A6A6A6A6', 'hex'));
    return { header: { kid: r.kid }, encrypted_key: Buffer.concat([w.update(cek), w.final()]).toString('base64url') };
  });
  return JSON.stringify({ protected: protectedB64, recipients, iv: iv.toString('base64url'), ciphertext: ciphertext.toString('base64url'), tag: tag.toString('base64url') });
}

/** DIDComm v2: apv = SHA-256 of the recipient kids, sorted and joined with '.'. */
export function apvOf(kids: string[]): Buffer {
  return createHash('sha256').update([...kids].sort().join('.')).digest();
}
