// JWE encryption in the General JSON serialization (RFC 7516 §7.2.1) the way DIDComm v2 builds it
// (§ECDH-1PU key wrapping and common protected headers): one epk, apu and apv for all recipients,
// all in the protected header; the content is encrypted first so that ECDH-1PU can bind its tag
// into every recipient's key-encryption key. Member order is the one peers see from didcomm-node
// today: protected {typ, alg, enc, skid, apu, apv, epk {crv, kty, x, y}}, recipients, iv,
// ciphertext, tag.
import { createHash, type KeyObject } from 'node:crypto';
import { MEDIA_TYPES } from '../../types.js';
import { ephemeralKey, type AgreementCurve } from '../key-objects.js';
import { CONTENT_CIPHERS, freshKeyAndIv, type ContentEnc } from './content.js';
import { deriveKek, type KeyWrapAlg } from './kdf.js';
import { wrapKey } from './key-wrap.js';

export interface EncryptInput {
  alg: KeyWrapAlg;
  enc: ContentEnc;
  curve: AgreementCurve;
  recipients: { kid: string; key: KeyObject }[];
  /** ECDH-1PU: the sender's key agreement key id and private key. */
  sender?: { kid: string; key: KeyObject };
}

/** DIDComm v2: apv = SHA-256 of the recipient kids, sorted and joined with '.'. */
export function recipientsDigest(kids: string[]): Buffer {
  return createHash('sha256').update([...kids].sort().join('.')).digest();
}

export function encryptJwe(plaintext: Buffer, i: EncryptInput): string {
  const cipher = CONTENT_CIPHERS[i.enc];
  const { cek, iv } = freshKeyAndIv(cipher);
  const apv = recipientsDigest(i.recipients.map((r) => r.kid));
  const apu = i.sender ? Buffer.from(i.sender.kid, 'utf8') : Buffer.alloc(0);
  const epk = ephemeralKey(i.curve);
  const header: Record<string, unknown> = { typ: MEDIA_TYPES.encrypted, alg: i.alg, enc: i.enc };
  if (i.sender) {
    header.skid = i.sender.kid;
    header.apu = apu.toString('base64url');
  }
  header.apv = apv.toString('base64url');
  header.epk = epk.jwk;
  const protectedB64 = Buffer.from(JSON.stringify(header), 'utf8').toString('base64url');
  const { ciphertext, tag } = cipher.encrypt(cek, iv, plaintext, Buffer.from(protectedB64, 'ascii'));
  const recipients = i.recipients.map((r) => {
    const kek = deriveKek({
      alg: i.alg,
      own: epk.privateKey,
      peer: r.key,
      staticPair: i.sender ? { own: i.sender.key, peer: r.key } : undefined,
      apu,
      apv,
      tag,
    });
    return { header: { kid: r.kid }, encrypted_key: wrapKey(kek, cek).toString('base64url') };
  });
  return JSON.stringify({
    protected: protectedB64,
    recipients,
    iv: iv.toString('base64url'),
    ciphertext: ciphertext.toString('base64url'),
    tag: tag.toString('base64url'),
  });
}
