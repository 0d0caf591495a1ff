// The files of `conformance run --report DIR`: report.json (the whole report), junit.xml (one
// testcase per case, for CI), report.html (report-html.ts: one self-contained file that opens
// offline).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { reportHtml } from './report-html.js';
import { escapeXml } from './sequence.js';
import type { CaseResult, ConformanceReport } from './types.js';
import { makeDir } from '../make-dir.js';

export { reportCss, reportHtml } from './report-html.js';

export function junitXml(report: ConformanceReport): string {
  const suites = [...new Set(report.cases.map((c) => c.suite))];
  const attr = (s: string) => escapeXml(s);
  const body = suites.map((suite) => {
    const cases = report.cases.filter((c) => c.suite === suite);
    const n = (...s: Array<CaseResult['status']>) => cases.filter((c) => s.includes(c.status)).length;
    const tests = cases.map((c) => {
      const open = `    <testcase classname="conformance.${attr(suite)}" name="${attr(`${c.id}: ${c.title}`)}" time="${(c.durationMs / 1000).toFixed(3)}"`;
      if (c.status === 'passed') return `${open}/>`;
      // JUnit has no "blocked" or "expected failure": both are skipped, saying which.
      if (c.status === 'skipped') return `${open}>\n      <skipped message="${attr(c.detail ?? 'skipped')}"/>\n    </testcase>`;
      if (c.status === 'blocked') return `${open}>\n      <skipped message="${attr(`blocked: ${c.detail ?? 'a prerequisite was refused'}`)}"/>\n    </testcase>`;
      if (c.status === 'expected') return `${open}>\n      <skipped message="${attr(`expected failure: ${c.failedRules.join(', ')}`)}"/>\n    </testcase>`;
      if (c.status === 'inconclusive') return `${open}>\n      <error type="inconclusive" message="${attr(c.detail ?? 'inconclusive')}"/>\n    </testcase>`;
      const text = c.broken.map((b) => `${b.rule} (${b.severity}): ${b.detail}`).join('\n');
      return `${open}>\n      <failure type="${attr(c.failedRules.join(' '))}" message="${attr(c.detail ?? 'failed')}">${escapeXml(text)}</failure>\n    </testcase>`;
    });
    return `  <testsuite name="conformance.${attr(suite)}" tests="${cases.length}" failures="${n('failed')}" errors="${n('inconclusive')}" skipped="${n('skipped', 'blocked', 'expected')}">\n${tests.join('\n')}\n  </testsuite>`;
  });
  const s = report.summary;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="idsync conformance ${attr(report.target)}" tests="${report.cases.length}" failures="${s.failed}" errors="${s.inconclusive}" skipped="${s.skipped + s.blocked + s.expected}" time="${(report.durationMs / 1000).toFixed(3)}">\n${body.join('\n')}\n</testsuites>\n`;
}

/** Writes report.json, junit.xml and report.html into `dir` (created if missing); returns their paths. */
export async function writeReportFiles(report: ConformanceReport, dir: string): Promise<string[]> {
  await makeDir(dir);
  const files: Array<[string, string]> = [
    ['report.json', JSON.stringify(report, null, 2) + '\n'],
    ['junit.xml', junitXml(report)],
    ['report.html', reportHtml(report)],
  ];
  for (const [name, text] of files) await writeFile(join(dir, name), text);
  return files.map(([name]) => join(dir, name));
}
