// Opens an ECDH-1PU+A256KW / A256GCM JWE by hand with either key derivation: draft-madden-jose-
// ecdh-1pu-03 (Concat KDF over Ze ‖ Zs with alg, apu, apv and the key length) or -04 §2.3, which
// DIDComm v2.1 §Sender Authenticated Encryption names and which adds the content tag (cctag) to
// the KDF input when a key is wrapped. It is the evidence that an agent's authcrypt opens only
// with draft-03 (veramo#1375), not an opener for idsync: idsync opens draft-04 only, as the spec says.
import { createDecipheriv, createHash, createPrivateKey, createPublicKey, diffieHellman } from 'node:crypto';
import { b64uDecode, b64uDecodeText } from '../../src/encoding.js';

export type Ecdh1puDraft = 'draft-03' | 'draft-04';
/** An X25519 private key as a JWK. */
export type OkpPrivateJwk = { kty: string; crv: string; x: string; d: string };

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const prefixed = (data: Uint8Array) => Buffer.concat([u32(data.length), data]);

/** RFC 7518 §4.6.2 Concat KDF, one SHA-256 round (256-bit key), with draft-04's cctag when given. */
function concatKdf(z: Buffer, alg: string, apu: Uint8Array, apv: Uint8Array, cctag?: Uint8Array): Buffer {
  const supp = cctag ? Buffer.concat([u32(256), prefixed(cctag)]) : u32(256);
  return createHash('sha256').update(Buffer.concat([u32(1), z, prefixed(Buffer.from(alg)), prefixed(apu), prefixed(apv), supp])).digest();
}

const x25519 = (privateJwk: OkpPrivateJwk, publicX: string) =>
  diffieHellman({ privateKey: createPrivateKey({ key: { ...privateJwk }, format: 'jwk' }), publicKey: createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: publicX }, format: 'jwk' }) });

type Jwe = { protected: string; recipients: { header: Record<string, unknown>; encrypted_key: string }[]; iv: string; ciphertext: string; tag: string };

/**
 * The content key of `jweText` for the recipient whose kid is `kid`, unwrapped under the `draft`
 * KDF; throws when it does not unwrap (AES-KW's integrity check, RFC 3394 §2.2.3).
 */
export function unwrapEcdh1pu(jweText: string, recipient: { kid: string; privateJwk: OkpPrivateJwk }, senderPublicX: string, draft: Ecdh1puDraft): Buffer {
  const jwe = JSON.parse(jweText) as Jwe;
  const header = JSON.parse(b64uDecodeText(jwe.protected)) as Record<string, any>;
  const entry = jwe.recipients.find((r) => r.header.kid === recipient.kid);
  if (!entry) throw new Error(`no recipient ${recipient.kid}`);
  const { alg, epk } = { ...header, ...entry.header } as Record<string, any>;
  if (alg !== 'ECDH-1PU+A256KW') throw new Error(`only ECDH-1PU+A256KW here, not ${alg}`);
  const z = Buffer.concat([x25519(recipient.privateJwk, epk.x), x25519(recipient.privateJwk, senderPublicX)]);
  const apu = header.apu ? b64uDecode(header.apu) : new Uint8Array();
  const apv = header.apv ? b64uDecode(header.apv) : new Uint8Array();
  const kek = concatKdf(z, alg, apu, apv, draft === 'draft-04' ? b64uDecode(jwe.tag) : undefined);
  const unwrap = createDecipheriv('id-aes256-wrap', kek, Buffer.from('A6A6A6A6A6A6A6A6', 'hex'));
  return Buffer.concat([unwrap.update(b64uDecode(entry.encrypted_key)), unwrap.final()]);
}

/** The plaintext of an ECDH-1PU+A256KW / A256GCM JWE under the `draft` KDF (throws as unwrapEcdh1pu). */
export function openEcdh1pu(jweText: string, recipient: { kid: string; privateJwk: OkpPrivateJwk }, senderPublicX: string, draft: Ecdh1puDraft): string {
  const jwe = JSON.parse(jweText) as Jwe;
  const enc = (JSON.parse(b64uDecodeText(jwe.protected)) as { enc?: string }).enc;
  if (enc !== 'A256GCM') throw new Error(`only A256GCM content here, not ${enc}`);
  const cek = unwrapEcdh1pu(jweText, recipient, senderPublicX, draft);
  const gcm = createDecipheriv('aes-256-gcm', cek, b64uDecode(jwe.iv));
  gcm.setAAD(Buffer.from(jwe.protected, 'ascii'));
  gcm.setAuthTag(b64uDecode(jwe.tag));
  return Buffer.concat([gcm.update(b64uDecode(jwe.ciphertext)), gcm.final()]).toString('utf8');
}

/** The protected header of a JWE or JWS text, decoded. */
export function protectedHeader(text: string): Record<string, unknown> {
  return JSON.parse(b64uDecodeText((JSON.parse(text) as { protected: string }).protected)) as Record<string, unknown>;
}
