// The conformance views of a console: the runs and the start form, one run live, its report and
// files, and two runs compared.
import type { FastifyInstance } from 'fastify';
import type { ConsoleContext } from '../context.js';
import { registerCompareView } from './compare-view.js';
import { registerReportView } from './report-view.js';
import { registerRunView } from './run-view.js';
import { registerRunsView } from './runs-view.js';

export function registerConformanceViews(scope: FastifyInstance, ctx: ConsoleContext): void {
  registerRunsView(scope, ctx);
  registerRunView(scope, ctx);
  registerReportView(scope, ctx);
  registerCompareView(scope, ctx);
}
