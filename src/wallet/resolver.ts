// The wallet's DocumentResolver: did:ion always offline through the store's registry (so the
// short forms of the wallet's own DID and of peers it learnt resolve), every other method through
// the resolver given to createWallet, or the package resolver (did:web over HTTP(S)).
import type { Resolvable } from 'did-resolver';
import { createResolver, documentResolver } from '../did/resolver.js';
import type { DidRegistry, DocumentResolver } from '../did/types.js';

export function walletResolver(registry: DidRegistry, options: { resolver?: Resolvable | DocumentResolver; fetch?: typeof fetch }): DocumentResolver {
  const own = documentResolver(createResolver({ registry, ...(options.fetch ? { fetch: options.fetch } : {}) }));
  const given = options.resolver;
  if (!given) return own;
  const external: DocumentResolver = typeof given === 'function' ? given : documentResolver(given);
  return async (did) => (did.startsWith('did:ion:') ? own(did) : external(did));
}
