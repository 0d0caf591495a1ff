// The conformance page: start a run against a DID or an invitation URL (or, with one click, this
// party's own agent or wallet), the history of runs newest first with their verdicts and
// downloads, and two runs picked to compare. A run is started by a form (the browser goes to its
// page) or by a script posting JSON (202 and the run). Live: the page follows the runs' progress.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { toIdsyncError } from '../../errors.js';
import { DID_SUITES, INVITATION_SUITES, RUN_MODES } from '../../harness/run.js';
import type { HarnessMode, RunProfile } from '../../harness/types.js';
import { problem } from '../../service/http/problem.js';
import type { ConformanceRunRecord } from '../../store/conformance-runs.js';
import { principalOf, sendHtml } from '../auth.js';
import { renderPage, type ConsoleContext } from '../context.js';
import { html, query, type Html } from '../html.js';
import { assertSameOrigin } from '../security.js';
import { liveRegion } from '../views/live-region.js';
import { duration, runHref, runState, summaryBadges, targetCell, when } from './render.js';
import type { ConformanceRunner, RunRequest } from './runner.js';

/** Whose runs a request sees: its tenant on the service, the wallet's own on a wallet. */
export function scopeOf(request: FastifyRequest): string {
  const p = principalOf(request);
  return p.tenantId ?? p.subject;
}

export function runnerOf(ctx: ConsoleContext): ConformanceRunner {
  if (!ctx.conformance) throw problem('not_found', 'this console runs no conformance runs');
  return ctx.conformance.runner;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** The run a form or a JSON body asks for: a target or one of the offered targets (`quick`), and options. */
export async function requestOf(ctx: ConsoleContext, body: Record<string, unknown>): Promise<RunRequest> {
  const quick = text(body.quick);
  const offered = quick ? (await ctx.conformance?.targets())?.find((t) => t.key === quick) : undefined;
  if (quick && !offered) throw problem('invalid_request', `no offered target ${quick}`);
  const target = offered ? await offered.target() : text(body.target);
  if (!target) throw problem('invalid_request', 'give a target: a DID or an out-of-band invitation URL');
  const suites = Array.isArray(body.suites) ? body.suites.filter((s): s is string => typeof s === 'string') : text(body.suites)?.split(',').map((s) => s.trim()).filter(Boolean);
  const timeout = body.timeoutMs === undefined || body.timeoutMs === '' ? undefined : Number(body.timeoutMs);
  const label = offered?.label ?? text(body.label);
  return {
    target,
    ...(label ? { label } : {}),
    ...(text(body.mode) ? { mode: text(body.mode) as HarnessMode } : {}),
    ...(text(body.profile) ? { profile: text(body.profile) as RunProfile } : {}),
    ...(suites?.length ? { suites } : {}),
    ...(timeout !== undefined ? { timeoutMs: timeout } : {}),
  };
}

function startForm(targets: { key: string; label: string }[]): Html {
  return html`<section class="start">
${targets.length ? html`<div class="quick">${targets.map((t) => html`<form method="post" action="/console/conformance/runs"><input type="hidden" name="quick" value="${t.key}"><button type="submit" class="primary" data-quick="${t.key}">Run against ${t.label}</button></form>`)}</div>` : ''}
<form method="post" action="/console/conformance/runs" class="run-form">
<label class="wide">Target <input name="target" placeholder="did:… or https://…?_oob=…" required></label>
<label>Envelope <select name="mode">${RUN_MODES.map((m) => html`<option>${m}</option>`)}</select></label>
<label>Profile <select name="profile"><option>liberal</option><option>strict</option></select></label>
<label>Suites <input name="suites" placeholder="all"></label>
<button type="submit" id="start-run">Start the run</button>
</form>
<p class="hint">A DID runs the suites ${DID_SUITES.join(', ')}; an invitation URL runs ${INVITATION_SUITES.join(', ')}. One run at a time, with a short queue behind it.</p>
</section>`;
}

function history(runs: ConformanceRunRecord[]): Html {
  if (runs.length === 0) return html`<p class="muted">No runs yet.</p>`;
  const done = runs.filter((r) => r.hasReport);
  return html`<table class="runs"><thead><tr><th>started</th><th>target</th><th>state</th><th>cases</th><th>took</th><th></th></tr></thead><tbody>
${runs.map((r) => html`<tr id="run-${r.id}">
<td><a href="${runHref(r)}">${when(r)}</a></td>
<td>${targetCell(r)} <small>${r.options.mode} · ${r.options.profile}</small></td>
<td>${runState(r)}</td>
<td>${r.summary ? summaryBadges(r.summary) : html`<span class="muted">${r.cases.length} ended</span>`}</td>
<td>${duration(r)}</td>
<td>${r.hasReport ? html`<a href="${runHref(r, '/report')}">report</a> · <a href="${runHref(r, '/report.json')}">report.json</a> · <a href="${runHref(r, '/junit.xml')}">junit.xml</a>` : ''}</td>
</tr>`)}
</tbody></table>
${done.length >= 2 ? html`<form method="get" action="/console/conformance/compare" class="filters compare-form">
<label>Compare <select name="base">${done.map((r, i) => html`<option value="${r.id}"${i === 1 ? html` selected` : ''}>${r.createdAt.slice(0, 19)} ${r.label ?? r.target.slice(0, 40)}</option>`)}</select></label>
<label>with <select name="run">${done.map((r, i) => html`<option value="${r.id}"${i === 0 ? html` selected` : ''}>${r.createdAt.slice(0, 19)} ${r.label ?? r.target.slice(0, 40)}</option>`)}</select></label>
<button type="submit" id="compare">Compare</button>
</form>` : ''}`;
}

export function registerRunsView(scope: FastifyInstance, ctx: ConsoleContext): void {
  scope.get('/console/conformance', { schema: { hide: true } }, async (request, reply) => {
    const runner = runnerOf(ctx);
    const region = liveRegion('runs', '/console/conformance?fragment=1', history(await runner.list(scopeOf(request))));
    if ((request.query as Record<string, unknown>).fragment) return sendHtml(reply, region);
    const failed = text((request.query as Record<string, unknown>).failed);
    const targets = (await ctx.conformance?.targets()) ?? [];
    const body = html`<h1>Conformance</h1>
<p class="lead">idsync plays the counterpart of an agent and judges each message it sends against the rule catalogue, case by case, as <code>idsync conformance run</code> does.</p>
${failed ? html`<p class="error" role="alert">${failed}</p>` : ''}
${startForm(targets)}
<h2>Runs</h2>
${region}`;
    return sendHtml(reply, renderPage(ctx, request, { title: 'Conformance', active: 'conformance', stream: '/console/stream/conformance', body }));
  });

  scope.post('/console/conformance/runs', { schema: { hide: true } }, async (request, reply) => {
    assertSameOrigin(request);
    const runner = runnerOf(ctx);
    const form = (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    const body = (request.body ?? {}) as Record<string, unknown>;
    try {
      const run = await runner.start(scopeOf(request), principalOf(request).subject, await requestOf(ctx, body));
      if (form) return reply.code(303).header('location', runHref(run)).send();
      return reply.code(202).header('location', runHref(run)).send({ run });
    } catch (err) {
      // A script reads the problem (429 conformance_busy, 400); a person sees it on the page.
      if (!form) throw err;
      const e = toIdsyncError(err);
      return reply.code(303).header('location', `/console/conformance${query({ failed: `${e.code}: ${e.message}`.slice(0, 300) })}`).send();
    }
  });
}
