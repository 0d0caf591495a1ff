// Finds the public key a credential was signed with in the issuer's DID document and decides
// whether the issuer authorised it for assertions (DID Core §5.3.2 assertionMethod;
// VC Data Integrity §4.5 "Retrieve Verification Method").
import { shortForm } from '../did/short-form.js';
import type { DIDDocument, DocumentResolver, VerificationMethod } from '../did/types.js';
import { base58btcDecode } from '../encoding.js';
import { fromMultikey, publicKeyFromJwk } from '../keys.js';

export type IssuerKeyResult =
  | { ok: true; publicKey: Uint8Array; kid: string }
  | {
      ok: false;
      code: 'issuer_not_resolved' | 'issuer_key_not_authorized';
      detail: string;
      /** Present when the key exists but is not authorised: the proof can still be checked. */
      publicKey?: Uint8Array;
    };

/** DIDs and key ids compared with long forms (did:ion, did:peer:4) reduced to short forms. */
export function sameDid(a: string, b: string): boolean {
  return shortForm(a) === shortForm(b);
}

function absolute(id: string, docId: string): string {
  return id.startsWith('#') ? docId + id : id;
}

function ed25519Key(vm: VerificationMethod): Uint8Array | undefined {
  try {
    if (vm.publicKeyJwk) {
      const k = publicKeyFromJwk(vm.publicKeyJwk);
      return k.type === 'Ed25519' ? k.publicKey : undefined;
    }
    if (vm.publicKeyMultibase) {
      const k = fromMultikey(vm.publicKeyMultibase);
      return k.type === 'Ed25519' ? k.publicKey : undefined;
    }
    if (vm.type === 'Ed25519VerificationKey2018' && vm.publicKeyBase58) {
      const raw = base58btcDecode(vm.publicKeyBase58);
      return raw.length === 32 ? raw : undefined;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

function allMethods(doc: DIDDocument): VerificationMethod[] {
  const out: VerificationMethod[] = [...(doc.verificationMethod ?? [])];
  for (const rel of ['assertionMethod', 'authentication', 'capabilityInvocation', 'capabilityDelegation', 'keyAgreement'] as const) {
    for (const entry of doc[rel] ?? []) if (typeof entry === 'object' && entry) out.push(entry);
  }
  return out;
}

/**
 * Resolves `issuerDid`, finds `kid` in its document and checks it is an Ed25519 key listed
 * under assertionMethod. A kid of another DID is never the issuer's key. Never throws.
 */
export async function findAssertionKey(resolve: DocumentResolver, issuerDid: string, kid: string): Promise<IssuerKeyResult> {
  const fullKid = absolute(kid, issuerDid);
  const kidDid = fullKid.split('#')[0];
  if (!fullKid.includes('#') || !sameDid(kidDid, issuerDid)) {
    return { ok: false, code: 'issuer_key_not_authorized', detail: `key ${fullKid} is not a key of the issuer ${issuerDid}` };
  }
  let doc: DIDDocument | null;
  try {
    doc = await resolve(issuerDid);
  } catch (err) {
    return { ok: false, code: 'issuer_not_resolved', detail: `issuer DID did not resolve: ${err instanceof Error ? err.message : String(err)}`.slice(0, 300) };
  }
  if (!doc || typeof doc !== 'object') return { ok: false, code: 'issuer_not_resolved', detail: `issuer DID ${issuerDid} did not resolve` };
  const docId = typeof doc.id === 'string' ? doc.id : issuerDid;
  const vm = allMethods(doc).find((m) => typeof m.id === 'string' && sameDid(absolute(m.id, docId), fullKid));
  if (!vm) return { ok: false, code: 'issuer_key_not_authorized', detail: `key ${fullKid} is not in the issuer's DID document` };
  const publicKey = ed25519Key(vm);
  if (!publicKey) return { ok: false, code: 'issuer_key_not_authorized', detail: `key ${fullKid} is not an Ed25519 key` };
  if (typeof vm.controller === 'string' && !sameDid(vm.controller, docId)) {
    return { ok: false, code: 'issuer_key_not_authorized', detail: `key ${fullKid} is controlled by ${vm.controller}`, publicKey };
  }
  const listed = (doc.assertionMethod ?? []).some((entry) => {
    const id = typeof entry === 'string' ? entry : entry?.id;
    return typeof id === 'string' && sameDid(absolute(id, docId), fullKid);
  });
  if (!listed) return { ok: false, code: 'issuer_key_not_authorized', detail: `key ${fullKid} is not in the issuer's assertionMethod`, publicKey };
  return { ok: true, publicKey, kid: fullKid };
}
