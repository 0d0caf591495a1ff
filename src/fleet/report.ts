// What a fleet run tells people: a table per step, errors by code, memory per wallet, peak
// memory; and `--report DIR`: report.json (the summary, histograms' bins, each second's
// figures, memory over time) and report.html, one offline page (no scripts, no network) whose
// charts are inline SVG (report-svg.ts): the latency histogram beside latency over time (p50,
// p90, p99 of the flows that ended each second), throughput beside flows in flight, errors
// beside memory (each thread's heap and the process's RSS).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FleetResult } from './fleet.js';
import { barsSvg, esc, linesSvg } from './report-svg.js';
import type { SecondFigures } from './timeline.js';
import { makeDir } from '../make-dir.js';

const ms = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(1)} ms`);

function modelLine(r: FleetResult): string {
  const m = r.model;
  return m.kind === 'closed'
    ? `closed model: ${m.wallets} wallets, ${m.concurrency} at a time`
    : `open model: ${m.ratePerSecond}/s for ${seconds(m.durationMs)}${m.rampMs ? `, ramp ${seconds(m.rampMs)}` : ''}`;
}

/** The service: the embedded twin (its state on disk, when it was), or its URL; and the mediator of a mediated run. */
function targetLine(t: FleetResult['target']): string {
  const service = t.embedded ? `embedded twin${t.store === 'disk' ? ' (state on disk)' : ''}` : t.url;
  if (!t.mediator) return service;
  // The mediator started for the run works in the coordinating thread: its figures are the coordinator's.
  return `${service}; wallets behind ${t.mediator.startedForRun ? "idsync's mediator, started for the run in the coordinating thread" : `the mediator ${t.mediator.url}`}`;
}

/** Where the wallets ran: worker threads (beside an embedded service in a thread of its own) or this thread. */
function threadsLine(r: FleetResult): string {
  const n = r.summary.workers;
  if (!r.threaded) return r.target.embedded ? 'wallets and service in one thread' : 'wallets in one thread';
  return `${n} worker thread${n === 1 ? '' : 's'}${r.target.embedded ? ' (the service in one more)' : ''}`;
}

/** The end-of-run text: a line of totals, the step table, errors by code, memory per wallet. */
export function fleetTable(r: FleetResult): string {
  const s = r.summary;
  const lines = [
    `fleet ${s.scenario}: ${modelLine(r)}, ${threadsLine(r)}, ${targetLine(r.target)}`,
    `${s.completed} completed, ${s.failed} failed${s.stopped ? `, ${s.stopped} cut short by the stop` : ''} in ${(s.durationMs / 1000).toFixed(1)} s: ${s.flowsPerSecond} flows/s (idle wallets made in ${(r.setupMs / 1000).toFixed(1)} s before)`,
    '',
    `  ${'step'.padEnd(14)}${'p50'.padStart(11)}${'p90'.padStart(11)}${'p99'.padStart(11)}${'max'.padStart(11)}`,
    ...Object.entries(s.steps).map(([step, f]) => `  ${step.padEnd(14)}${ms(f.p50Ms).padStart(11)}${ms(f.p90Ms).padStart(11)}${ms(f.p99Ms).padStart(11)}${ms(f.maxMs).padStart(11)}`),
    '',
    Object.keys(s.errors).length
      ? ['errors by code:', ...Object.entries(s.errors).map(([code, n]) => `  ${code}: ${n}${r.errorSamples[code] ? `  (${r.errorSamples[code]})` : ''}`)].join('\n')
      : 'errors: none',
    resendLine(r.resends),
    idleLine(r),
    peakLine(s.peakMemoryMB),
    busyLine(r.threads),
  ];
  return lines.join('\n');
}

/** Heap per idle wallet (made before the flows and kept as a page), and how many pages went to disk. */
export function idleLine(r: Pick<FleetResult, 'summary' | 'idle'>): string {
  const kb = r.summary.memoryPerWalletKB;
  // No figure when the heap did not grow across making them: a few wallets are lost in what the
  // thread's other garbage does meanwhile, and without a forced GC nothing is measured at all.
  if (kb === null) return "memory per idle wallet: not measured (the heap did not grow measurably: too few idle wallets, or no forced GC in this run's threads)";
  const disk = r.idle?.onDisk ?? 0;
  return `memory per idle wallet: ${kb} KB${disk ? ` (${disk} of ${r.idle.wallets} idle wallets paged out to disk, ${Math.round((kb * r.idle.wallets) / Math.max(1, r.idle.wallets - disk) * 10) / 10} KB each of those kept in memory)` : ''}`;
}

/** Peak memory: the process's resident set, and each thread's heap (used + external). */
export function peakLine(p: FleetResult['summary']['peakMemoryMB'] | undefined): string {
  if (!p) return 'peak memory: not measured';
  const heap = Object.entries(p.heap).map(([label, mb]) => `${label} ${mb} MB`);
  return `peak memory: RSS ${p.rss === null ? 'not measured' : `${p.rss} MB`}; heap ${heap.length ? heap.join(', ') : 'not measured'}`;
}

/** Which thread the run waited for: event-loop busy share, CPU and GC time of each. */
export function busyLine(threads: FleetResult['threads'] | undefined): string {
  if (!threads?.length) return 'threads: not measured';
  const one = (t: FleetResult['threads'][number]) =>
    `${t.role} ${Math.round(t.elu * 100)} % busy (${t.cpuMs === null ? '' : `CPU ${(t.cpuMs / 1000).toFixed(1)} s, `}GC ${(t.gcMs / 1000).toFixed(1)} s)`;
  return `threads: ${threads.map(one).join('; ')}`;
}

/** Messages sent again (router/steps): a run whose load outgrew the service shows it here first. */
function resendLine(resends: Record<string, number> | undefined): string {
  const entries = Object.entries(resends ?? {}).sort((a, b) => b[1] - a[1]);
  if (!entries.length) return 'messages sent again: none';
  const total = entries.reduce((n, [, k]) => n + k, 0);
  return `messages sent again: ${total} (${entries.map(([step, n]) => `${step} ${n}`).join(', ')})`;
}

/** The progress line (stderr). */
export function progressLine(p: { completed: number; failed: number; elapsedMs: number; flowsPerSecond: number; p99Ms: number }, total?: number): string {
  return `${p.completed}${total ? `/${total}` : ''} flows done, ${p.failed} failed, ${p.flowsPerSecond.toFixed(1)} flows/s, p99 ${ms(p.p99Ms)}, ${(p.elapsedMs / 1000).toFixed(1)} s`;
}

export interface ReportDocument {
  summary: FleetResult['summary'];
  model: FleetResult['model'];
  setupMs: number;
  target: FleetResult['target'];
  /** Latency of whole flows in log-width bins. */
  histogram: { fromMs: number; toMs: number; count: number }[];
  /** Per second since the flows' start. */
  throughput: { second: number; completed: number; failed: number }[];
  /** Per second since the flows' start: flows started, ended, in flight; latency p50/p90/p99 of those completed. */
  seconds: SecondFigures[];
  /** Memory over time (seconds since the flows' start; negative while idle wallets were made), MB. */
  memory: { rss: [number, number][]; heap: { label: string; points: [number, number][] }[] };
  errorSamples: Record<string, string>;
}

const toMB = (b: number) => Math.round((b / 1024 / 1024) * 10) / 10;

export function reportDocument(r: FleetResult): ReportDocument {
  const total = r.histograms.total;
  return {
    summary: r.summary,
    model: r.model,
    setupMs: r.setupMs,
    target: r.target,
    histogram: total ? total.bins(30) : [],
    throughput: r.timeline.completed.map((c, i) => ({ second: i, completed: c, failed: r.timeline.failed[i] ?? 0 })),
    seconds: r.seconds,
    memory: {
      rss: r.memory.rss.map(([t, b]) => [t, toMB(b)]),
      heap: r.memory.heap.map((h) => ({ label: h.label, points: h.points.map(([t, b]) => [t, toMB(b)] as [number, number]) })),
    },
    errorSamples: r.errorSamples,
  };
}

const fmt = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(v >= 10_000 ? 0 : 1)} s` : `${v >= 10 ? v.toFixed(0) : v.toFixed(1)} ms`);
const HEAP_COLOURS = ['#2a9d8f', '#e9a23b', '#8e6cc7', '#3b7dd8', '#c75d9b', '#6b8e23'];

