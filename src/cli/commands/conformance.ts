// `idsync conformance run` and `idsync conformance matrix`: idsync plays the counterpart of the
// agent under test (src/harness/) and judges it case by case against the rule catalogue. Exit 0
// only when a case passed and none failed, 1 when one failed, 3 when nothing could be judged.
import type { Command } from 'commander';
import { IdsyncError, toIdsyncError } from '../../errors.js';
import { diffBaseline, parseBaseline, type BaselineDiff } from '../../harness/baseline.js';
import { EXIT_FAILED, EXIT_NOT_JUDGED, notJudgedReason, runExitCode } from '../../harness/exit-code.js';
import { writeReportFiles } from '../../harness/report-files.js';
import { makeWritableDir } from '../../make-dir.js';
import { CASE_IDS, DID_SUITES, INVITATION_SUITES, reportJson, runConformance } from '../../harness/run.js';
import type { ConformanceReport } from '../../harness/types.js';
import { asUsage, usageError } from '../errors.js';
import { waitMs } from '../duration.js';
import { MEDIATOR_CASES, MEDIATOR_SUITES, runMediatorConformance } from '../../harness/run-mediator.js';
import { registerMatrixCommand } from './conformance-matrix.js';
import { addSharedOptions, caseLine, EXIT_HELP, readText, sharedRunOptions, type SharedRunOpts } from './conformance-options.js';
import type { CommandDeps } from './did.js';

interface RunOpts extends SharedRunOpts {
  target?: string;
  acceptTimeout: string;
  role?: string;
  report?: string;
  baseline?: string;
}

function baselineLines(d: BaselineDiff): string[] {
  const pairs = (list: BaselineDiff['newlyFailing']) => list.map((p) => `${p.case} ${p.rule}`).join(', ') || 'none';
  return [
    `against the baseline: newly failing ${pairs(d.newlyFailing)}; newly passing ${pairs(d.newlyPassing)}`,
    ...d.statusChanges.map((s) => `  ${s.case}: ${s.from} → ${s.to}`),
  ];
}

/** Throws the error that gives the run's exit status (1 or 3); returns for 0. */
/**
 * A run that could not start on the target given: an invitation URL that holds no invitation is
 * the user's input (a usage error, exit 2); a short invitation URL nobody answers is an agent
 * that cannot be reached (exit 3, as for a DID that does not resolve). Exit 1 stays "a case failed".
 */
function targetError(err: unknown): unknown {
  const e = toIdsyncError(err);
  const unreachable = e.code === 'transport_unreachable' || e.code === 'transport_timeout' || (e.code === 'invalid_invitation' && e.details?.reason === 'fetch_failed');
  if (unreachable) return new IdsyncError(e.code, e.message, { cause: e.cause, details: { ...e.details, exitCode: EXIT_NOT_JUDGED } });
  if (e.code === 'invalid_invitation' || e.code === 'json_too_deep' || e.code === 'response_too_large') {
    return new IdsyncError(e.code, e.message, { cause: e.cause, details: { ...e.details, usage: true } });
  }
  return err;
}

export function finish(report: ConformanceReport): void {
  const code = runExitCode(report);
  if (code === EXIT_FAILED) {
    const failed = report.cases.filter((c) => c.status === 'failed').map((c) => c.id);
    throw new IdsyncError('conformance_failed', `${failed.length} case(s) failed: ${failed.join(', ')}`);
  }
  if (code === EXIT_NOT_JUDGED) throw new IdsyncError('conformance_not_judged', notJudgedReason(report), { details: { exitCode: EXIT_NOT_JUDGED } });
}

