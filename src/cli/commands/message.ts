// `idsync message pack|unpack`: DIDComm v2 envelopes from the terminal, with keys and DID
// documents from files so that spec vectors (did:example) and our own DIDs both work.
import { randomUUID } from 'node:crypto';
import { Command, Option } from 'commander';
import { pack, unpack } from '../../didcomm/envelope/index.js';
import type { EnvelopeEngine, EnvelopeMode, PlainMessage } from '../../didcomm/types.js';
import { IdsyncError } from '../../errors.js';
import { envelopeContext } from '../context.js';
import { engineOf, engineOption } from '../engine-option.js';
import { usageError } from '../errors.js';
import { readInput, readJson } from '../inputs.js';
import { pretty } from '../output.js';
import type { CommandDeps } from './did.js';

export const PACK_MODES = ['plaintext', 'signed', 'anoncrypt', 'authcrypt', 'authcrypt-signed', 'anoncrypt-authcrypt'] as const satisfies readonly EnvelopeMode[];

export function registerMessageCommand(program: Command, deps: CommandDeps): void {
  const message = program.command('message').description('pack and unpack DIDComm v2 messages');

  message
    .command('unpack')
    .description('unpack a DIDComm v2 message (plaintext, signed or encrypted)')
    .argument('<file>', 'the packed message; - reads standard input')
    .option('--secrets <file...>', 'JSON files, each an array of private JWKs with kid', [])
    .option('--dids <file...>', 'JSON files, each a DID document or an array of them', [])
    .addOption(engineOption())
    .option('--json', 'print one JSON document {message, metadata}')
    .action(async (file: string, opts: { secrets: string[]; dids: string[]; engine?: EnvelopeEngine; json?: boolean }) => {
      const ctx = { ...(await unreadableAsUsage(() => envelopeContext(opts, deps.io))), ...engineOf(opts) };
      const packed = (await unreadableAsUsage(() => readInput(file, deps.io))).trim();
      if (packed === '') throw new IdsyncError('didcomm_malformed', 'the message is empty');
      const result = await unpack(packed, ctx);
      deps.output(Boolean(opts.json)).result(result, (r) => {
        const m = r.metadata;
        return [
          `mode: ${m.mode}`,
          `encrypted: ${m.encrypted}, authenticated: ${m.authenticated}, non-repudiation: ${m.nonRepudiation}, anonymous sender: ${m.anonymousSender}`,
          ...(m.encryptedFromKid ? [`sender key: ${m.encryptedFromKid}`] : []),
          ...(m.signFrom ? [`signed by: ${m.signFrom}`] : []),
          ...(m.encryptedToKids?.length ? [`recipient keys: ${m.encryptedToKids.join(', ')}`] : []),
          // Forms the spec allows that were accepted though unusual (conformance notes).
          ...(m.notes ?? []).map((n) => `note (${n.rule}): ${n.detail}`),
          'message:',
          pretty(r.message),
        ].join('\n');
      });
    });

  message
    .command('pack')
    .description('pack a plaintext DIDComm v2 message JSON')
    .argument('<file>', 'the plaintext message JSON; - reads standard input')
    .addOption(new Option('--mode <mode>', 'envelope').choices(PACK_MODES).makeOptionMandatory())
    .option('--to <did>', 'recipient DID (default: the message\'s first "to")')
    .option('--from <did>', 'sender DID for authcrypt and signer for signed modes (default: the message\'s "from")')
    .option('--secrets <file...>', 'JSON files, each an array of private JWKs with kid', [])
    .option('--dids <file...>', 'JSON files, each a DID document or an array of them', [])
    .option('--protect-sender', 'authcrypt-signed only: anoncrypt it again, packing anoncrypt(authcrypt(sign(plaintext))), which DIDComm v2.1 §IANA Media Types says MUST NOT be used (to test how recipients take it)')
    .addOption(engineOption())
    .option('--json', 'print one JSON document {packed, mode, ...metadata}')
    .action(async (file: string, opts: { mode: EnvelopeMode; to?: string; from?: string; secrets: string[]; dids: string[]; protectSender?: boolean; engine?: EnvelopeEngine; json?: boolean }) => {
      const ctx = { ...(await unreadableAsUsage(() => envelopeContext(opts, deps.io))), ...engineOf(opts) };
      const plain = toPlainMessage(await unreadableAsUsage(() => readJson(file, deps.io)), opts);
      checkParties(opts.mode, plain);
      if (opts.protectSender && opts.mode !== 'authcrypt-signed') throw usageError('conflicting_option', `--protect-sender applies to --mode authcrypt-signed only, not ${opts.mode}`);
      // The plaintext as packed is the input file's: not printed again.
      const { plaintext: _plaintext, ...result } = await pack(plain, { mode: opts.mode, ...(opts.to ? { to: opts.to } : {}), ...(opts.from ? { from: opts.from } : {}), ...(opts.protectSender ? { protectSender: true } : {}) }, ctx);
      // Without --json print the packed message alone, so that it pipes into `message unpack -`.
      deps.output(Boolean(opts.json)).result(result, (r) => r.packed);
    });
}

