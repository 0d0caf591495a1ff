// One conformance run: what was asked, its state, each case as it ends (live: the page's stream
// says when the run moved), the rules each case broke with their quoted sentences, and once it
// has ended its summary, report, downloads and the runs it can be compared with. A queued or
// running run can be cancelled. A script asking for JSON gets the run's record.
import type { FastifyInstance } from 'fastify';
import { problem } from '../../service/http/problem.js';
import type { ConformanceRunRecord } from '../../store/conformance-runs.js';
import { sendHtml } from '../auth.js';
import { renderPage, type ConsoleContext } from '../context.js';
import { html, type Html } from '../html.js';
import { assertSameOrigin } from '../security.js';
import { shortId, time } from '../views/format.js';
import { liveRegion } from '../views/live-region.js';
import { caseRules, caseStatus, duration, runHref, runState, summaryBadges, targetCell } from './render.js';
import { runnerOf, scopeOf } from './runs-view.js';

const EXIT_MEANING: Record<number, string> = {
  0: 'exit status 0: at least one case passed and none failed',
  1: 'exit status 1: a case failed (a MUST broke; under the strict profile, any rule)',
  3: 'exit status 3: nothing could be judged (unreachable, or every case blocked, skipped or inconclusive)',
};

function casesTable(rec: ConformanceRunRecord): Html {
  if (rec.cases.length === 0) return html`<p class="muted">${rec.state === 'queued' ? 'Waiting for its turn.' : rec.state === 'running' ? 'The first case is under way…' : 'No case ran.'}</p>`;
  return html`<table class="cases"><thead><tr><th>status</th><th>case</th><th>rules broken</th><th>took</th></tr></thead><tbody id="run-cases">
${rec.cases.map((c) => html`<tr class="case-${c.status}" data-case="${c.id}"><td>${caseStatus(c.status)}</td><td><code>${c.id}</code> ${c.title}${c.detail && c.status !== 'passed' ? html`<div class="detail">${c.detail}</div>` : ''}</td><td>${caseRules(c)}</td><td>${c.durationMs} ms</td></tr>`)}
</tbody></table>`;
}

async function runBody(rec: ConformanceRunRecord, others: ConformanceRunRecord[]): Promise<Html> {
  const open = rec.state === 'queued' || rec.state === 'running';
  const comparable = others.filter((o) => o.hasReport && o.id !== rec.id);
  return html`<table class="facts">
<tr><th>target</th><td colspan="3">${targetCell(rec)}</td></tr>
<tr><th>state</th><td id="run-state" data-state="${rec.state}">${runState(rec)}${rec.exitCode !== undefined ? html` <small>${EXIT_MEANING[rec.exitCode] ?? `exit status ${rec.exitCode}`}</small>` : ''}</td><th>options</th><td>${rec.options.mode} · ${rec.options.profile}${rec.options.suites ? ` · ${rec.options.suites.join(', ')}` : ''} · ${rec.options.timeoutMs} ms per answer</td></tr>
<tr><th>started</th><td>${time(rec.startedAt ?? rec.createdAt)} by ${rec.requestedBy}</td><th>took</th><td>${duration(rec)}</td></tr>
${rec.error ? html`<tr><th>error</th><td colspan="3"><code>${rec.error.code}</code> ${rec.error.message}</td></tr>` : ''}
${rec.summary ? html`<tr><th>summary</th><td colspan="3" id="run-summary">${summaryBadges(rec.summary)}</td></tr>` : ''}
</table>
${open && !rec.cancelRequestedAt ? html`<form method="post" action="${runHref(rec, '/cancel')}"><button type="submit" id="cancel-run">Cancel the run</button></form>` : ''}
${rec.hasReport ? html`<p class="downloads"><a class="button primary" id="open-report" href="${runHref(rec, '/report')}">Open the report</a> <a href="${runHref(rec, '/report.json')}" download>report.json</a> · <a href="${runHref(rec, '/junit.xml')}" download>junit.xml</a></p>` : ''}
${rec.hasReport && comparable.length ? html`<form method="get" action="/console/conformance/compare" class="filters"><input type="hidden" name="run" value="${rec.id}"><label>Compare with an earlier run <select name="base">${comparable.map((o) => html`<option value="${o.id}">${o.createdAt.slice(0, 19)} ${o.label ?? o.target.slice(0, 40)}</option>`)}</select></label><button type="submit">Compare</button></form>` : ''}
<h2>Cases${open ? ', as they end' : ''}</h2>
${casesTable(rec)}`;
}

/** A run in progress also fetches its state this often, whatever its stream says. */
const RUN_POLL_MS = 2_000;

export function registerRunView(scope: FastifyInstance, ctx: ConsoleContext): void {
  scope.get('/console/conformance/runs/:id', { schema: { hide: true } }, async (request, reply) => {
    const runner = runnerOf(ctx);
    const { id } = request.params as { id: string };
    const rec = await runner.get(scopeOf(request), id);
    if (!rec) throw problem('not_found', `no conformance run ${id}`);
    const accept = request.headers.accept ?? '';
    if (accept.includes('application/json') && !accept.includes('text/html')) return reply.send({ run: rec });
    const open = rec.state === 'queued' || rec.state === 'running';
    const region = liveRegion('run', `${runHref(rec)}?fragment=1`, await runBody(rec, rec.hasReport ? await runner.list(scopeOf(request)) : []), 'changed', open ? RUN_POLL_MS : undefined);
    if ((request.query as Record<string, unknown>).fragment) return sendHtml(reply, region);
    const body = html`<p><a href="/console/conformance">← All runs</a></p><h1>Conformance run <code>${shortId(rec.id)}</code></h1>${region}`;
    return sendHtml(reply, renderPage(ctx, request, { title: `Conformance run ${shortId(rec.id)}`, active: 'conformance', stream: `/console/stream/conformance?run=${encodeURIComponent(rec.id)}`, body }));
  });

  scope.post('/console/conformance/runs/:id/cancel', { schema: { hide: true } }, async (request, reply) => {
    assertSameOrigin(request);
    const { id } = request.params as { id: string };
    const run = await runnerOf(ctx).cancel(scopeOf(request), id);
    if ((request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return reply.code(303).header('location', runHref(run)).send();
    return reply.code(202).send({ run });
  });

  // Says `changed` when a run of this scope (or the one named) moved, and once at the start: what
  // changed between the page and the stream's opening is fetched too.
  scope.get('/console/stream/conformance', { schema: { hide: true } }, async (request, reply) => {
    const runner = runnerOf(ctx);
    const runScope = scopeOf(request);
    const only = (request.query as Record<string, unknown>).run;
    ctx.hub.open(request, reply, (stream) => {
      stream.send(String(Date.now()), { event: 'changed' });
      return runner.watch((e) => {
        if (e.run.scope === runScope && (typeof only !== 'string' || e.run.id === only)) stream.send(String(Date.now()), { event: 'changed' });
      });
    });
  });
}
