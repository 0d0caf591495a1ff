// The wallet's resolver: did:ion always offline through the store's registry (so the short forms
// of the wallet's own DID and of peers it learnt resolve), every other method through the
// resolver given to createWallet, or the package resolver (did:web over HTTP(S)). `result` gives
// the whole resolution result, so that a failure can say why (the service is down, say).
import type { Resolvable } from 'did-resolver';
import { errorResult } from '../did/document.js';
import { createResolver, documentResolver } from '../did/resolver.js';
import type { DidRegistry, DIDResolutionResult, DocumentResolver } from '../did/types.js';

export interface WalletResolver {
  /** The document, or null (what the DIDComm layer wants). */
  document: DocumentResolver;
  /** The resolution result, with the error and its message when there is no document. */
  result(did: string): Promise<DIDResolutionResult>;
}

export function walletResolver(registry: DidRegistry, options: { resolver?: Resolvable | DocumentResolver; fetch?: typeof fetch }): WalletResolver {
  const own = createResolver({ registry, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const given = options.resolver;
  const external: Resolvable | undefined =
    given === undefined ? undefined
    : typeof given === 'function'
      ? {
          // A bare DocumentResolver says only "nothing": that is all the result can say.
          resolve: async (did: string) => {
            const doc = await given(did);
            return doc ? { didResolutionMetadata: {}, didDocument: doc, didDocumentMetadata: {} } : errorResult('notFound', 'the resolver given to the wallet found no document');
          },
        }
      : given;
  const pick = (did: string): Resolvable => (external && !did.startsWith('did:ion:') ? external : own);
  const result = async (did: string): Promise<DIDResolutionResult> => {
    try {
      return await pick(did).resolve(did);
    } catch (err) {
      return errorResult('notFound', err instanceof Error ? err.message : String(err));
    }
  };
  return { document: documentResolver({ resolve: result }), result };
}
