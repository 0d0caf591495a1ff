// What `conformance run` and `conformance matrix` share: the options that shape a run (suites,
// cases, envelope mode, profile, the harness's DID method, transport, timeouts, expected
// failures, --verbose), checked and turned into run options; the progress line of a case; and
// the exit statuses they document.
import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { parseExpected, type ExpectedFailure } from '../../harness/expected.js';
import { HARNESS_DID_METHODS, type HarnessDidMethod } from '../../harness/harness-did.js';
import { DEFAULT_CASE_TIMEOUT_MS, DID_SUITES, INVITATION_SUITES, RUN_MODES, type RunOptions } from '../../harness/run.js';
import type { CaseResult, HarnessMode, RunProfile } from '../../harness/types.js';
import { entryLines } from '../../harness/verbose.js';
import { asUsage, usageError } from '../errors.js';
import { waitMs } from '../duration.js';
import { envelopeContext } from '../context.js';
import type { CommandDeps } from './did.js';

export interface SharedRunOpts {
  transport?: 'http' | 'ws';
  suite?: string;
  case: string[];
  mode: HarnessMode;
  profile: RunProfile;
  as: HarnessDidMethod;
  timeout: string;
  dids: string[];
  expect?: string;
  json?: boolean;
  verbose?: boolean;
}

export const EXIT_HELP = `
Exit status:
  0  at least one case passed and none failed
  1  a case failed: a MUST broke (under --profile strict, any rule broken)
  2  usage error
  3  nothing could be judged: the agent was unreachable, nobody accepted the invitation,
     no case ran, or every case was blocked, skipped or inconclusive`;

const MARKS: Record<CaseResult['status'], string> = { passed: 'PASS', failed: 'FAIL', expected: 'XFAIL', blocked: 'BLOCKED', skipped: 'SKIP', inconclusive: 'INCONCLUSIVE' };

export function caseLine(c: CaseResult): string {
  const extra = c.failedRules.length ? `  [${c.failedRules.join(', ')}]` : '';
  const lines = [`${MARKS[c.status].padEnd(5)} ${c.id}  ${c.title}${extra}`];
  if (c.detail && c.status !== 'passed') lines.push(`      ${c.detail}`);
  if (c.warnings.length) lines.push(`      warnings: ${c.warnings.join(', ')}`);
  if (c.advice?.length) lines.push(`      advice: ${c.advice.join(', ')}`);
  for (const n of c.notes ?? []) lines.push(`      note: ${n}`);
  return lines.join('\n');
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** The options `run` and `matrix` share, added to `cmd`; `moreSuites` names suites only `cmd` has (run's mediator suites). */
export function addSharedOptions(cmd: Command, moreSuites = ''): Command {
  return cmd
    .option('--suite <suites>', `comma-separated suites (default all; a DID: ${DID_SUITES.join(', ')}; an invitation URL: ${INVITATION_SUITES.join(', ')}${moreSuites})`)
    .option('--case <id>', 'run only this case (repeatable; see the ids in the report); the run-level case run/sent-messages always runs', collect, [])
    .addOption(new Option('--mode <mode>', 'the envelope the cases pack their messages in').choices([...RUN_MODES]).default('authcrypt'))
    .addOption(new Option('--profile <profile>', 'liberal: a broken MUST fails a case; strict: a broken SHOULD or advice not followed does too').choices(['liberal', 'strict']).default('liberal'))
    .addOption(new Option('--as <method>', "the harness's own DID method (did:web is served by the harness at /.well-known/did.json on 127.0.0.1)").choices([...HARNESS_DID_METHODS]).default('did:peer:2'))
    .addOption(new Option('--transport <transport>', 'reach the agent by HTTP POST or over a WebSocket (default: what its DID document offers, HTTP first)').choices(['http', 'ws']))
    .option('--timeout <ms>', 'the longest wait for one answer; a case whose answer does not come is inconclusive', String(DEFAULT_CASE_TIMEOUT_MS))
    .option('--dids <file...>', 'JSON files, each a DID document or an array of them (resolved before any DID method)', [])
    .option('--expect <file>', 'expected failures: a JSON array of {"case", "rule", "reason"?}; listed failures show as expected and do not fail the run')
    .option('--verbose', 'print every message and HTTP answer as it happens (on stderr)')
    .option('--json', 'print one JSON document instead of lines');
}

/** Checks the shared options and turns them into run options (resolver, timeouts, expected failures). */
/** Checks the shared options against the suites and cases the run's kind of target has. */
export async function sharedRunOptions(opts: SharedRunOpts, deps: CommandDeps, known: { suites: readonly string[]; cases: readonly string[] }): Promise<Omit<RunOptions, 'target' | 'role'>> {
  const timeoutMs = waitMs('--timeout', opts.timeout);
  const suites = opts.suite ? opts.suite.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
  const unknown = (suites ?? []).filter((s) => !known.suites.includes(s));
  if (unknown.length) throw usageError('invalid_argument', `unknown suite ${unknown.join(', ')} (suites: ${known.suites.join(', ')})`);
  const unknownCases = opts.case.filter((id) => !known.cases.includes(id) && id !== 'run/sent-messages');
  if (unknownCases.length) throw usageError('invalid_argument', `unknown case ${unknownCases.join(', ')} (cases: ${known.cases.join(', ')})`);
  let expected: ExpectedFailure[] | undefined;
  const expectFile = opts.expect;
  if (expectFile) expected = await asUsage(async () => parseExpected(await readText(expectFile, '--expect'), `--expect ${expectFile}`));
  const { resolve } = await asUsage(() => envelopeContext({ dids: opts.dids }, deps.io));
  return {
    resolve,
    timeoutMs,
    mode: opts.mode,
    profile: opts.profile,
    as: opts.as,
    ...(opts.transport ? { transport: opts.transport } : {}),
    ...(suites ? { suites } : {}),
    ...(opts.case.length ? { cases: opts.case } : {}),
    ...(expected ? { expected } : {}),
    ...(opts.verbose ? { onEntry: (e, event) => deps.io.stderr(`${entryLines(e, event)}\n`) } : {}),
  };
}

export async function readText(file: string, option: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw usageError('file_not_found', `${option} ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
}

