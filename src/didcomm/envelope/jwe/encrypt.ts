// JWE encryption in the General JSON serialization (RFC 7516 §7.2.1) the way DIDComm v2 builds it
// (§ECDH-1PU key wrapping and common protected headers): one epk, apu and apv for all recipients,
// all in the protected header; the content is encrypted first so that ECDH-1PU can bind its tag
// into every recipient's key-encryption key. Member order is the one peers see from didcomm-node
// today: protected {typ, alg, enc, skid, apu, apv, epk {crv, kty, x, y}}, recipients, iv,
// ciphertext, tag.
import { hash } from 'node:crypto';
import { MEDIA_TYPES } from '../../types.js';
import { discardKey, ephemeralKey, type AgreementCurve, type EngineKey } from '../key-objects.js';
import { boundedMemo } from '../memo.js';
import { CONTENT_CIPHERS, freshKeyAndIv, type ContentEnc } from './content.js';
import { deriveKek, partyInfo, type KeyWrapAlg } from './kdf.js';
import { wrapKey } from './key-wrap.js';

export interface EncryptInput {
  alg: KeyWrapAlg;
  enc: ContentEnc;
  curve: AgreementCurve;
  recipients: { kid: string; key: EngineKey }[];
  /** ECDH-1PU: the sender's key agreement key id and private key. */
  sender?: { kid: string; key: EngineKey };
}

// The digest of a recipient list recurs in every message of a conversation, on both sides.
const digestOfSorted = boundedMemo(256, (sortedKids: string) => hash('sha256', sortedKids, 'buffer'));

/** DIDComm v2: apv = SHA-256 of the recipient kids, sorted and joined with '.'. */
export function recipientsDigest(kids: string[]): Buffer {
  return digestOfSorted(kids.length === 1 ? kids[0]! : [...kids].sort().join('.'));
}

/** What the protected header and the KDF share across messages with the same alg, enc, sender and recipients. */
interface HeaderPrefix {
  /**
   * The header's JSON up to the epk's value (`{"typ":…,"apv":"…","epk":`) as UTF-8, split where
   * base64 can be cut: `b64` encodes the whole 3-byte groups (the base64url of a concatenation
   * whose first part is a multiple of 3 bytes long is the concatenation of the base64url of
   * both), `aad` is that text as bytes, `tail` the 0–2 bytes left over. An authcrypt header
   * names a long-form did:ion kid twice (skid, apu): ~2.9 KB written once per sender, not per message.
   */
  b64: string;
  aad: Buffer;
  tail: Buffer;
  /** partyInfo(alg, apu, apv) for the KDF. */
  info: Buffer;
}

function buildPrefix(alg: KeyWrapAlg, enc: ContentEnc, skid: string | null, apvB64: string): HeaderPrefix {
  const header: Record<string, unknown> = { typ: MEDIA_TYPES.encrypted, alg, enc };
  const apu = skid === null ? Buffer.alloc(0) : Buffer.from(skid, 'utf8');
  if (skid !== null) {
    header.skid = skid;
    header.apu = apu.toString('base64url');
  }
  header.apv = apvB64;
  // epk is the last member: the JSON of the rest, reopened for it.
  const json = Buffer.from(`${JSON.stringify(header).slice(0, -1)},"epk":`, 'utf8');
  const cut = json.length - (json.length % 3);
  const b64 = json.subarray(0, cut).toString('base64url');
  return { b64, aad: Buffer.from(b64, 'latin1'), tail: Buffer.from(json.subarray(cut)), info: partyInfo(alg, apu, Buffer.from(apvB64, 'base64url')) };
}

// Kept per sender kid (the same string object for every message from one key, so looking it up
// costs no hashing of a 1 KB long-form did:ion key id), then per alg, enc and recipients.
const MAX_PREFIXES = 256;
const prefixes = new Map<string | null, Map<string, HeaderPrefix>>();
let prefixCount = 0;

function headerPrefix(alg: KeyWrapAlg, enc: ContentEnc, skid: string | null, apvB64: string): HeaderPrefix {
  let bySender = prefixes.get(skid);
  const key = `${alg} ${enc} ${apvB64}`;
  let prefix = bySender?.get(key);
  if (prefix) return prefix;
  if (prefixCount >= MAX_PREFIXES) {
    prefixes.clear();
    prefixCount = 0;
  }
  if (!bySender) prefixes.set(skid, (bySender = new Map()));
  bySender.set(key, (prefix = buildPrefix(alg, enc, skid, apvB64)));
  prefixCount++;
  return prefix;
}

export function encryptJwe(plaintext: Buffer, i: EncryptInput): string {
  const cipher = CONTENT_CIPHERS[i.enc];
  const { cek, iv } = freshKeyAndIv(cipher);
  const apvB64 = recipientsDigest(i.recipients.map((r) => r.kid)).toString('base64url');
  const prefix = headerPrefix(i.alg, i.enc, i.sender?.kid ?? null, apvB64);
  const epk = ephemeralKey(i.curve);
  const rest = prefix.tail.length === 0 ? Buffer.from(`${JSON.stringify(epk.jwk)}}`, 'utf8') : Buffer.concat([prefix.tail, Buffer.from(`${JSON.stringify(epk.jwk)}}`, 'utf8')]);
  const restB64 = rest.toString('base64url');
  const protectedB64 = prefix.b64 + restB64;
  // The AAD (RFC 7516 §5.1 step 14) is ASCII(protectedB64): the kept bytes of the prefix, then the rest.
  const aad = Buffer.allocUnsafe(protectedB64.length);
  prefix.aad.copy(aad, 0);
  aad.write(restB64, prefix.aad.length, 'latin1');
  const { ciphertext, tag } = cipher.encrypt(cek, iv, plaintext, aad);
  let recipients: { header: { kid: string }; encrypted_key: string }[];
  try {
    recipients = i.recipients.map((r) => {
      const kek = deriveKek({
        alg: i.alg,
        own: epk.privateKey,
        peer: r.key,
        staticPair: i.sender ? { own: i.sender.key, peer: r.key } : undefined,
        info: prefix.info,
        tag,
      });
      return { header: { kid: r.kid }, encrypted_key: wrapKey(kek, cek).toString('base64url') };
    });
  } finally {
    // Also when a recipient's key is refused (low order): the ephemeral key serves this message only.
    discardKey(epk.privateKey);
  }
  // The JSON of {protected, recipients, iv, ciphertext, tag}, written out: base64url needs no
  // escaping, and JSON.stringify would scan every character of the ciphertext for it.
  return `{"protected":"${protectedB64}","recipients":${JSON.stringify(recipients)},"iv":"${iv.toString('base64url')}","ciphertext":"${ciphertext.toString('base64url')}","tag":"${tag.toString('base64url')}"}`;
}
