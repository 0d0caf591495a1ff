// `idsync message check FILE|- [--secrets F…] [--dids F…] [--profile liberal|strict] [--json]`: one
// message, plaintext or packed, checked against the rule catalogue (docs/rules.md): every rule that
// can be judged, each on its own, with its spec section. A plaintext is recognised by its members
// even without `type`; a packed one is judged by its envelope alone, or opened too when keys are
// given (a signed one opens when its signer's DID resolves). When the strict unpack refuses, the
// deviant forms agents are known to send are tried and what was found is said ("diagnosis").
// Exit 0 when no MUST is broken (under --profile strict: no SHOULD and no advice either), else 1.
import type { Command } from 'commander';
import { ruleOf } from '../../conformance/catalogue.js';
import { failuresUnder, type ConformanceResult, type Profile, type Severity } from '../../conformance/types.js';
import { IdsyncError } from '../../errors.js';
import { envelopeContext } from '../context.js';
import { asUsage, usageError } from '../errors.js';
import { readInput } from '../inputs.js';
import type { CommandDeps } from './did.js';

export interface MessageCheckOutput {
  ok: boolean;
  profile: Profile;
  results: Array<{ rule: string; ok: boolean; severity: Severity; detail?: string }>;
  diagnosis: Array<{ rule: string; finding: string }>;
}

const PROFILES: Profile[] = ['liberal', 'strict'];
const MARK: Record<Severity, string> = { error: 'FAIL', warning: 'warn', advice: 'advice' };

function line(r: ConformanceResult): string {
  const entry = ruleOf(r.rule);
  const mark = r.ok ? (r.detail ? 'note' : 'pass') : MARK[r.severity];
  const where = entry ? `  (${entry.spec} ${entry.version}, ${entry.section})` : '';
  return `${mark.padEnd(6)} ${r.rule}${where}${r.detail ? `\n       ${r.detail}` : ''}`;
}

export function registerMessageCheckCommand(program: Command, deps: CommandDeps): void {
  const message = program.commands.find((c) => c.name() === 'message');
  if (!message) throw new Error('register the message command first');
  message
    .command('check')
    .description(
      'check one DIDComm v2 message (plaintext or packed) against the conformance rule catalogue, every rule that can be judged; ' +
        'exit 0 when no MUST is broken (under --profile strict, no SHOULD and no advice either), 1 otherwise',
    )
    .argument('<file>', 'the message; - reads standard input')
    .option('--secrets <file...>', "JSON files of private JWKs with kid (the recipient's, to open an encrypted message)", [])
    .option('--dids <file...>', 'JSON files, each a DID document or an array of them', [])
    .option('--profile <profile>', 'liberal: only a broken MUST fails; strict: a broken SHOULD or advice not followed fails too', 'liberal')
    .option('--json', 'print one JSON document {"ok", "profile", "results": [{rule, ok, severity, detail}], "diagnosis": [{rule, finding}]}')
    .action(async (file: string, opts: { secrets: string[]; dids: string[]; json?: boolean; profile: string }) => {
      if (!PROFILES.includes(opts.profile as Profile)) throw usageError('invalid_argument', `--profile must be liberal or strict, not ${opts.profile}`);
      const profile = opts.profile as Profile;
      const ctx = await asUsage(() => envelopeContext(opts, deps.io));
      const text = (await asUsage(() => readInput(file, deps.io))).trim();
      // Loaded here: the protocol body rules pull in the credential code, which other commands do not need at start-up.
      const { checkMessageText } = await import('../../harness/check.js');
      const checked = await checkMessageText(text, ctx, { canDecrypt: opts.secrets.length > 0, profile });
      const out: MessageCheckOutput = {
        ok: checked.ok,
        profile,
        results: checked.results.map((r) => ({ rule: r.rule, ok: r.ok, severity: r.severity, ...(r.detail !== undefined ? { detail: r.detail } : {}) })),
        diagnosis: checked.diagnosis,
      };
      deps.output(Boolean(opts.json)).result(out, () => {
        const broken = checked.results.filter((r) => !r.ok);
        const count = (s: Severity) => broken.filter((r) => r.severity === s).length;
        return [
          ...(checked.metadata ? [`mode: ${checked.metadata.mode}`] : []),
          ...(checked.notOpened ? [`not opened: ${checked.notOpened}`] : []),
          ...(checked.message ? [`type: ${checked.message.type === undefined ? '(none)' : String(checked.message.type)}`] : []),
          ...(checked.diagnosis.length ? ['found:', ...checked.diagnosis.map((d) => `  ${d.finding}  [${d.rule}]`)] : []),
          ...checked.results.map(line),
          '',
          `${checked.results.length} checks, ${count('error')} MUST broken, ${count('warning')} SHOULD broken, ${count('advice')} advice not followed (profile ${profile}): ${checked.ok ? 'conformant' : 'NOT conformant'}`,
        ].join('\n');
      });
      if (!checked.ok) {
        const failures = failuresUnder(checked.results, profile);
        const first = failures[0]!;
        const more = failures.length > 1 ? ` (and ${failures.length - 1} more)` : '';
        throw new IdsyncError('nonconformant', `${first.rule}: ${first.detail ?? 'broken'}${more}`, { details: { rule: first.rule, failures: failures.map((f) => f.rule) } });
      }
    });
}
