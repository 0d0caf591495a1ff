// A stand-in for didcomm/envelope.ts in router unit tests: a JWE-shaped envelope whose
// "ciphertext" is the base64url plaintext, with the protected header a real one would carry
// (typ, alg, enc, skid, apu, apv, epk), and the metadata a real unpack would give.
import type { PackFn, UnpackFn } from '../../src/router/router.js';
import { MEDIA_TYPES, type EnvelopeContext, type UnpackMetadata } from '../../src/didcomm/types.js';
import { b64uDecodeText, b64uEncode, sha256 } from '../../src/encoding.js';
import { IdsyncError } from '../../src/errors.js';

export const stubContext: EnvelopeContext = {
  resolve: async () => null,
  secrets: { get: async () => undefined, find: async () => [] },
};

/** A JWE-shaped stub: authcrypt when `fromKid` is given, else anoncrypt. */
export function stubJwe(message: unknown, toKid: string, fromKid?: string, extraHeader: Record<string, unknown> = {}): string {
  const header: Record<string, unknown> = {
    typ: MEDIA_TYPES.encrypted,
    alg: fromKid ? 'ECDH-1PU+A256KW' : 'ECDH-ES+A256KW',
    enc: 'A256CBC-HS512',
    epk: { kty: 'OKP', crv: 'X25519', x: 'AAAA' },
    apv: b64uEncode(sha256(toKid)),
    ...(fromKid ? { skid: fromKid, apu: b64uEncode(fromKid) } : {}),
    ...extraHeader,
  };
  return JSON.stringify({
    protected: b64uEncode(JSON.stringify(header)),
    recipients: [{ header: { kid: toKid }, encrypted_key: 'AAAA' }],
    iv: 'AAAA',
    tag: 'AAAA',
    ciphertext: b64uEncode(JSON.stringify(message)),
  });
}

export const stubPack: PackFn = async (message, options) => {
  if (options.mode === 'plaintext') return { packed: JSON.stringify(message), mode: 'plaintext', mediaType: MEDIA_TYPES.plaintext, toKids: [] };
  const from = options.from ?? message.from;
  const fromKid = options.mode.includes('authcrypt') && from ? `${from}#key-2` : undefined;
  const toKid = `${options.to ?? message.to?.[0]}#key-2`;
  return { packed: stubJwe(message, toKid, fromKid), mode: options.mode, mediaType: MEDIA_TYPES.encrypted, toKids: [toKid], fromKid };
};

export const stubUnpack: UnpackFn = async (packed) => {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(packed);
  } catch {
    throw new IdsyncError('didcomm_malformed', 'unpack: not JSON');
  }
  const base: UnpackMetadata = { mode: 'plaintext', encrypted: false, authenticated: false, nonRepudiation: false, anonymousSender: true, reWrappedInForward: false };
  if (typeof value.ciphertext !== 'string') return { message: value as never, metadata: base };
  if (value.ciphertext === 'broken') throw new IdsyncError('secret_not_found', 'unpack: no key for this message');
  const header = JSON.parse(b64uDecodeText(value.protected as string)) as Record<string, string>;
  const toKid = (value.recipients as { header: { kid: string } }[])[0].header.kid;
  const authcrypt = header.alg === 'ECDH-1PU+A256KW';
  const metadata: UnpackMetadata = {
    ...base,
    mode: authcrypt ? 'authcrypt' : 'anoncrypt',
    encrypted: true,
    authenticated: authcrypt,
    anonymousSender: !authcrypt,
    encryptedToKids: [toKid],
  };
  if (authcrypt) metadata.encryptedFromKid = header.skid;
  return { message: JSON.parse(b64uDecodeText(value.ciphertext)) as never, metadata };
};

/** What a peer sends that cannot be decrypted. */
export const UNDECRYPTABLE = JSON.stringify({ protected: 'e30', recipients: [], iv: '', tag: '', ciphertext: 'broken' });
