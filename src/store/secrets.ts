// Private keys in the store, as the DIDComm layer asks for them (a SecretsSource).
// Keyed by the canonical kid: its short form (did/short-form.ts: did:ion and did:peer:4), so that
// a key stored under the long-form kid is found by the short-form kid and vice versa (DID Peer
// §Method 4: a peer writes its long form first, its short form after). Never put key material in
// an error.
import type { Secret } from '../did/types.js';
import { shortForm } from '../did/short-form.js';
import { didOf } from '../didcomm/message.js';
import type { SecretsSource } from '../didcomm/types.js';
import { IdsyncError, isErrorCode } from '../errors.js';
import { afterReady, MOVED_METHOD, moveKeys, onceMarked, SHORT_FORM_KEY_MARKS } from './short-form-moves.js';
import type { Store } from './store.js';

export const SECRETS_COLLECTION = 'secrets';

export interface StoredSecrets extends SecretsSource {
  /** Adds (or replaces) secrets, all or nothing. */
  add(secrets: Secret[]): Promise<void>;
  has(kid: string): Promise<boolean>;
  remove(kid: string): Promise<void>;
  /** Canonical (short-form) kids held, optionally only those of one DID (long or short form). */
  kids(did?: string): Promise<string[]>;
}

/** The key a kid is stored under. */
export function canonicalKid(kid: string): string {
  return shortForm(kid);
}

/** Moves, once per store, secrets kept under a did:peer:4 long-form kid (before only ion kids were shortened) to their canonical kid. */
function moveSecretKeys(store: Store): Promise<number> {
  return onceMarked(store, SHORT_FORM_KEY_MARKS, SECRETS_COLLECTION, () =>
    moveKeys<Secret>(store, { collection: SECRETS_COLLECTION, prefix: MOVED_METHOD, to: canonicalKid }),
  );
}

const KID = /^did:[a-z0-9]+:[^#\s]+#[^#\s]+$/;

// Validation messages name the kid (public) and the problem, never a JWK member value. An id
// that is not a kid is not named either: it may be key material passed in the wrong place.
function check(secret: Secret, index: number): void {
  const validId = typeof secret?.id === 'string' && KID.test(secret.id);
  const where = validId ? `secret ${secret.id}` : `secret #${index}`;
  if (!secret || typeof secret !== 'object') throw new IdsyncError('invalid_secret', `${where} is not an object`);
  if (!validId) throw new IdsyncError('invalid_secret', `${where}: id must be a full key id (did#fragment)`);
  if (secret.type !== 'JsonWebKey2020') throw new IdsyncError('invalid_secret', `${where}: type must be JsonWebKey2020`);
  const jwk = secret.privateKeyJwk as unknown as Record<string, unknown> | undefined;
  if (!jwk || typeof jwk !== 'object' || typeof jwk.kty !== 'string' || typeof jwk.d !== 'string' || jwk.d.length === 0) {
    throw new IdsyncError('invalid_secret', `${where}: privateKeyJwk must be a private JWK (kty and d)`);
  }
}

const named = (kid: string) => (typeof kid === 'string' && KID.test(kid) ? kid : '(not a kid)');

// A store failure while secrets are involved: keep the code, drop anything else.
function hide(err: unknown, what: string): IdsyncError {
  const code = (err as { code?: unknown })?.code;
  return new IdsyncError(isErrorCode(code) && code.startsWith('store_') ? code : 'store_error', what);
}

// Every pack/unpack asks for the same few keys several times; a LevelDB read each time cost
// the envelope layer ~5% against raw didcomm-node (npm run bench). Hits are cached per store
// (one cache however many storeSecrets() views exist), and add/remove keep it in step.
const caches = new WeakMap<Store, Map<string, Secret>>();

export function storeSecrets(store: Store): StoredSecrets {
  const col = store.collection<Secret>(SECRETS_COLLECTION);
  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = new Map()));
  const hits = cache;

  async function load(kid: string): Promise<Secret | undefined> {
    const key = canonicalKid(kid);
    const cached = hits.get(key);
    if (cached) return cached;
    try {
      const found = await col.get(key);
      if (found) hits.set(key, found);
      return found;
    } catch (err) {
      throw hide(err, `could not read secret ${named(kid)}`);
    }
  }

  return afterReady(() => moveSecretKeys(store), {
    async get(kid: string) {
      const s = await load(kid);
      // didcomm-node needs the secret id to equal the kid it asked for, whichever form that was.
      return s ? { id: kid, type: s.type, privateKeyJwk: s.privateKeyJwk } : undefined;
    },

    async find(kids: string[]) {
      const out: string[] = [];
      for (const kid of kids) if ((await load(kid)) !== undefined) out.push(kid);
      return out;
    },

    async has(kid: string) {
      return (await load(kid)) !== undefined;
    },

    async add(secrets: Secret[]) {
      secrets.forEach(check);
      const ops = secrets.map((s) => ({
        type: 'put' as const,
        collection: SECRETS_COLLECTION,
        key: canonicalKid(s.id),
        value: { id: s.id, type: s.type, privateKeyJwk: s.privateKeyJwk },
      }));
      try {
        await store.batch(ops);
      } catch (err) {
        throw hide(err, `could not store secrets ${secrets.map((s) => named(s.id)).join(', ')}`);
      }
      for (const op of ops) hits.delete(op.key);
    },

    async remove(kid: string) {
      hits.delete(canonicalKid(kid));
      try {
        await col.del(canonicalKid(kid));
      } catch (err) {
        throw hide(err, `could not remove secret ${named(kid)}`);
      }
    },

    async kids(did?: string) {
      try {
        const prefix = did === undefined ? undefined : `${shortForm(didOf(did))}#`;
        return (await col.list({ prefix })).map((e) => e.key);
      } catch (err) {
        throw hide(err, 'could not list secrets');
      }
    },
  });
}
