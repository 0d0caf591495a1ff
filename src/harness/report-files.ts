// The files of `conformance run --report DIR`: report.json (the whole report), junit.xml (one
// testcase per case, for CI), report.html (one self-contained file that opens offline: per case a
// sequence diagram of the messages with their envelope modes, and the failed rules linked to the
// catalogue, which the file carries at its end).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ruleAnchor, ruleLink, ruleOf } from '../conformance/catalogue.js';
import { escapeXml, sequenceSvg, shortType, type SequenceArrow } from './sequence.js';
import type { CaseResult, ConformanceReport, ExchangedMessage } from './types.js';

const HARNESS = 'idsync (harness)';
const AGENT = 'agent under test';

export function arrowOf(m: ExchangedMessage, blamed: ReadonlySet<number> = new Set()): SequenceArrow {
  const bits = [m.mode, m.httpStatus !== undefined ? `HTTP ${m.httpStatus}` : undefined, m.problemCode, m.note].filter(Boolean);
  return {
    from: m.direction === 'sent' ? HARNESS : AGENT,
    to: m.direction === 'sent' ? AGENT : HARNESS,
    label: shortType(m.type),
    sublabel: bits.join(' · '),
    bad: (m.broken?.length ?? 0) > 0 || (m.httpStatus ?? 0) >= 500 || blamed.has(m.seq),
    dashed: m.via === 'return-route',
  };
}

export function caseSvg(c: CaseResult): string {
  const blamed = new Set(c.broken.filter((b) => b.seq !== undefined && b.severity === 'error').map((b) => b.seq!));
  return sequenceSvg([HARNESS, AGENT], c.messages.map((m) => arrowOf(m, blamed)));
}

