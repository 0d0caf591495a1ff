// The wallet's own DID: a did:ion long form (the service's users hold did:ion), or a did:peer:2
// (what mobile wallets behind mediators use, e.g. the Identus SDK), created once and kept in the
// store (keys in the secrets collection, the DID in the registry's own DIDs). Its
// DIDCommMessaging service names the wallet's inbound endpoint or its mediator; a wallet without
// one publishes no service and relies on Message Pickup 3.0 or a live WebSocket
// (docs/protocols.md "Message Pickup 3.0").
import { isoNow } from '../clock.js';
import type { Clock } from '../clock.js';
import { xsdDateTime } from '../credentials/issue.js';
import { signPresentation, type JcsProof, type VerifiablePresentation } from '../credentials/presentation.js';
import { createIonDid } from '../did/ion.js';
import { createPeerDid } from '../did/peer.js';
import { shortForm } from '../did/short-form.js';
import { IdsyncError } from '../errors.js';
import { keyPairFromJwk } from '../keys.js';
import type { StoredDidRegistry } from '../store/dids.js';
import type { StoredSecrets } from '../store/secrets.js';
import type { Store } from '../store/store.js';

/** OwnDid.purpose of the wallet's DID, so a store shared with other agents finds the right one. */
export const WALLET_DID_PURPOSE = 'wallet';
/** ION recovery and update keys (secp256k1, not DIDComm keys): kept for a later DID update, never used in messages. */
export const CONTROL_KEYS_COLLECTION = 'wallet-control-keys';

/** The DID method of a wallet's own DID. */
export type WalletDidMethod = 'ion' | 'peer';

export const WALLET_DID_METHODS: readonly WalletDidMethod[] = ['ion', 'peer'];

export interface WalletIdentity {
  /** did:ion: the long form (did:ion:<suffix>:<state>), what the wallet sends until the peer knows it; or a did:peer:2. */
  did: string;
  /** did:ion:<suffix>; a did:peer:2 has no other form and is its own. */
  shortDid: string;
  /** The inbound endpoint in the DID document, when there is one. */
  endpoint?: string;
  /** Ed25519, in authentication and assertionMethod: `#key-1` of a did:ion (did/ion.ts), `#key-2` of a did:peer:2 (its V element, did/peer.ts). */
  authenticationKid: string;
  /** X25519 keyAgreement: `#key-2` of a did:ion, `#key-1` of a did:peer:2 (its E element). */
  keyAgreementKid: string;
  createdAt: string;
}

/** The method of a wallet DID by its prefix. */
export function walletDidMethod(did: string): WalletDidMethod {
  return did.startsWith('did:peer:2') ? 'peer' : 'ion';
}

function toIdentity(did: string, createdAt: string, endpoint?: string): WalletIdentity {
  const peer = walletDidMethod(did) === 'peer';
  return {
    did,
    shortDid: shortForm(did),
    ...(endpoint ? { endpoint } : {}),
    authenticationKid: `${did}#${peer ? 'key-2' : 'key-1'}`,
    keyAgreementKid: `${did}#${peer ? 'key-1' : 'key-2'}`,
    createdAt,
  };
}

/** The wallet DID kept in `registry`, if one was created before. */
export async function loadIdentity(registry: StoredDidRegistry): Promise<WalletIdentity | undefined> {
  const own = (await registry.listOwn()).filter((d) => d.purpose === WALLET_DID_PURPOSE);
  const latest = own[own.length - 1];
  return latest ? toIdentity(latest.did, latest.createdAt, latest.endpoint) : undefined;
}

/**
 * Creates the wallet DID (with a DIDCommMessaging service when `endpoint` is given) and stores
 * its keys and DID. Secrets first: a DID without its keys would be useless after a crash.
 */
export async function createIdentity(
  deps: { store: Store; registry: StoredDidRegistry; secrets: StoredSecrets; clock: Clock },
  options: { endpoint?: string; routingKeys?: string[]; label?: string; method?: WalletDidMethod } = {},
): Promise<WalletIdentity> {
  // The endpoint may be a mediator's DID (DIDComm v2.1 §Using a DID as an endpoint), or its URI with routingKeys.
  const service = options.endpoint ? { endpoint: options.endpoint, ...(options.routingKeys?.length ? { routingKeys: options.routingKeys } : {}) } : {};
  const created = options.method === 'peer' ? createPeerDid(service) : createIonDid(service);
  const createdAt = isoNow(deps.clock);
  await deps.secrets.add(created.secrets);
  if (created.controlKeys) await deps.store.collection(CONTROL_KEYS_COLLECTION).put(created.shortDid ?? shortForm(created.did), created.controlKeys);
  await deps.registry.putOwn({
    did: created.did,
    createdAt,
    purpose: WALLET_DID_PURPOSE,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.label ? { label: options.label } : {}),
  });
  return toIdentity(created.did, createdAt, options.endpoint);
}

/** The Ed25519 private key of `kid` from the secrets store (for presentation proofs). Never logged. */
export async function signingKey(secrets: StoredSecrets, kid: string): Promise<Uint8Array> {
  const secret = await secrets.get(kid);
  if (!secret) throw new IdsyncError('secret_not_found', `no private key for ${shortForm(kid)}`);
  const pair = keyPairFromJwk(secret.privateKeyJwk);
  if (pair.type !== 'Ed25519') throw new IdsyncError('invalid_secret', `${shortForm(kid)} is not an Ed25519 key`);
  return pair.privateKey;
}

/**
 * Signs `vp` (holder = the wallet's long form) eddsa-jcs-2022 with the DID's authentication key
 * for a verifier's `challenge` and `domain`: a DID-auth presentation or a credential application.
 */
export async function signAsHolder<T extends VerifiablePresentation>(
  ctx: { identity: WalletIdentity; secrets: StoredSecrets; clock: Clock },
  vp: T,
  bound: { challenge: string; domain: string },
): Promise<T & { proof: JcsProof }> {
  return signPresentation(vp, {
    kid: ctx.identity.authenticationKid,
    privateKey: await signingKey(ctx.secrets, ctx.identity.authenticationKid),
    challenge: bound.challenge,
    domain: bound.domain,
    created: xsdDateTime(ctx.clock.now()),
  });
}