/**
 * An input file (the message, --secrets, --dids) that is missing, a directory or unreadable is
 * the caller's mistake: exit 2, as in `message check`. What a readable file holds (JSON, keys, a
 * message) keeps its own code and exit 1.
 */
async function unreadableAsUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof IdsyncError && (err.code === 'file_not_found' || err.code === 'file_unreadable')) {
      throw new IdsyncError(err.code, err.message, { cause: err.cause, details: { ...err.details, usage: true } });
    }
    throw err;
  }
}

/**
 * The parties the mode needs, named as the command line gives them (--from, --to or the
 * message's own headers), before the envelope layer says the same in its library terms.
 */
function checkParties(mode: EnvelopeMode, plain: PlainMessage): void {
  const authcrypts = mode === 'authcrypt' || mode === 'anoncrypt-authcrypt' || mode === 'authcrypt-signed';
  const signs = mode === 'signed' || mode === 'anoncrypt-signed' || mode === 'authcrypt-signed';
  // Malformed headers (a `to` that is no array) are left to the envelope layer to name.
  if ((authcrypts || signs) && (plain.from === undefined || plain.from === '')) {
    throw usageError('missing_mandatory_option_value', `--mode ${mode} needs a ${authcrypts ? 'sender' : 'signer'}: --from DID or the message's "from"`);
  }
  if (mode !== 'plaintext' && mode !== 'signed' && (plain.to === undefined || (Array.isArray(plain.to) && plain.to.length === 0))) {
    throw usageError('missing_mandatory_option_value', `--mode ${mode} needs a recipient: --to DID or the message's "to"`);
  }
}

/**
 * Checks the DIDComm v2 §2.4 required headers (id, type, body) and fills what the options imply:
 * a missing `id` gets a UUID, a missing `to`/`from` takes --to/--from (the envelope layer checks
 * that they agree with the message when both are present).
 */
export function toPlainMessage(value: unknown, opts: { to?: string; from?: string }): PlainMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new IdsyncError('didcomm_malformed', 'a plaintext message is a JSON object');
  const msg = { ...(value as Record<string, unknown>) };
  if (msg.id === undefined) msg.id = randomUUID();
  if (typeof msg.id !== 'string') throw new IdsyncError('didcomm_malformed', 'the message "id" must be a string');
  if (typeof msg.type !== 'string') throw new IdsyncError('didcomm_malformed', 'the message needs a "type" string');
  if (typeof msg.body !== 'object' || msg.body === null || Array.isArray(msg.body)) throw new IdsyncError('didcomm_malformed', 'the message needs a "body" object');
  if (msg.to === undefined && opts.to) msg.to = [opts.to];
  if (msg.from === undefined && opts.from) msg.from = opts.from;
  return msg as PlainMessage;
}