export function junitXml(report: ConformanceReport): string {
  const suites = [...new Set(report.cases.map((c) => c.suite))];
  const attr = (s: string) => escapeXml(s);
  const body = suites.map((suite) => {
    const cases = report.cases.filter((c) => c.suite === suite);
    const n = (s: CaseResult['status']) => cases.filter((c) => c.status === s).length;
    const tests = cases.map((c) => {
      const open = `    <testcase classname="conformance.${attr(suite)}" name="${attr(`${c.id}: ${c.title}`)}" time="${(c.durationMs / 1000).toFixed(3)}"`;
      if (c.status === 'passed') return `${open}/>`;
      if (c.status === 'skipped') return `${open}>\n      <skipped message="${attr(c.detail ?? 'skipped')}"/>\n    </testcase>`;
      if (c.status === 'inconclusive') return `${open}>\n      <error type="inconclusive" message="${attr(c.detail ?? 'inconclusive')}"/>\n    </testcase>`;
      const text = c.broken.map((b) => `${b.rule} (${b.severity}): ${b.detail}`).join('\n');
      return `${open}>\n      <failure type="${attr(c.failedRules.join(' '))}" message="${attr(c.detail ?? 'failed')}">${escapeXml(text)}</failure>\n    </testcase>`;
    });
    return `  <testsuite name="conformance.${attr(suite)}" tests="${cases.length}" failures="${n('failed')}" errors="${n('inconclusive')}" skipped="${n('skipped')}">\n${tests.join('\n')}\n  </testsuite>`;
  });
  const s = report.summary;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="idsync conformance ${attr(report.target)}" tests="${report.cases.length}" failures="${s.failed}" errors="${s.inconclusive}" skipped="${s.skipped}" time="${(report.durationMs / 1000).toFixed(3)}">\n${body.join('\n')}\n</testsuites>\n`;
}

const STYLE = `body{font-family:system-ui,sans-serif;margin:2rem;color:#1d2733;max-width:1100px}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem;border-top:1px solid #d5dde6;padding-top:1rem}
.status{display:inline-block;padding:.1rem .5rem;border-radius:3px;color:#fff;font-size:.8rem;text-transform:uppercase}
.passed{background:#2e7d32}.failed{background:#c0392b}.skipped{background:#7f8c8d}.inconclusive{background:#b9770e}
table{border-collapse:collapse}td,th{border:1px solid #d5dde6;padding:.25rem .5rem;text-align:left;vertical-align:top;font-size:.9rem}
code{font-size:.85rem;overflow-wrap:anywhere}.muted{color:#5b6b80}svg.sequence{display:block;margin:.5rem 0;max-width:100%;height:auto}`;

export function reportHtml(report: ConformanceReport): string {
  const s = report.summary;
  const used = new Set(report.cases.flatMap((c) => c.broken.map((b) => b.rule)));
  const ruleRef = (id: string) => `<a href="#${ruleAnchor(id)}"><code>${escapeXml(id)}</code></a>`;
  const cases = report.cases.map((c) => {
    const broken = c.broken.length
      ? `<table><tr><th>rule</th><th>severity</th><th>what happened</th></tr>${c.broken.map((b) => `<tr><td>${ruleRef(b.rule)}</td><td>${b.severity}</td><td>${escapeXml(b.detail)}</td></tr>`).join('')}</table>`
      : '';
    return `<section class="case" id="case-${escapeXml(c.id)}"><h2><span class="status ${c.status}">${c.status}</span> <code>${escapeXml(c.id)}</code> ${escapeXml(c.title)}</h2>
<p class="muted"><a href="${escapeXml(ruleLink(c.url))}">${escapeXml(c.section)}</a> · ${c.durationMs} ms${c.detail ? ` · ${escapeXml(c.detail)}` : ''}</p>
<ol>${c.steps.map((st) => `<li>${escapeXml(st)}</li>`).join('')}</ol>
${broken}
${caseSvg(c)}</section>`;
  });
  const catalogue = [...used].sort().map((id) => {
    const r = ruleOf(id);
    return `<tr id="${ruleAnchor(id)}"><td><code>${escapeXml(id)}</code></td><td>${r?.severity ?? ''}</td><td>${escapeXml(r?.text ?? '')}</td><td>${r ? `<a href="${escapeXml(ruleLink(r.url))}">${escapeXml(`${r.spec} ${r.section}`)}</a>` : ''}</td></tr>`;
  });
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>idsync conformance: ${escapeXml(report.target)}</title><style>${STYLE}</style></head>
<body><h1>idsync conformance report</h1>
<p>Target <code>${escapeXml(report.target)}</code>, played by idsync as <code>${escapeXml(report.harnessDid.slice(0, 48))}…</code> (${escapeXml(report.role)}).<br>
Started ${escapeXml(report.startedAt)}, ${report.durationMs} ms.</p>
<p id="summary"><span class="status passed">${s.passed} passed</span> <span class="status failed">${s.failed} failed</span> <span class="status skipped">${s.skipped} skipped</span> <span class="status inconclusive">${s.inconclusive} inconclusive</span></p>
<table><tr><th>case</th><th>status</th><th>failed rules</th></tr>${report.cases.map((c) => `<tr><td><a href="#case-${escapeXml(c.id)}"><code>${escapeXml(c.id)}</code></a></td><td><span class="status ${c.status}">${c.status}</span></td><td>${c.failedRules.map(ruleLink).join(' ')}</td></tr>`).join('')}</table>
${cases.join('\n')}
<h2 id="catalogue">Rules named in this report</h2>
<table><tr><th>id</th><th>severity</th><th>rule</th><th>source</th></tr>${catalogue.join('')}</table>
</body></html>
`;
}

/** Writes report.json, junit.xml and report.html into `dir` (created if missing); returns their paths. */
export async function writeReportFiles(report: ConformanceReport, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: Array<[string, string]> = [
    ['report.json', JSON.stringify(report, null, 2) + '\n'],
    ['junit.xml', junitXml(report)],
    ['report.html', reportHtml(report)],
  ];
  for (const [name, text] of files) await writeFile(join(dir, name), text);
  return files.map(([name]) => join(dir, name));
}
