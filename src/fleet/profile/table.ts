// The attribution as text: CPU per flow by layer and thread (self time, its share, and
// inclusive time: any frame of the layer on the stack), the hottest functions of each thread,
// and, from flows run one at a time, CPU per flow by step and layer.
import type { Attribution } from './attribution.js';
import { LAYERS, LAYER_LEGEND } from './layers.js';

const f2 = (v: number) => v.toFixed(2);
const pct = (part: number, whole: number) => (whole > 0 ? `${((part / whole) * 100).toFixed(1)} %` : '-');

/**
 * Whether a thread's functions are worth listing: the coordinator only starts and counts flows,
 * unless it does real work (a mediated run's mediator runs there).
 */
function listed(a: Attribution, role: string): boolean {
  if (role === 'other') return false;
  return role !== 'coordinator' || (a.byThread.coordinator?.totalMs ?? 0) >= 1;
}

/** Rows: layers; columns: the service's and the wallets' thread, all threads, share, inclusive. */
export function layerTable(a: Attribution): string {
  const roles = (['service', 'wallets', 'coordinator'] as const).filter((r) => a.byThread[r]);
  const head = `  ${'layer'.padEnd(13)}${roles.map((r) => r.padStart(12)).join('')}${'all'.padStart(10)}${'share'.padStart(9)}${'inclusive'.padStart(11)}`;
  const rows = LAYERS.filter((l) => a.all.self[l] > 0 || a.all.inclusive[l] > 0).map(
    (l) => `  ${l.padEnd(13)}${roles.map((r) => f2(a.byThread[r]!.self[l]).padStart(12)).join('')}${f2(a.all.self[l]).padStart(10)}${pct(a.all.self[l], a.all.totalMs).padStart(9)}${f2(a.all.inclusive[l]).padStart(11)}`,
  );
  const total = `  ${'total'.padEnd(13)}${roles.map((r) => f2(a.byThread[r]!.totalMs).padStart(12)).join('')}${f2(a.all.totalMs).padStart(10)}${'100 %'.padStart(9)}`;
  const unscaled = roles.filter((r) => r !== 'coordinator' && !a.byThread[r]!.scaled);
  const notes = [
    a.helpersMs === null ? '' : `  + ${f2(a.helpersMs)} ms per flow in the process's other threads (V8's background compiler and GC helpers, libuv's pool, the profiler, the coordinator), which no profile shows`,
    unscaled.length ? `  (${unscaled.join(', ')}: sampled wall time, not scaled to a CPU clock)` : '',
  ].filter(Boolean);
  return [head, ...rows, total, ...notes].join('\n');
}

/** Rows: layers; columns: steps in the order given (then 'after', 'outside'), and the total. */
export function stepTable(a: Attribution, order: string[]): string {
  const by = a.bySteps ?? {};
  const cols = [...order.filter((s) => by[s]), ...Object.keys(by).filter((s) => !order.includes(s))];
  const head = `  ${'layer'.padEnd(13)}${cols.map((c) => c.padStart(13)).join('')}${'total'.padStart(10)}`;
  const rows = LAYERS.filter((l) => cols.some((c) => by[c]!.self[l] > 0)).map(
    (l) => `  ${l.padEnd(13)}${cols.map((c) => f2(by[c]!.self[l]).padStart(13)).join('')}${f2(cols.reduce((n, c) => n + by[c]!.self[l], 0)).padStart(10)}`,
  );
  const total = `  ${'total'.padEnd(13)}${cols.map((c) => f2(by[c]!.totalMs).padStart(13)).join('')}${f2(cols.reduce((n, c) => n + by[c]!.totalMs, 0)).padStart(10)}`;
  return [head, ...rows, total].join('\n');
}

export function hotTable(a: Attribution, top = 12): string {
  const out: string[] = [];
  for (const [role, list] of Object.entries(a.hot)) {
    if (!listed(a, role) || !list) continue;
    out.push(`  ${role} thread:`);
    for (const h of list.slice(0, top)) out.push(`    ${f2(h.ms).padStart(7)} ms  ${h.layer.padEnd(12)} ${h.where}`);
  }
  return out.join('\n');
}

export function layerLegend(): string {
  return LAYERS.map((l) => `  ${l.padEnd(12)} ${LAYER_LEGEND[l]}`).join('\n');
}

/** The hottest functions of each step (all threads), when the flows ran one at a time. */
export function stepHotTable(a: Attribution, order: string[], top = 6): string {
  const by = a.bySteps ?? {};
  const out: string[] = [];
  for (const step of [...order.filter((s) => by[s]), ...Object.keys(by).filter((s) => !order.includes(s))]) {
    out.push(`  ${step}:`);
    for (const h of by[step]!.hot.slice(0, top)) out.push(`    ${f2(h.ms).padStart(7)} ms  ${h.layer.padEnd(12)} ${h.where}`);
  }
  return out.join('\n');
}

/** idsync's functions by inclusive time, each thread. */
export function inclusiveTable(a: Attribution, top = 20): string {
  const out: string[] = [];
  for (const [role, list] of Object.entries(a.inclusive)) {
    if (!listed(a, role) || !list) continue;
    out.push(`  ${role} thread:`);
    for (const h of list.slice(0, top)) out.push(`    ${f2(h.ms).padStart(7)} ms  ${h.where}`);
  }
  return out.join('\n');
}
