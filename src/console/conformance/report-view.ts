// A run's report as the harness renders it (report-html.ts), served under the console's
// Content-Security-Policy: its styles come as a stylesheet of their own (reportCss) instead of
// inline, so the report's CSS-only interactivity (an arrow opens its message, the rules it broke
// light up) works here too, with no script. And its files to download, as `conformance run
// --report` writes them: report.json and junit.xml.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { junitXml, reportCss, reportHtml } from '../../harness/report-files.js';
import type { ConformanceReport } from '../../harness/types.js';
import { problem } from '../../service/http/problem.js';
import type { ConsoleContext } from '../context.js';
import { runHref } from './render.js';
import { runnerOf, scopeOf } from './runs-view.js';

/** The report of the run a request names; 404 for an unknown run, 409 for one without a report yet. */
export async function reportOf(ctx: ConsoleContext, request: FastifyRequest, id: string): Promise<ConformanceReport> {
  const runner = runnerOf(ctx);
  const scope = scopeOf(request);
  const rec = await runner.get(scope, id);
  if (!rec) throw problem('not_found', `no conformance run ${id}`);
  const report = rec.hasReport ? await runner.report(scope, id) : undefined;
  if (!report) throw problem('invalid_state', `the run has no report (${rec.state})`);
  return report;
}

const download = (reply: FastifyReply, name: string, type: string, body: string) =>
  reply.type(type).header('content-disposition', `attachment; filename="${name}"`).send(body);

export function registerReportView(scope: FastifyInstance, ctx: ConsoleContext): void {
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;

  scope.get('/console/conformance/runs/:id/report', { schema: { hide: true } }, async (request, reply) => {
    const id = idOf(request);
    const report = await reportOf(ctx, request, id);
    const html = reportHtml(report, { stylesheet: runHref({ id }, '/report.css'), back: { href: runHref({ id }), label: '← The run in the idsync console' } });
    // As on every console page, an empty icon: the browser asks the twin for no /favicon.ico.
    return reply.type('text/html; charset=utf-8').send(html.replace('<head>', '<head><link rel="icon" href="data:,">'));
  });

  scope.get('/console/conformance/runs/:id/report.css', { schema: { hide: true } }, async (request, reply) => {
    return reply.type('text/css; charset=utf-8').send(reportCss(await reportOf(ctx, request, idOf(request))));
  });

  scope.get('/console/conformance/runs/:id/report.json', { schema: { hide: true } }, async (request, reply) => {
    return download(reply, 'report.json', 'application/json; charset=utf-8', JSON.stringify(await reportOf(ctx, request, idOf(request)), null, 2) + '\n');
  });

  scope.get('/console/conformance/runs/:id/junit.xml', { schema: { hide: true } }, async (request, reply) => {
    return download(reply, 'junit.xml', 'application/xml; charset=utf-8', junitXml(await reportOf(ctx, request, idOf(request))));
  });
}
