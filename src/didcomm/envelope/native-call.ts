// One native pack or unpack's view of the outside: DID documents (normalised by adapters.ts,
// each DID resolved at most once per call) and secrets (each kid read once per call). What the
// resolver or the secrets source throws keeps its code; anything else gets one.
import type { Secret } from '../../did/types.js';
import { IdsyncError, isIdsyncError } from '../../errors.js';
import type { EnvelopeContext } from '../types.js';
import { loadLibraryDoc, type LibDidDoc, type LibVerificationMethod } from './adapters.js';
import { curveOf, privateKeyOf, publicKeyOf, type Curve, type EngineKey } from './key-objects.js';
import { malformed, notResolved } from './refusal.js';

/** DIDComm's DID test (didcomm-node's too): `did:` and at least two more colon-separated parts. */
export function isDid(s: string): boolean {
  return s.startsWith('did:') && s.indexOf(':', 4) !== -1;
}

/** The DID of a DID URL (before '#'), and whether it names a key. */
export function didAndFragment(didUrl: string): { did: string; hasFragment: boolean } {
  const i = didUrl.indexOf('#');
  return i < 0 ? { did: didUrl, hasFragment: false } : { did: didUrl.slice(0, i), hasFragment: true };
}

export interface UsableKey {
  kid: string;
  curve: Curve;
  key: EngineKey;
}

// Each DID and each kid is looked up once per call; what has arrived is also kept as a plain
// value, so that later steps read it without another promise (an envelope's lookups are few,
// and the promises and microtask hops around each cost as much as the lookup itself).
export class NativeCall {
  private readonly docs = new Map<string, Promise<LibDidDoc | null>>();
  private readonly docsNow = new Map<string, LibDidDoc | null>();
  private readonly held = new Map<string, Promise<Secret | undefined>>();
  private readonly heldNow = new Map<string, Secret | undefined>();

  constructor(private readonly ctx: EnvelopeContext) {}

  doc(did: string): Promise<LibDidDoc | null> {
    let p = this.docs.get(did);
    if (!p) this.docs.set(did, (p = this.loadDoc(did)));
    return p;
  }

  private async loadDoc(did: string): Promise<LibDidDoc | null> {
    let doc: LibDidDoc | null;
    try {
      doc = await loadLibraryDoc(this.ctx.resolve, did);
    } catch (err) {
      if (isIdsyncError(err)) throw err;
      throw new IdsyncError('did_not_resolved', `DID resolution of ${did} failed`, { cause: err });
    }
    this.docsNow.set(did, doc);
    return doc;
  }

  /** The document of `did` when this call has already loaded it (null: it did not resolve), else undefined. */
  knownDoc(did: string): LibDidDoc | null | undefined {
    return this.docsNow.get(did);
  }

  async requireDoc(did: string, who: string): Promise<LibDidDoc> {
    const doc = this.docsNow.get(did) ?? (await this.doc(did));
    if (!doc) throw notResolved(`${who} DID ${did} did not resolve`, { did });
    return doc;
  }

  secret(kid: string): Promise<Secret | undefined> {
    let p = this.held.get(kid);
    if (!p) this.held.set(kid, (p = this.loadSecret(kid)));
    return p;
  }

  private async loadSecret(kid: string): Promise<Secret | undefined> {
    let secret: Secret | undefined;
    try {
      secret = await this.ctx.secrets.get(kid);
    } catch (err) {
      if (isIdsyncError(err)) throw err;
      throw new IdsyncError('didcomm_error', 'secret lookup failed', { cause: err });
    }
    this.heldNow.set(kid, secret);
    return secret;
  }

  /** The kids among `kids` whose secrets are held, in the given order. */
  async heldKids(kids: string[]): Promise<string[]> {
    if (kids.length === 1) return (await this.secret(kids[0]!)) === undefined ? [] : kids.slice();
    const found = await Promise.all(kids.map((k) => this.secret(k)));
    return kids.filter((_, i) => found[i] !== undefined);
  }

  /** The private key of a held secret, with its curve. */
  async privateKey(kid: string): Promise<UsableKey> {
    return this.heldNow.has(kid) ? this.keyOf(kid, this.heldNow.get(kid)) : this.keyOf(kid, await this.secret(kid));
  }

  /** privateKey() of a kid whose secret heldKids() has already found. */
  heldKey(kid: string): UsableKey {
    if (!this.heldNow.has(kid)) throw new IdsyncError('secret_not_found', `no secret for ${kid}`);
    return this.keyOf(kid, this.heldNow.get(kid));
  }

  private keyOf(kid: string, s: Secret | undefined): UsableKey {
    const jwk = s?.privateKeyJwk as unknown as Record<string, unknown> | undefined;
    if (!jwk) throw new IdsyncError('secret_not_found', `no secret for ${kid}`);
    const curve = curveOf(jwk);
    if (!curve) throw malformed('envelope.secret', `the secret of ${kid} is not a key this engine uses (kty ${String(jwk.kty)}, crv ${String(jwk.crv)})`);
    return { kid, curve, key: privateKeyOf(jwk, kid) };
  }
}

/** The verification method `kid` of a document, or undefined. */
export function methodOf(doc: LibDidDoc, kid: string): LibVerificationMethod | undefined {
  return doc.verificationMethod.find((vm) => vm.id === kid);
}

/** The curve of a verification method's key; undefined when we cannot use it. */
export function methodCurve(vm: LibVerificationMethod): Curve | undefined {
  return curveOf(vm.publicKeyJwk);
}

/** The public key of a verification method (kept per document key); an unusable one is refused under `rule`. */
export function methodKey(vm: LibVerificationMethod, rule: string): EngineKey {
  return publicKeyOf(vm.publicKeyJwk, `key ${vm.id}`, rule);
}
