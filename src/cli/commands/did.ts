// `idsync did create|resolve`: make a DID of one of our methods, or resolve any DID we can.
import { Command, Option } from 'commander';
import { createIonDid } from '../../did/ion.js';
import { createKeyDid } from '../../did/key.js';
import { createPeerDid } from '../../did/peer.js';
import { createPeerDid4 } from '../../did/peer4.js';
import { createResolver, echoedDid } from '../../did/resolver.js';
import type { CreatedDid, DIDResolutionResult } from '../../did/types.js';
import { IdsyncError, type ErrorCode } from '../../errors.js';
import { asUsage, usageError } from '../errors.js';
import { DIDCOMM_SCHEMES, parseUrlOption } from '../url-option.js';
import { secretsFileContent, writePrivateFile } from '../inputs.js';
import { pretty, type CliIo, type Output } from '../output.js';

export const DID_METHODS = ['ion', 'peer', 'peer4', 'key'] as const;
export type DidMethod = (typeof DID_METHODS)[number];

export interface CommandDeps {
  io: CliIo;
  output(json: boolean): Output;
}

export function registerDidCommand(program: Command, deps: CommandDeps): void {
  const did = program.command('did').description('create and resolve DIDs');

  did
    .command('create')
    .description('create a DID and print it with its document')
    .addOption(new Option('--method <method>', 'DID method').choices(DID_METHODS).default('ion'))
    .option('--endpoint <url>', 'DIDComm service endpoint to put in the document (ion, peer, peer4)')
    .option('--keys-out <file>', 'write the private keys (JWKs with kid) to this new file, mode 0600')
    .option('--json', 'print one JSON document {did, shortDid?, document}')
    .action(async (opts: { method: DidMethod; endpoint?: string; keysOut?: string; json?: boolean }) => {
      const created = await createDid(opts.method, opts.endpoint);
      // Keys first: a DID printed without its keys saved would be useless.
      // A path that cannot take the new file (it exists, its folder does not) is the user's to fix: exit 2.
      if (opts.keysOut) await asUsage(() => writePrivateFile(opts.keysOut!, secretsFileContent(created.secrets)));
      const out = deps.output(Boolean(opts.json));
      const result = { did: created.did, ...(created.shortDid ? { shortDid: created.shortDid } : {}), document: created.document };
      out.result(result, (r) =>
        [`did: ${r.did}`, ...(r.shortDid ? [`short did: ${r.shortDid}`] : []), 'document:', pretty(r.document), ...(opts.keysOut ? [`private keys written to ${opts.keysOut}`] : [])].join('\n'),
      );
    });

  did
    .command('resolve')
    .description('resolve a DID and print the DID resolution result')
    .argument('<did>', 'the DID to resolve')
    .option('--json', 'print the resolution result as one JSON document')
    .action(async (didArg: string, opts: { json?: boolean }) => {
      const result = await resolveDid(didArg);
      deps.output(Boolean(opts.json)).result(result, humanResolution);
      const error = result.didResolutionMetadata.error;
      if (error) {
        // DID Core §7.1.2: resolution errors are part of the result (printed above); the exit status says so too.
        const detail = typeof result.didResolutionMetadata.message === 'string' ? `: ${result.didResolutionMetadata.message}` : '';
        throw new IdsyncError(Object.hasOwn(RESOLUTION_ERRORS, error) ? RESOLUTION_ERRORS[error] : 'did_not_resolved', `cannot resolve ${echoedDid(didArg)} (${error}${detail})`);
      }
    });
}

/** DID Resolution §7.1.2 error names (and did-resolver's) as catalogue codes; any other is `did_not_resolved`. */
const RESOLUTION_ERRORS: Readonly<Record<string, ErrorCode>> = {
  invalidDid: 'invalid_did',
  notFound: 'not_found',
  methodNotSupported: 'method_not_supported',
};

async function createDid(method: DidMethod, endpoint: string | undefined): Promise<CreatedDid> {
  if (endpoint !== undefined) parseUrlOption('--endpoint', endpoint, DIDCOMM_SCHEMES);
  switch (method) {
    case 'ion':
      return createIonDid(endpoint ? { endpoint } : {});
    case 'peer':
      return createPeerDid(endpoint ? { endpoint } : {});
    case 'peer4':
      return createPeerDid4(endpoint ? { endpoint } : {});
    case 'key':
      if (endpoint) throw usageError('invalid_argument', 'did:key documents have no service; --endpoint works with ion, peer and peer4');
      return createKeyDid();
  }
}

export async function resolveDid(did: string): Promise<DIDResolutionResult> {
  return createResolver({}).resolve(did);
}

function humanResolution(r: DIDResolutionResult): string {
  const lines = [];
  if (r.didResolutionMetadata.error) lines.push(`error: ${r.didResolutionMetadata.error}`);
  // What the resolver read although the method spec forbids it (did/peer.ts), shown before the document.
  const warnings = (r.didResolutionMetadata as { warnings?: { message: string }[] }).warnings ?? [];
  for (const w of warnings) lines.push(`warning: ${w.message}`);
  if (r.didDocument) lines.push('document:', pretty(r.didDocument));
  lines.push(`document metadata: ${JSON.stringify(r.didDocumentMetadata)}`);
  lines.push(`resolution metadata: ${JSON.stringify(r.didResolutionMetadata)}`);
  return lines.join('\n');
}
