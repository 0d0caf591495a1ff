// JWE decryption for one recipient (RFC 7516 §5.2): derive the key-encryption key (kdf.ts),
// unwrap the content key (A256KW), check the tag and decrypt. With ECDH-1PU the tag is an input
// of the KDF (1PU-04 §2.3), so a changed tag already fails at unwrapping.
import type { EngineKey } from '../key-objects.js';
import { b64Member, malformed } from '../refusal.js';
import { CONTENT_CIPHERS, type ContentEnc } from './content.js';
import { deriveKek, partyInfo, type KeyWrapAlg } from './kdf.js';
import { unwrapKey } from './key-wrap.js';
import type { ParsedJwe } from './parse.js';

export interface DecryptInput {
  alg: KeyWrapAlg;
  enc: ContentEnc;
  epk: EngineKey;
  apu: Buffer;
  apv: Buffer;
  recipient: { kid: string; key: EngineKey };
  /** ECDH-1PU: the sender's public key. */
  sender?: EngineKey;
}

export function decryptJwe(jwe: ParsedJwe, i: DecryptInput): Buffer {
  const cipher = CONTENT_CIPHERS[i.enc];
  const entry = jwe.recipients.find((r) => r.kid === i.recipient.kid);
  if (!entry) throw malformed('envelope.jwe-recipient-kid', `the JWE has no recipient ${i.recipient.kid}`);
  const wrapped = b64Member(entry.encryptedKey, 'encrypted_key', 'envelope.jwe-encrypted-key');
  const kek = deriveKek({
    alg: i.alg,
    own: i.recipient.key,
    peer: i.epk,
    staticPair: i.sender ? { own: i.recipient.key, peer: i.sender } : undefined,
    info: partyInfo(i.alg, i.apu, i.apv),
    tag: jwe.tag,
  });
  const cek = unwrapKey(kek, wrapped);
  if (!cek) {
    throw i.alg === 'ECDH-1PU+A256KW'
      ? malformed('envelope.jwe-tag', `the content key for ${i.recipient.kid} does not unwrap: the tag, apu, apv, epk or encrypted_key was changed, or the sender key is not the one used`)
      : malformed('envelope.jwe-encrypted-key', `the content key for ${i.recipient.kid} does not unwrap: the encrypted_key, epk or apv was changed`);
  }
  if (cek.length !== cipher.keyBytes) throw malformed('envelope.jwe-encrypted-key', `${i.enc} needs a ${cipher.keyBytes}-byte content key, got ${cek.length}`);
  if (jwe.iv.length !== cipher.ivBytes) throw malformed('envelope.jwe-iv', `${i.enc} needs a ${cipher.ivBytes}-byte iv, got ${jwe.iv.length}`);
  const plaintext = cipher.decrypt(cek, jwe.iv, jwe.ciphertext, jwe.tag, jwe.aad);
  if (!plaintext) throw malformed('envelope.jwe-tag', 'the authentication tag does not verify: the ciphertext, iv, tag or protected header was changed');
  return plaintext;
}
