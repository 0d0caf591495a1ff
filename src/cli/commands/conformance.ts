// `idsync conformance run --target T [--suite S,…] [--report DIR] [--timeout MS] [--dids F…] [--json]`:
// idsync plays the counterpart of the agent under test (src/harness/) and judges it case by case
// against the rule catalogue. Exit 0 only when no case failed.
import { Command, Option } from 'commander';
import { IdsyncError } from '../../errors.js';
import { writeReportFiles } from '../../harness/report-files.js';
import { DEFAULT_CASE_TIMEOUT_MS, DID_SUITES, INVITATION_SUITES, reportJson, runConformance } from '../../harness/run.js';
import { MEDIATOR_SUITES, runMediatorConformance } from '../../harness/run-mediator.js';
import type { CaseResult } from '../../harness/types.js';
import { usageError } from '../errors.js';
import { envelopeContext } from '../context.js';
import type { CommandDeps } from './did.js';

interface RunOpts {
  transport?: 'http' | 'ws';
  target?: string;
  acceptTimeout: string;
  role?: string;
  suite?: string;
  report?: string;
  timeout?: string;
  dids: string[];
  json?: boolean;
}

function caseLine(c: CaseResult): string {
  const mark = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP', inconclusive: 'INCONCLUSIVE' }[c.status];
  const extra = c.failedRules.length ? `  [${c.failedRules.join(', ')}]` : '';
  return `${mark.padEnd(5)} ${c.id}  ${c.title}${extra}${c.detail && c.status !== 'passed' ? `\n      ${c.detail}` : ''}${c.warnings.length ? `\n      warnings: ${c.warnings.join(', ')}` : ''}${c.advice?.length ? `\n      advice: ${c.advice.join(', ')}` : ''}`;
}

export function registerConformanceCommand(program: Command, deps: CommandDeps): void {
  const conformance = program.command('conformance').description('judge another DIDComm v2 agent against the rule catalogue');
  conformance
    .command('run')
    .description('play the counterpart of the agent under test and run the conformance cases; exit 0 only when no case failed')
    .option('--target <did|url>', 'the DID of the agent under test (its document names a DIDComm HTTP(S) endpoint), or an out-of-band invitation URL it issued')
    .option('--role <role>', 'holder or prover: the agent under test is a holder (idsync issues) or a prover (idsync verifies); idsync prints an invitation URL for it to accept (no --target). mediator: the --target DID or invitation URL is a mediator; idsync is its recipient and a sender. Without it: peer for a DID, invitee for an invitation URL')
    .option('--accept-timeout <ms>', 'with --role: how long the agent has to accept the invitation', '120000')
    .option('--suite <suites>', `comma-separated suites (default all; a DID: ${DID_SUITES.join(', ')}; an invitation URL: ${INVITATION_SUITES.join(', ')})`)
    .option('--report <dir>', 'write report.json, junit.xml and report.html into this folder')
    .addOption(new Option('--transport <transport>', "reach the agent by HTTP POST or over a WebSocket (default: what its DID document offers, HTTP first)").choices(['http', 'ws']))
    .option('--timeout <ms>', 'the longest wait for one answer; a case whose answer does not come is inconclusive', String(DEFAULT_CASE_TIMEOUT_MS))
    .option('--dids <file...>', 'JSON files, each a DID document or an array of them (resolved before any DID method)', [])
    .option('--json', 'print one JSON document {target, cases: [{id, title, status, failedRules, messages}], summary}')
    .action(async (opts: RunOpts) => {
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
      const acceptTimeoutMs = Number(opts.acceptTimeout);
      if (!Number.isInteger(acceptTimeoutMs) || acceptTimeoutMs < 1) throw usageError('invalid_argument', `--accept-timeout must be a positive whole number of milliseconds: ${opts.acceptTimeout}`);
      const timeoutMs = Number(opts.timeout);
      if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw usageError('invalid_argument', `--timeout must be a positive whole number of milliseconds: ${opts.timeout}`);
      const suites = opts.suite ? opts.suite.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
      const known = mediator ? MEDIATOR_SUITES : role ? [role] : invitee ? INVITATION_SUITES : DID_SUITES;
      const unknown = (suites ?? []).filter((s) => !known.includes(s));
      if (unknown.length) throw usageError('invalid_argument', `unknown suite ${unknown.join(', ')} (suites: ${known.join(', ')})`);
      const { resolve } = await envelopeContext({ dids: opts.dids }, deps.io);
      const out = deps.output(Boolean(opts.json));
      out.say(role ? `conformance run: idsync is the ${role === 'holder' ? 'issuer' : 'verifier'}, the agent under test the ${role}` : `conformance run against ${mediator ? 'the mediator ' : ''}${opts.target}`);
      const run = mediator ? runMediatorConformance : runConformance;
      const report = await run({
        ...(role ? { role, acceptTimeoutMs } : { target: opts.target! }),
        resolve,
        timeoutMs,
        ...(opts.transport ? { transport: opts.transport } : {}),
        ...(suites && !holder ? { suites } : {}),
        onCase: (c) => out.say(caseLine(c)),
        // With --json stdout is one JSON document, so the URL to accept goes to stderr.
        onInvitation: (url) => (opts.json ? deps.io.stderr(`invitation: ${url}\n`) : out.say(`accept this invitation with the agent under test (also served as JSON at /connect):\n${url}`)),
      });
      const files = opts.report ? await writeReportFiles(report, opts.report) : [];
      out.result(reportJson(report), () => {
        const s = report.summary;
        return [
          '',
          `${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped, ${s.inconclusive} inconclusive in ${report.durationMs} ms`,
          ...files.map((f) => `wrote ${f}`),
        ].join('\n');
      });
      if (report.summary.failed > 0) {
        const failed = report.cases.filter((c) => c.status === 'failed').map((c) => c.id);
        throw new IdsyncError('conformance_failed', `${failed.length} case(s) failed: ${failed.join(', ')}`);
      }
    });
}