/** The six charts, in pairs: distribution and latency over time, throughput and flows in flight, errors and memory. */
function charts(doc: ReportDocument): string[] {
  const sec = doc.seconds ?? [];
  const hist = barsSvg('Latency of whole flows (count per bin, log scale of ms)', doc.histogram.map((b) => ({ label: fmt(b.toMs), value: b.count })), 'flow latency (upper bound of bin)');
  const latency = linesSvg(
    'Latency over time (flows completed in each second)',
    [
      { name: 'p50', colour: '#3b7dd8', points: sec.map((f) => [f.second, f.p50Ms]) },
      { name: 'p90', colour: '#e9a23b', points: sec.map((f) => [f.second, f.p90Ms]) },
      { name: 'p99', colour: '#d83b3b', points: sec.map((f) => [f.second, f.p99Ms]) },
    ],
    { xTitle: 'seconds since the first flow started', yUnit: fmt, log: true, empty: 'no flow completed' },
  );
  const tput = barsSvg('Throughput over time (flows ended per second; red: failed)', doc.throughput.map((t) => ({ label: `${t.second}s`, value: t.completed, extra: t.failed })), 'seconds since the first flow started');
  const inFlight = linesSvg('Flows in flight (at the end of each second)', [{ name: 'in flight', colour: '#3b7dd8', points: sec.map((f) => [f.second, f.inFlight]) }], {
    xTitle: 'seconds since the first flow started',
    yUnit: (v) => String(Math.round(v)),
  });
  const failed = sec.some((f) => f.failed > 0)
    ? barsSvg('Errors over time (flows failed per second)', sec.map((f) => ({ label: `${f.second}s`, value: f.failed })), 'seconds since the first flow started', '#d83b3b')
    : linesSvg('Errors over time (flows failed per second)', [], { xTitle: 'seconds since the first flow started', yUnit: String, empty: 'no flow failed' });
  const memory = linesSvg(
    'Memory over time (MB): heap of each thread, RSS of the process',
    [
      ...(doc.memory?.rss.length ? [{ name: 'RSS', colour: '#444', points: doc.memory.rss }] : []),
      ...(doc.memory?.heap ?? []).map((h, i) => ({ name: h.label, colour: HEAP_COLOURS[i % HEAP_COLOURS.length]!, points: h.points })),
    ],
    { xTitle: 'seconds since the first flow started (before 0: idle wallets made)', yUnit: (v) => `${Math.round(v)} MB`, empty: 'not measured' },
  );
  return [hist, latency, tput, inFlight, failed, memory];
}

