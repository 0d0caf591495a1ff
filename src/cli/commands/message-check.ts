// `idsync message check FILE|- [--secrets F…] [--dids F…] [--json]`: one message, plaintext or
// packed, checked against the rule catalogue (docs/rules.md) — the envelope alone, or the opened
// message too when keys are given (a signed one opens when its signer's DID resolves). Prints every
// rule checked, pass or fail, with its spec section; exits 1 when a MUST is broken.
import type { Command } from 'commander';
import { ruleOf } from '../../conformance/catalogue.js';
import type { ConformanceResult, Severity } from '../../conformance/types.js';
import { IdsyncError } from '../../errors.js';
import { envelopeContext } from '../context.js';
import { readInput } from '../inputs.js';
import type { CommandDeps } from './did.js';

export interface MessageCheckOutput {
  ok: boolean;
  results: Array<{ rule: string; ok: boolean; severity: Severity; detail?: string }>;
}

function line(r: ConformanceResult): string {
  const entry = ruleOf(r.rule);
  const mark = r.ok ? (r.detail ? 'note' : 'pass') : r.severity === 'error' ? 'FAIL' : r.severity === 'warning' ? 'warn' : 'advice';
  const where = entry ? `  (${entry.spec} ${entry.version}, ${entry.section})` : '';
  return `${mark.padEnd(4)} ${r.rule}${where}${r.detail ? `\n     ${r.detail}` : ''}`;
}

export function registerMessageCheckCommand(program: Command, deps: CommandDeps): void {
  const message = program.commands.find((c) => c.name() === 'message');
  if (!message) throw new Error('register the message command first');
  message
    .command('check')
    .description('check one DIDComm v2 message (plaintext or packed) against the conformance rule catalogue; exit 1 when a MUST is broken')
    .argument('<file>', 'the message; - reads standard input')
    .option('--secrets <file...>', "JSON files of private JWKs with kid (the recipient's, to open an encrypted message)", [])
    .option('--dids <file...>', 'JSON files, each a DID document or an array of them', [])
    .option('--json', 'print one JSON document {"ok", "results": [{rule, ok, severity, detail}]}')
    .action(async (file: string, opts: { secrets: string[]; dids: string[]; json?: boolean }) => {
      const ctx = await envelopeContext(opts, deps.io);
      const text = (await readInput(file, deps.io)).trim();
      // Loaded here: the protocol body rules pull in the credential code, which other commands do not need at start-up.
      const { checkMessageText } = await import('../../harness/check.js');
      const checked = await checkMessageText(text, ctx, { canDecrypt: opts.secrets.length > 0 });
      const out: MessageCheckOutput = {
        ok: checked.ok,
        results: checked.results.map((r) => ({ rule: r.rule, ok: r.ok, severity: r.severity, ...(r.detail !== undefined ? { detail: r.detail } : {}) })),
      };
      deps.output(Boolean(opts.json)).result(out, () => {
        const broken = checked.results.filter((r) => !r.ok);
        return [
          ...(checked.metadata ? [`mode: ${checked.metadata.mode}`] : []),
          ...(checked.notOpened ? [`not opened: ${checked.notOpened}`] : []),
          ...(checked.message ? [`type: ${String(checked.message.type)}`] : []),
          ...checked.results.map(line),
          '',
          `${checked.results.length} checks, ${broken.filter((r) => r.severity === 'error').length} MUST broken, ${broken.filter((r) => r.severity === 'warning').length} SHOULD broken: ${checked.ok ? 'conformant' : 'NOT conformant'}`,
        ].join('\n');
      });
      if (!checked.ok) {
        const first = checked.results.find((r) => !r.ok && r.severity === 'error')!;
        throw new IdsyncError('nonconformant', `${first.rule}: ${first.detail ?? 'broken'}`, { details: { rule: first.rule } });
      }
    });
}
