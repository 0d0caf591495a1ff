// The resolver and secrets a CLI command works with: every DID method we implement, plus DID
// documents the user supplied (--dids) so that DIDs like did:example from the spec resolve too.
import { createResolver, documentResolver, failuresOf } from '../did/resolver.js';
import type { DIDDocument, DocumentResolver } from '../did/types.js';
import { memorySecrets } from '../didcomm/secrets.js';
import type { EnvelopeContext } from '../didcomm/types.js';
import { loadDidDocuments, loadSecrets } from './inputs.js';
import type { CliIo } from './output.js';

/** Supplied documents win over method resolution (they are what the user asked us to believe). */
export function withLocalDocuments(documents: DIDDocument[], fallback: DocumentResolver): DocumentResolver {
  const byDid = new Map(documents.map((doc) => [doc.id, doc]));
  return failuresOf(async (did: string) => byDid.get(did) ?? fallback(did), fallback);
}

export function methodResolver(): DocumentResolver {
  return documentResolver(createResolver({}));
}

export async function envelopeContext(options: { secrets?: string[]; dids?: string[] }, io: CliIo): Promise<EnvelopeContext> {
  const documents = await loadDidDocuments(options.dids ?? [], io);
  const secrets = await loadSecrets(options.secrets ?? [], io);
  return { resolve: withLocalDocuments(documents, methodResolver()), secrets: memorySecrets(secrets) };
}