export function reportHtml(doc: ReportDocument): string {
  const s = doc.summary;
  const rows = Object.entries(s.steps).map(([k, f]) => `<tr><td>${esc(k)}</td><td>${fmt(f.p50Ms)}</td><td>${fmt(f.p90Ms)}</td><td>${fmt(f.p99Ms)}</td><td>${fmt(f.maxMs)}</td></tr>`).join('');
  const errors = Object.entries(s.errors).map(([k, n]) => `<tr><td>${esc(k)}</td><td>${n}</td><td>${esc(doc.errorSamples[k] ?? '')}</td></tr>`).join('');
  const peak = s.peakMemoryMB;
  const memoryRows = peak ? [`<tr><td>process RSS</td><td>${peak.rss === null ? 'not measured' : `${peak.rss} MB`}</td></tr>`, ...Object.entries(peak.heap).map(([k, mb]) => `<tr><td>heap: ${esc(k)}</td><td>${mb} MB</td></tr>`)].join('') : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>idsync fleet: ${esc(s.scenario)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 1em 1em 0;display:inline-table;vertical-align:top}td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}td:first-child,th:first-child{text-align:left}.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(600px,1fr));gap:1em}.charts svg{max-width:100%;height:auto}</style>
</head><body>
<h1>idsync fleet: ${esc(s.scenario)}</h1>
<p>${s.completed} completed, ${s.failed} failed${s.stopped ? `, ${s.stopped} cut short by the stop` : ''} in ${(s.durationMs / 1000).toFixed(1)} s (${s.flowsPerSecond} flows/s); ${s.workers} worker(s); ${doc.model.kind} model; idle wallets made in ${(doc.setupMs / 1000).toFixed(1)} s before; memory per idle wallet ${s.memoryPerWalletKB === null ? 'not measured' : `${s.memoryPerWalletKB} KB`}; ${esc(targetLine(doc.target))}.</p>
<table><tr><th>step</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr>${rows}</table>
${memoryRows ? `<table><tr><th>peak memory</th><th></th></tr>${memoryRows}</table>` : ''}
${errors ? `<h2>Errors by code</h2><table><tr><th>code</th><th>flows</th><th>first message</th></tr>${errors}</table>` : '<p>No errors.</p>'}
<div class="charts">
${charts(doc).join('\n')}
</div>
</body></html>
`;
}

/** Writes report.json and report.html into `dir` (made if missing). */
export async function writeReport(dir: string, r: FleetResult): Promise<{ json: string; html: string }> {
  await makeDir(dir);
  const doc = reportDocument(r);
  const json = join(dir, 'report.json');
  const html = join(dir, 'report.html');
  await writeFile(json, JSON.stringify(doc, null, 2) + '\n');
  await writeFile(html, reportHtml(doc));
  return { json, html };
}

/** A duration as the run was asked for: whole seconds, or the fraction a short one needs ("0.5 s", not "0 s"). */
export function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : Number(s.toFixed(s < 10 ? 2 : 1))} s`;
}