export function registerConformanceCommand(program: Command, deps: CommandDeps): void {
  const conformance = program.command('conformance').description('judge another DIDComm v2 agent against the rule catalogue');
  const run = conformance
    .command('run')
    .description('play the counterpart of the agent under test and run the conformance cases')
    .option('--target <did|url>', 'the DID of the agent under test (its document names a DIDComm HTTP(S) or WebSocket endpoint), or an out-of-band invitation URL it issued')
    .option('--role <role>', 'holder or prover: the agent under test is a holder (idsync issues) or a prover (idsync verifies); idsync prints an invitation URL for it to accept (no --target). mediator: the --target DID or invitation URL is a mediator; idsync is its recipient and a sender. Without it: peer for a DID, invitee for an invitation URL')
    .option('--accept-timeout <ms>', 'with --role: how long the agent has to accept the invitation', '120000')
    .option('--report <dir>', 'write report.json, junit.xml and report.html into this folder')
    .option('--baseline <file>', 'compare with an earlier run (its report.json or --json output): newly failing, newly passing');
  addSharedOptions(run, `; --role mediator: ${MEDIATOR_SUITES.join(', ')}`)
    .addHelpText('after', EXIT_HELP)
    .action(async (opts: RunOpts, cmd: Command) => {
      const verbose = Boolean(cmd.optsWithGlobals().verbose);
      if (opts.role !== undefined && opts.role !== 'holder' && opts.role !== 'prover' && opts.role !== 'mediator') throw usageError('invalid_argument', `--role must be holder, prover or mediator, not ${opts.role}`);
      const mediator = opts.role === 'mediator';
      if (mediator && !opts.target) throw usageError('missing_mandatory_option_value', "--role mediator needs --target <did|url>: the mediator's DID or its invitation URL");
      const role = mediator ? undefined : (opts.role as 'holder' | 'prover' | undefined);
      const holder = role !== undefined;
      if (holder && opts.target) throw usageError('conflicting_option', `--role ${role} takes no --target: the agent under test is whoever accepts the invitation`);
      if (!holder && !opts.target) throw usageError('missing_mandatory_option_value', "required option '--target <did|url>' not specified (or use --role holder|prover)");
      const invitee = /^https?:\/\//i.test(opts.target ?? '');
      // The same rule runConformance applies, checked before anything is printed: a usage error (exit 2).
      if (!holder && !invitee && !opts.target!.startsWith('did:')) throw usageError('invalid_argument', `--target must be a DID or an out-of-band invitation URL: ${opts.target}`);
      const acceptTimeoutMs = waitMs('--accept-timeout', opts.acceptTimeout);
      const kind = role ?? (invitee ? 'invitation' : 'did');
      const known = mediator
        ? { suites: MEDIATOR_SUITES, cases: MEDIATOR_CASES.map((c) => c.id) }
        : { suites: role ? [role] : invitee ? INVITATION_SUITES : DID_SUITES, cases: CASE_IDS[kind] };
      const shared = await sharedRunOptions({ ...opts, verbose }, deps, known);
      const baselineFile = opts.baseline;
      const baseline = baselineFile ? await asUsage(async () => parseBaseline(await readText(baselineFile, '--baseline'), `--baseline ${baselineFile}`)) : undefined;
      // The report's folder is checked before the run: one nothing can be written to fails now
      // (exit 2), not after the run with its results lost.
      if (opts.report) await asUsage(() => makeWritableDir(opts.report!));
      const out = deps.output(Boolean(opts.json));
      out.say(role ? `conformance run: idsync is the ${role === 'holder' ? 'issuer' : 'verifier'}, the agent under test the ${role}` : `conformance run against ${mediator ? 'the mediator ' : ''}${opts.target}`);
      const run = mediator ? runMediatorConformance : runConformance;
      const report = await run({
        ...shared,
        ...(role ? { role, acceptTimeoutMs } : { target: opts.target! }),
        ...(holder ? { suites: undefined } : {}),
        onCase: (c) => out.say(caseLine(c)),
        // With --json stdout is one JSON document, so the URL to accept goes to stderr.
        onInvitation: (url) => (opts.json ? deps.io.stderr(`invitation: ${url}\n`) : out.say(`accept this invitation with the agent under test (also served as JSON at /connect):\n${url}`)),
      }).catch((err: unknown) => {
        throw targetError(err);
      });
      const files = opts.report ? await writeReportFiles(report, opts.report) : [];
      const diff = baseline ? diffBaseline(baseline, report) : undefined;
      out.result({ ...reportJson(report), exitCode: runExitCode(report), ...(diff ? { baseline: diff } : {}) }, () => {
        const s = report.summary;
        const counts = (Object.keys(s) as Array<keyof typeof s>).filter((k) => s[k] > 0 || k === 'passed' || k === 'failed').map((k) => `${s[k]} ${k}`);
        return [
          '',
          `${counts.join(', ')} in ${report.durationMs} ms`,
          ...(report.unseenExpected ?? []).map((u) => `expected to fail, now passes: ${u.case} ${u.rule}${u.reason ? ` (${u.reason})` : ''}`),
          ...(diff ? baselineLines(diff) : []),
          ...files.map((f) => `wrote ${f}`),
        ].join('\n');
      });
      finish(report);
    });
  registerMatrixCommand(conformance, deps);
}
