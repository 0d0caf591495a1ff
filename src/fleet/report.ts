// What a fleet run tells people: a table per step, errors by code, memory per wallet; and
// `--report DIR`: report.json (the summary, histograms' bins, throughput per second) and
// report.html, one offline page (no scripts, no network) with the latency histogram and the
// throughput over time drawn as inline SVG.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FleetResult } from './fleet.js';

const ms = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(1)} ms`);

function modelLine(r: FleetResult): string {
  const m = r.model;
  return m.kind === 'closed'
    ? `closed model: ${m.wallets} wallets, ${m.concurrency} at a time`
    : `open model: ${m.ratePerSecond}/s for ${(m.durationMs / 1000).toFixed(0)} s${m.rampMs ? `, ramp ${(m.rampMs / 1000).toFixed(0)} s` : ''}`;
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
    `fleet ${s.scenario}: ${modelLine(r)}, ${threadsLine(r)}, ${r.target.embedded ? 'embedded twin' : r.target.url}`,
    `${s.completed} completed, ${s.failed} failed in ${(s.durationMs / 1000).toFixed(1)} s: ${s.flowsPerSecond} flows/s (idle wallets made in ${(r.setupMs / 1000).toFixed(1)} s before)`,
    '',
    `  ${'step'.padEnd(14)}${'p50'.padStart(11)}${'p90'.padStart(11)}${'p99'.padStart(11)}${'max'.padStart(11)}`,
    ...Object.entries(s.steps).map(([step, f]) => `  ${step.padEnd(14)}${ms(f.p50Ms).padStart(11)}${ms(f.p90Ms).padStart(11)}${ms(f.p99Ms).padStart(11)}${ms(f.maxMs).padStart(11)}`),
    '',
    Object.keys(s.errors).length
      ? ['errors by code:', ...Object.entries(s.errors).map(([code, n]) => `  ${code}: ${n}${r.errorSamples[code] ? `  (${r.errorSamples[code]})` : ''}`)].join('\n')
      : 'errors: none',
    resendLine(r.resends),
    s.memoryPerWalletKB === null ? 'memory per idle wallet: not measured (no forced GC in this run\'s threads)' : `memory per idle wallet: ${s.memoryPerWalletKB} KB`,
    busyLine(r.threads),
  ];
  return lines.join('\n');
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
  errorSamples: Record<string, string>;
}

export function reportDocument(r: FleetResult): ReportDocument {
  const total = r.histograms.total;
  return {
    summary: r.summary,
    model: r.model,
    setupMs: r.setupMs,
    target: r.target,
    histogram: total ? total.bins(30) : [],
    throughput: r.timeline.completed.map((c, i) => ({ second: i, completed: c, failed: r.timeline.failed[i] ?? 0 })),
    errorSamples: r.errorSamples,
  };
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

function barsSvg(title: string, bars: { label: string; value: number; extra?: number }[], xTitle: string): string {
  const W = 720, H = 260, L = 50, B = 40, T = 24;
  const max = Math.max(1, ...bars.map((b) => b.value + (b.extra ?? 0)));
  const bw = bars.length ? (W - L - 10) / bars.length : 0;
  const y = (v: number) => H - B - (v / max) * (H - B - T);
  const rects = bars
    .map((b, i) => {
      const x = L + i * bw;
      const ok = `<rect x="${x.toFixed(1)}" y="${y(b.value).toFixed(1)}" width="${Math.max(1, bw - 1).toFixed(1)}" height="${(H - B - y(b.value)).toFixed(1)}" fill="#3b7dd8"><title>${esc(b.label)}: ${b.value}</title></rect>`;
      const bad = b.extra ? `<rect x="${x.toFixed(1)}" y="${y(b.value + b.extra).toFixed(1)}" width="${Math.max(1, bw - 1).toFixed(1)}" height="${(y(b.value) - y(b.value + b.extra)).toFixed(1)}" fill="#d83b3b"><title>${esc(b.label)}: ${b.extra} failed</title></rect>` : '';
      return ok + bad;
    })
    .join('');
  const every = Math.max(1, Math.ceil(bars.length / 10));
  const labels = bars
    .map((b, i) => (i % every === 0 ? `<text x="${(L + i * bw + bw / 2).toFixed(1)}" y="${H - B + 14}" font-size="10" text-anchor="middle">${esc(b.label)}</text>` : ''))
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" role="img" aria-label="${esc(title)}">
<text x="${L}" y="16" font-size="13" font-weight="bold">${esc(title)}</text>
<line x1="${L}" y1="${H - B}" x2="${W - 10}" y2="${H - B}" stroke="#444"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#444"/>
<text x="${L - 6}" y="${T + 4}" font-size="10" text-anchor="end">${max}</text><text x="${L - 6}" y="${H - B}" font-size="10" text-anchor="end">0</text>
${rects}${labels}
<text x="${(W + L) / 2}" y="${H - 6}" font-size="11" text-anchor="middle">${esc(xTitle)}</text>
</svg>`;
}

export function reportHtml(doc: ReportDocument): string {
  const s = doc.summary;
  const fmt = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(1)} ms`);
  const hist = barsSvg('Latency of whole flows (count per bin, log scale of ms)', doc.histogram.map((b) => ({ label: fmt(b.toMs), value: b.count })), 'flow latency (upper bound of bin)');
  const tput = barsSvg('Throughput over time (flows ended per second; red: failed)', doc.throughput.map((t) => ({ label: `${t.second}s`, value: t.completed, extra: t.failed })), 'seconds since start');
  const rows = Object.entries(s.steps).map(([k, f]) => `<tr><td>${esc(k)}</td><td>${fmt(f.p50Ms)}</td><td>${fmt(f.p90Ms)}</td><td>${fmt(f.p99Ms)}</td><td>${fmt(f.maxMs)}</td></tr>`).join('');
  const errors = Object.entries(s.errors).map(([k, n]) => `<tr><td>${esc(k)}</td><td>${n}</td><td>${esc(doc.errorSamples[k] ?? '')}</td></tr>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>idsync fleet: ${esc(s.scenario)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}td:first-child,th:first-child{text-align:left}</style>
</head><body>
<h1>idsync fleet: ${esc(s.scenario)}</h1>
<p>${s.completed} completed, ${s.failed} failed in ${(s.durationMs / 1000).toFixed(1)} s (${s.flowsPerSecond} flows/s); ${s.workers} worker(s); ${doc.model.kind} model; memory per idle wallet ${s.memoryPerWalletKB === null ? 'not measured' : `${s.memoryPerWalletKB} KB`}; ${doc.target.embedded ? 'embedded twin' : esc(doc.target.url)}.</p>
<table><tr><th>step</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr>${rows}</table>
${errors ? `<h2>Errors by code</h2><table><tr><th>code</th><th>flows</th><th>first message</th></tr>${errors}</table>` : '<p>No errors.</p>'}
${hist}
${tput}
</body></html>
`;
}

/** Writes report.json and report.html into `dir` (made if missing). */
export async function writeReport(dir: string, r: FleetResult): Promise<{ json: string; html: string }> {
  await mkdir(dir, { recursive: true });
  const doc = reportDocument(r);
  const json = join(dir, 'report.json');
  const html = join(dir, 'report.html');
  await writeFile(json, JSON.stringify(doc, null, 2) + '\n');
  await writeFile(html, reportHtml(doc));
  return { json, html };
}
