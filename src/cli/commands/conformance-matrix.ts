// `idsync conformance matrix --target A --target B …`: the same cases run against several agents,
// one after the other, laid out side by side (src/harness/matrix.ts): matrix.html (cases × targets,
// rules × targets), matrix.json, and each target's own report files. Exit 1 when any target
// failed, 3 when none failed but one could not be judged, else 0.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { IdsyncError } from '../../errors.js';
import { buildMatrix, matrixExitCode, matrixHtml } from '../../harness/matrix.js';
import { writeReportFiles } from '../../harness/report-files.js';
import { CASE_IDS, DID_SUITES, INVITATION_SUITES, runConformance } from '../../harness/run.js';
import type { ConformanceReport } from '../../harness/types.js';
import { usageError } from '../errors.js';
import { addSharedOptions, caseLine, EXIT_HELP, sharedRunOptions, type SharedRunOpts } from './conformance-options.js';
import type { CommandDeps } from './did.js';
import { makeDir } from '../../make-dir.js';

interface MatrixOpts extends SharedRunOpts {
  target: string[];
  report?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerMatrixCommand(conformance: Command, deps: CommandDeps): void {
  const matrix = conformance
    .command('matrix')
    .description('run the conformance cases against several agents and lay the verdicts side by side: cases × targets, rules × targets')
    .option('--target <did|url>', 'an agent under test: a DID or an out-of-band invitation URL (repeat for each agent)', collect, [])
    .option('--report <dir>', 'write matrix.html, matrix.json and, per target, target-<n>/ with its report.json, junit.xml and report.html');
  addSharedOptions(matrix)
    .addHelpText('after', EXIT_HELP.replace('Exit status:', 'Exit status (over all targets; 1 wins over 3):'))
    .action(async (opts: MatrixOpts, cmd: Command) => {
      if (opts.target.length === 0) throw usageError('missing_mandatory_option_value', "required option '--target <did|url>' not specified (repeat it for each agent)");
      const bad = opts.target.find((t) => !/^https?:\/\//i.test(t) && !t.startsWith('did:'));
      if (bad) throw usageError('invalid_argument', `--target must be a DID or an out-of-band invitation URL: ${bad}`);
      const verbose = Boolean(cmd.optsWithGlobals().verbose);
      const shared = await sharedRunOptions({ ...opts, verbose }, deps, { suites: [...DID_SUITES, ...INVITATION_SUITES], cases: [...CASE_IDS.did, ...CASE_IDS.invitation] });
      const out = deps.output(Boolean(opts.json));
      const reports: ConformanceReport[] = [];
      const links: Array<string | undefined> = [];
      for (const [i, target] of opts.target.entries()) {
        out.say(`conformance run against ${target}`);
        // Suites and cases are per kind of target: a DID's are not an invitation's.
        const url = /^https?:\/\//i.test(target);
        const suites = shared.suites?.filter((s) => (url ? INVITATION_SUITES : DID_SUITES).includes(s));
        const cases = shared.cases?.filter((id) => (url ? CASE_IDS.invitation : CASE_IDS.did).includes(id) || id === 'run/sent-messages');
        const report = await runConformance({ ...shared, target, ...(suites ? { suites } : {}), ...(cases ? { cases } : {}), onCase: (c) => out.say(caseLine(c)) });
        reports.push(report);
        if (opts.report) {
          await writeReportFiles(report, join(opts.report, `target-${i + 1}`));
          links.push(`target-${i + 1}/report.html`);
        } else links.push(undefined);
      }
      const m = buildMatrix(reports, links);
      const files: string[] = [];
      if (opts.report) {
        await makeDir(opts.report);
        await writeFile(join(opts.report, 'matrix.html'), matrixHtml(m));
        await writeFile(join(opts.report, 'matrix.json'), JSON.stringify(m, null, 2) + '\n');
        files.push(join(opts.report, 'matrix.html'), join(opts.report, 'matrix.json'));
      }
      const code = matrixExitCode(m);
      out.result({ ...m, exitCode: code }, () => ['', ...m.targets.map((t) => `exit ${t.exitCode}  ${t.target}`), ...files.map((f) => `wrote ${f}`)].join('\n'));
      if (code === 1) throw new IdsyncError('conformance_failed', `target(s) failed: ${m.targets.filter((t) => t.exitCode === 1).map((t) => t.target).join(', ')}`);
      if (code === 3) throw new IdsyncError('conformance_not_judged', `nothing could be judged for ${m.targets.filter((t) => t.exitCode === 3).map((t) => t.target).join(', ')}`, { details: { exitCode: 3 } });
    });
}
