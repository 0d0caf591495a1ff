// `conformance matrix`: several agents side by side, as interoperability reports lay them out —
// one column per target, a row per case (its status) and a row per rule (broken, held, or not
// judged on that target). A rule "held" when a case that judges it reached a verdict without
// breaking it, or when the agent's messages were checked against it and none broke it.
import { ruleAnchor, ruleOf, RULES } from '../conformance/catalogue.js';
import { runExitCode } from './exit-code.js';
import { ruleRef } from './report-html.js';
import { escapeXml } from './sequence.js';
import type { CaseStatus, ConformanceReport } from './types.js';

export type RuleCell = { state: 'broken'; severity: string; cases: string[] } | { state: 'held' } | { state: 'not judged' };

export interface Matrix {
  targets: Array<{ target: string; exitCode: number; summary: ConformanceReport['summary']; report?: string }>;
  cases: Array<{ id: string; title: string; results: Array<CaseStatus | 'not run'> }>;
  rules: Array<{ rule: string; severity: string; results: RuleCell[] }>;
}

const VERDICT = new Set<CaseStatus>(['passed', 'failed', 'expected']);

function ruleCell(report: ConformanceReport, rule: string): RuleCell {
  const breaking = report.cases.filter((c) => c.broken.some((b) => b.rule === rule));
  if (breaking.length) {
    const severity = String(breaking.flatMap((c) => c.broken).find((b) => b.rule === rule)!.severity);
    return { state: 'broken', severity, cases: breaking.map((c) => c.id) };
  }
  const judged = report.cases.some((c) => VERDICT.has(c.status) && c.judges?.includes(rule)) || (report.rulesChecked?.[rule] ?? 0) > 0;
  return judged ? { state: 'held' } : { state: 'not judged' };
}

/** The matrix of `reports` (one per target, in order); `links` names each target's report.html, if written. */
export function buildMatrix(reports: ConformanceReport[], links: Array<string | undefined> = []): Matrix {
  const caseIds: string[] = [];
  const titles = new Map<string, string>();
  for (const r of reports) for (const c of r.cases) if (!titles.has(c.id)) (caseIds.push(c.id), titles.set(c.id, c.title));
  const named = new Set(reports.flatMap((r) => [...r.cases.flatMap((c) => [...c.broken.map((b) => b.rule), ...(c.judges ?? [])]), ...Object.keys(r.rulesChecked ?? {})]));
  const order = RULES.map((r) => r.id).filter((id) => named.has(id));
  return {
    targets: reports.map((r, i) => ({ target: r.target, exitCode: runExitCode(r), summary: r.summary, ...(links[i] ? { report: links[i] } : {}) })),
    cases: caseIds.map((id) => ({ id, title: titles.get(id)!, results: reports.map((r) => r.cases.find((c) => c.id === id)?.status ?? 'not run') })),
    rules: order.map((rule) => ({ rule, severity: String(ruleOf(rule)?.severity ?? ''), results: reports.map((r) => ruleCell(r, rule)) })),
  };
}

/** The matrix's exit status: 1 when any target failed, 3 when none failed but one could not be judged, else 0. */
export function matrixExitCode(m: Matrix): 0 | 1 | 3 {
  if (m.targets.some((t) => t.exitCode === 1)) return 1;
  return m.targets.some((t) => t.exitCode === 3) ? 3 : 0;
}

const STYLE = `body{font-family:system-ui,sans-serif;margin:2rem;color:#1d2733}h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}
table{border-collapse:collapse}td,th{border:1px solid #d5dde6;padding:.25rem .5rem;text-align:left;vertical-align:top;font-size:.85rem}
th.target{max-width:14rem;overflow-wrap:anywhere}code{font-size:.8rem}
.passed,.held{background:#e3f4e4}.failed,.broken-error{background:#fbe1de}.expected{background:#efe3f6}.broken-warning,.broken-advice{background:#fdf1d8}
.blocked,.skipped,.inconclusive,.not-run,.not-judged{color:#5b6b80}`;

export function matrixHtml(m: Matrix): string {
  const esc = escapeXml;
  const head = `<tr><th></th>${m.targets.map((t) => `<th class="target">${t.report ? `<a href="${esc(t.report)}">` : ''}<code>${esc(t.target)}</code>${t.report ? '</a>' : ''}<br>exit ${t.exitCode}</th>`).join('')}</tr>`;
  const cases = m.cases.map((c) => `<tr><td><code>${esc(c.id)}</code><br><span class="muted">${esc(c.title)}</span></td>${c.results.map((s) => `<td class="${s.replace(' ', '-')}">${esc(s)}</td>`).join('')}</tr>`);
  const cell = (r: RuleCell) =>
    r.state === 'broken' ? `<td class="broken-${esc(r.severity)}">broken (${esc(r.severity)})<br>${r.cases.map((c) => `<code>${esc(c)}</code>`).join(' ')}</td>` : `<td class="${r.state.replace(' ', '-')}">${r.state}</td>`;
  const rules = m.rules.map((r) => `<tr id="${ruleAnchor(r.rule)}"><td>${ruleRef(r.rule)} <span class="muted">${esc(r.severity)}</span></td>${r.results.map(cell).join('')}</tr>`);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>idsync conformance matrix</title><style>${STYLE}</style></head>
<body><h1>idsync conformance matrix</h1>
<p>${m.targets.length} target(s). Exit status per target: 0 passed, 1 a MUST failed, 3 nothing could be judged.</p>
<h2>Cases</h2><table>${head}${cases.join('')}</table>
<h2>Rules</h2><p>broken: a case found it broken (the cases named); held: judged and never broken; not judged: no case or message of this target reached it.</p>
<table>${head}${rules.join('')}</table>
</body></html>
`;
}
