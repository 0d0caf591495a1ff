// Two runs compared as `conformance run --baseline` compares them (harness/baseline.ts): the case
// and rule pairs failing now that did not before (newly failing), those that failed before and
// no longer do in a case that ran to a verdict (newly passing), the cases whose status changed,
// and every case side by side. Each rule with its quoted sentence.
import type { FastifyInstance } from 'fastify';
import { diffBaseline, parseBaseline, type RulePair } from '../../harness/baseline.js';
import type { ConformanceRunRecord } from '../../store/conformance-runs.js';
import { problem } from '../../service/http/problem.js';
import { sendHtml } from '../auth.js';
import { renderPage, type ConsoleContext } from '../context.js';
import { html, type Html } from '../html.js';
import { badge } from '../views/format.js';
import { brokenVerdict, ruleRequires, ruleSource } from '../views/rule.js';
import { caseStatus, runHref, runState, summaryBadges, targetCell, when } from './render.js';
import { reportOf } from './report-view.js';
import { runnerOf, scopeOf } from './runs-view.js';

function pairList(pairs: RulePair[], verdict: 'now' | 'then', empty: string): Html {
  if (pairs.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<table class="rules"><thead><tr><th></th><th>case</th><th>rule</th><th>what it requires</th><th>spec</th></tr></thead><tbody>${pairs.map(
    (p) => html`<tr><td>${verdict === 'now' ? badge(brokenVerdict(p.rule)) : badge('pass')}</td><td><code>${p.case}</code></td><td><code>${p.rule}</code></td><td>${ruleRequires(p.rule)}</td><td>${ruleSource(p.rule)}</td></tr>`,
  )}</tbody></table>`;
}

function runFacts(label: string, rec: ConformanceRunRecord): Html {
  return html`<tr><th>${label}</th><td><a href="${runHref(rec)}">${when(rec)}</a></td><td>${targetCell(rec)}</td><td>${runState(rec)}</td><td>${summaryBadges(rec.summary)}</td></tr>`;
}

export function registerCompareView(scope: FastifyInstance, ctx: ConsoleContext): void {
  scope.get('/console/conformance/compare', { schema: { hide: true } }, async (request, reply) => {
    const q = request.query as Record<string, unknown>;
    if (typeof q.base !== 'string' || typeof q.run !== 'string') throw problem('invalid_request', 'name the two runs: base and run');
    const runner = runnerOf(ctx);
    const [baseRec, runRec] = await Promise.all([runner.get(scopeOf(request), q.base), runner.get(scopeOf(request), q.run)]);
    const [base, now] = await Promise.all([reportOf(ctx, request, q.base), reportOf(ctx, request, q.run)]);
    // The baseline is read as the CLI reads a --baseline file: the report.json of the earlier run.
    const diff = diffBaseline(parseBaseline(JSON.stringify(base), 'the earlier run'), now);
    const ids = [...new Set([...base.cases.map((c) => c.id), ...now.cases.map((c) => c.id)])];
    const before = new Map(base.cases.map((c) => [c.id, c.status]));
    const after = new Map(now.cases.map((c) => [c.id, c.status]));
    const body = html`<p><a href="/console/conformance">← All runs</a></p><h1>Two runs compared</h1>
<table class="facts">${runFacts('earlier', baseRec!)}${runFacts('later', runRec!)}</table>
<h2>Newly failing</h2>
${pairList(diff.newlyFailing, 'now', 'No rule fails now that did not before.')}
<h2>Newly passing</h2>
${pairList(diff.newlyPassing, 'then', 'No rule that failed before passes now.')}
<h2>Every case</h2>
<table class="cases compare"><thead><tr><th>case</th><th>earlier</th><th>later</th></tr></thead><tbody>
${ids.map((id) => {
  const a = before.get(id);
  const b = after.get(id);
  return html`<tr${a !== b ? html` class="changed"` : ''}><td><code>${id}</code></td><td>${a ? caseStatus(a) : html`<span class="muted">not run</span>`}</td><td>${b ? caseStatus(b) : html`<span class="muted">not run</span>`}</td></tr>`;
})}
</tbody></table>
<p class="count" id="status-changes">${diff.statusChanges.length} case${diff.statusChanges.length === 1 ? '' : 's'} changed status.</p>`;
    return sendHtml(reply, renderPage(ctx, request, { title: 'Two conformance runs compared', active: 'conformance', body }));
  });
}
