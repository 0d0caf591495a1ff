// The charts of a fleet report as inline SVG (no scripts, no fonts or files from anywhere):
// bars (a histogram, counts per second, stacked failures) and lines (latency percentiles, flows
// in flight, memory over time), each with its axes, a few ticks and a legend. Long runs keep
// their shape: bars are grouped into at most MAX_BARS, lines keep every point.

const W = 600;
const H = 260;
const L = 64;
const R = 12;
const B = 40;
const T = 36;
/** More bars than this are summed in groups of consecutive ones (a 30-minute run has 1,800 seconds). */
const MAX_BARS = 360;

export const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
const n1 = (v: number) => v.toFixed(1);

function frame(title: string, xTitle: string, body: string, yTicks: { y: number; label: string }[], xTicks: { x: number; label: string }[], legend = ''): string {
  const ticks =
    yTicks.map((t) => `<line x1="${L - 4}" y1="${n1(t.y)}" x2="${W - R}" y2="${n1(t.y)}" stroke="#eee"/><text x="${L - 6}" y="${n1(t.y + 3)}" font-size="10" text-anchor="end">${esc(t.label)}</text>`).join('') +
    xTicks.map((t) => `<text x="${n1(t.x)}" y="${H - B + 14}" font-size="10" text-anchor="middle">${esc(t.label)}</text>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)}">
<text x="${L}" y="16" font-size="13" font-weight="bold">${esc(title)}</text>${legend}
${ticks}
<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#444"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#444"/>
${body}
<text x="${(W + L) / 2}" y="${H - 6}" font-size="11" text-anchor="middle">${esc(xTitle)}</text>
</svg>`;
}

/** A round step for about `n` ticks over `span`. */
function niceStep(span: number, n: number): number {
  const raw = span / Math.max(1, n);
  const p = 10 ** Math.floor(Math.log10(raw || 1));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
}

export interface Bar {
  label: string;
  value: number;
  /** Stacked on top in red (failures). */
  extra?: number;
}

/** Groups consecutive bars (sums) so that at most MAX_BARS remain; a group is labelled by its first. */
function grouped(bars: Bar[]): Bar[] {
  const k = Math.ceil(bars.length / MAX_BARS);
  if (k <= 1) return bars;
  const out: Bar[] = [];
  for (let i = 0; i < bars.length; i += k) {
    const g = bars.slice(i, i + k);
    out.push({ label: g[0]!.label, value: g.reduce((n, b) => n + b.value, 0), extra: g.reduce((n, b) => n + (b.extra ?? 0), 0) });
  }
  return out;
}

export function barsSvg(title: string, input: Bar[], xTitle: string, colour = '#3b7dd8'): string {
  const bars = grouped(input);
  const max = Math.max(1, ...bars.map((b) => b.value + (b.extra ?? 0)));
  const bw = bars.length ? (W - L - R) / bars.length : 0;
  const y = (v: number) => H - B - (v / max) * (H - B - T);
  const rect = (x: number, top: number, bottom: number, fill: string, tip: string) =>
    `<rect x="${n1(x)}" y="${n1(top)}" width="${n1(Math.max(1, bw - 1))}" height="${n1(bottom - top)}" fill="${fill}"><title>${esc(tip)}</title></rect>`;
  const body = bars
    .map((b, i) => {
      const x = L + i * bw;
      const ok = b.value ? rect(x, y(b.value), H - B, colour, `${b.label}: ${b.value}`) : '';
      const bad = b.extra ? rect(x, y(b.value + b.extra), y(b.value), '#d83b3b', `${b.label}: ${b.extra} failed`) : '';
      return ok + bad;
    })
    .join('');
  const every = Math.max(1, Math.ceil(bars.length / 10));
  const xTicks = bars.flatMap((b, i) => (i % every === 0 ? [{ x: L + i * bw + bw / 2, label: b.label }] : []));
  const step = niceStep(max, 4);
  const yTicks = Array.from({ length: Math.floor(max / step) + 1 }, (_, i) => ({ y: y(i * step), label: String(i * step) }));
  const note = input.length > bars.length ? `<text x="${W - R}" y="28" font-size="10" text-anchor="end">(${Math.ceil(input.length / MAX_BARS)} per bar)</text>` : '';
  return frame(title, xTitle, body, yTicks, xTicks, note);
}

export interface Line {
  name: string;
  colour: string;
  /** [x, y]; a null y breaks the line (no value in that second). */
  points: [number, number | null][];
}

/** Lines over a shared x axis; `log`: a logarithmic y axis (latencies spread over decades). */
export function linesSvg(title: string, lines: Line[], o: { xTitle: string; yUnit: (v: number) => string; log?: boolean; empty?: string }): string {
  const xs = lines.flatMap((l) => l.points.map((p) => p[0]));
  const ys = lines.flatMap((l) => l.points.flatMap((p) => (p[1] === null ? [] : [p[1]])));
  if (!xs.length || !ys.length) return frame(title, o.xTitle, `<text x="${(W + L) / 2}" y="${H / 2}" font-size="12" text-anchor="middle">${esc(o.empty ?? 'no data')}</text>`, [], []);
  const x0 = Math.min(...xs);
  const x1 = Math.max(x0 + 1, ...xs);
  const log = o.log === true;
  const f = (v: number) => (log ? Math.log10(Math.max(v, 0.01)) : v);
  const lo = log ? Math.floor(f(Math.min(...ys))) : 0;
  const hi = log ? Math.max(lo + 1, Math.ceil(f(Math.max(...ys)))) : Math.max(1, ...ys) * 1.05;
  const px = (x: number) => L + ((x - x0) / (x1 - x0)) * (W - L - R);
  const py = (v: number) => H - B - ((f(v) - lo) / (hi - lo)) * (H - B - T);
  const body = lines
    .map((l) => {
      const segments: string[][] = [[]];
      for (const [x, v] of l.points) {
        if (v === null) segments.push([]);
        else segments[segments.length - 1]!.push(`${n1(px(x))},${n1(py(v))}`);
      }
      return segments
        .filter((s) => s.length)
        .map((s) => (s.length === 1 ? `<circle cx="${s[0]!.split(',')[0]}" cy="${s[0]!.split(',')[1]}" r="1.5" fill="${l.colour}"/>` : `<polyline fill="none" stroke="${l.colour}" stroke-width="1.5" points="${s.join(' ')}"/>`))
        .join('');
    })
    .join('\n');
  const yTicks = log
    ? Array.from({ length: hi - lo + 1 }, (_, i) => ({ y: py(10 ** (lo + i)), label: o.yUnit(10 ** (lo + i)) }))
    : (() => {
        const step = niceStep(hi, 4);
        return Array.from({ length: Math.floor(hi / step) + 1 }, (_, i) => ({ y: py(i * step), label: o.yUnit(i * step) }));
      })();
  const xStep = niceStep(x1 - x0, 8);
  const xTicks = Array.from({ length: Math.floor((x1 - Math.ceil(x0 / xStep) * xStep) / xStep) + 1 }, (_, i) => Math.ceil(x0 / xStep) * xStep + i * xStep).map((x) => ({ x: px(x), label: String(x) }));
  const legend = lines.map((l, i) => `<rect x="${W - R - 90 * (lines.length - i)}" y="19" width="10" height="10" fill="${l.colour}"/><text x="${W - R - 90 * (lines.length - i) + 14}" y="28" font-size="11">${esc(l.name)}</text>`).join('');
  return frame(title, o.xTitle, body, yTicks, xTicks, legend);
}
