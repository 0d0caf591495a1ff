// did:key (W3C CCG did:key Method v0.7, "Document Creation Algorithm"): the DID is the multibase,
// multicodec public key. An Ed25519 did:key also gets the X25519 key agreement key derived from it
// ("Encryption Method Creation Algorithm": the birational Ed25519 → Curve25519 map, RFC 7748 §4.1).
// Verification methods are `Multikey` with publicKeyMultibase (did:key v0.7 default format); key
// ids are `did#<multibase key>`, e.g. did:key:z6Mk…#z6Mk… and did:key:z6Mk…#z6LS….
import { ed25519 } from '@noble/curves/ed25519.js';
import { IdsyncError } from '../errors.js';
import { fromMultikey, generateKeyPair, toMultikey, type KeyPair, type KeyType } from '../keys.js';
import { buildDocument, documentResult, errorResult, multikeyMethod, MULTIKEY_CONTEXT, secretFor, type KeyEntry } from './document.js';
import type { CreatedDid, DIDDocument, DIDResolutionResult } from './types.js';

const MULTIBASE = /^z[1-9A-HJ-NP-Za-km-z]+$/;

/** X25519 public key of an Ed25519 public key (RFC 7748 §4.1 birational map). */
export function ed25519ToX25519Public(publicKey: Uint8Array): Uint8Array {
  return ed25519.utils.toMontgomery(publicKey);
}

/** X25519 key pair derived from an Ed25519 private key (seed), matching ed25519ToX25519Public. */
export function ed25519ToX25519KeyPair(kp: KeyPair): KeyPair {
  if (kp.type !== 'Ed25519') throw new IdsyncError('invalid_argument', 'an Ed25519 key pair is needed');
  return generateKeyPair('X25519', ed25519.utils.toMontgomerySecret(kp.privateKey));
}

/**
 * The document of a did:key-style identifier (also used for did:peer:0, peer spec §Method 0).
 * `did` is the identifier the document is for; `multikey` is the encoded key it carries.
 */
export function keyDidDocument(did: string, multikey: string): DIDDocument {
  const key = fromMultikey(multikey);
  const keys: KeyEntry[] = [];
  if (key.type === 'Ed25519') {
    const x = { type: 'X25519' as const, publicKey: ed25519ToX25519Public(key.publicKey) };
    keys.push({
      method: multikeyMethod(did, `${did}#${multikey}`, key),
      purposes: ['authentication', 'assertionMethod', 'capabilityInvocation', 'capabilityDelegation'],
    });
    keys.push({ method: multikeyMethod(did, `${did}#${toMultikey(x)}`, x), purposes: ['keyAgreement'] });
  } else {
    keys.push({ method: multikeyMethod(did, `${did}#${multikey}`, key), purposes: ['keyAgreement'] });
  }
  return buildDocument({ id: did, context: [MULTIKEY_CONTEXT], keys });
}

/** did:key Read. Throws IdsyncError 'invalid_did' for a malformed or unsupported DID. */
export function resolveKeyDid(input: string): DIDDocument {
  const did = input.split(/[?#]/)[0];
  const multikey = did.startsWith('did:key:') ? did.slice('did:key:'.length) : '';
  if (!MULTIBASE.test(multikey)) throw new IdsyncError('invalid_did', 'a did:key is did:key:z<base58btc multicodec key>');
  try {
    return keyDidDocument(did, multikey);
  } catch (err) {
    throw new IdsyncError('invalid_did', `unsupported did:key: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * A new did:key. Ed25519 (default): secrets for the Ed25519 key and the derived X25519 key.
 * X25519: a key-agreement-only DID. Secret ids equal the key ids in the document.
 */
export function createKeyDid(options: { type?: KeyType; keyPair?: KeyPair; seed?: Uint8Array } = {}): CreatedDid {
  const kp = options.keyPair ?? generateKeyPair(options.type ?? 'Ed25519', options.seed);
  const multikey = toMultikey(kp);
  const did = `did:key:${multikey}`;
  const secrets = [secretFor(`${did}#${multikey}`, kp)];
  if (kp.type === 'Ed25519') {
    const x = ed25519ToX25519KeyPair(kp);
    secrets.push(secretFor(`${did}#${toMultikey(x)}`, x));
  }
  return { did, document: keyDidDocument(did, multikey), secrets };
}

/** The did:key method resolver (never throws). */
export async function resolveKey(did: string): Promise<DIDResolutionResult> {
  try {
    return documentResult(resolveKeyDid(did));
  } catch (err) {
    return errorResult('invalidDid', (err as Error).message);
  }
}
