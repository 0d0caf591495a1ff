// Sequence diagrams of DIDComm messages, as inline SVG (for self-contained HTML files that open
// offline) and as Mermaid text (for Markdown). Used by conformance reports and by
// `idsync wallet messages --format mermaid|html`.

export interface SequenceArrow {
  from: string;
  to: string;
  /** The message: usually `<protocol>/<name>`. */
  label: string;
  /** A second, smaller line: envelope mode, HTTP status, problem code, notes. */
  sublabel?: string;
  /** Drawn in red: the message broke a MUST, or its POST was answered 5xx. */
  bad?: boolean;
  /** Drawn dashed: a reply travelling back on the request's connection (return route). */
  dashed?: boolean;
  /** A third line under the arrow (ids and threads). */
  detail?: string;
  /** Where clicking the arrow leads (an in-page anchor with the message's contents). */
  href?: string;
  /** Extra class names of the arrow's group (for styles that highlight it). */
  className?: string;
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** `https://didcomm.org/trust-ping/2.0/ping` → `trust-ping/2.0/ping`. */
export function shortType(type: string | undefined): string {
  if (!type) return '(unreadable)';
  const parts = type.split('/');
  return parts.length >= 3 ? parts.slice(-3).join('/') : type;
}

const COL = 300;
const ROW = 44;
const TOP = 48;

/** An SVG of `arrows` between `participants` (left to right, in order); `col` is the distance between two of them. */
export function sequenceSvg(participants: string[], arrows: SequenceArrow[], col = COL): string {
  const x = (p: string) => 110 + Math.max(0, participants.indexOf(p)) * col;
  const width = 220 + (participants.length - 1) * col;
  const rowOf = (a: SequenceArrow) => (a.detail ? ROW + 14 : ROW);
  const ys: number[] = [];
  let next = TOP;
  for (const a of arrows) {
    ys.push(next + 22);
    next += rowOf(a);
  }
  const height = next + 30;
  const heads = participants
    .map((p) => `<rect x="${x(p) - 100}" y="6" width="200" height="26" rx="4" fill="#eef2f7" stroke="#5b6b80"/><text x="${x(p)}" y="24" text-anchor="middle" font-size="12" font-weight="bold">${escapeXml(p.length > 30 ? `${p.slice(0, 27)}…` : p)}</text>` +
      `<line x1="${x(p)}" y1="32" x2="${x(p)}" y2="${height - 6}" stroke="#9aa7b5" stroke-dasharray="4 3"/>`)
    .join('');
  const rows = arrows
    .map((a, i) => {
      const y = ys[i]!;
      const x1 = x(a.from);
      const x2 = x(a.to);
      const colour = a.bad ? '#c0392b' : '#2c3e50';
      const dir = x2 >= x1 ? 1 : -1;
      const mid = (x1 + x2) / 2;
      const open = a.href ? `<a href="${escapeXml(a.href)}">` : '';
      return (
        `${open}<g class="arrow${a.bad ? ' bad' : ''}${a.className ? ` ${escapeXml(a.className)}` : ''}"><line x1="${x1}" y1="${y}" x2="${x2 - dir * 8}" y2="${y}" stroke="${colour}" stroke-width="1.6"${a.dashed ? ' stroke-dasharray="6 4"' : ''}/>` +
        `<polygon points="${x2},${y} ${x2 - dir * 10},${y - 5} ${x2 - dir * 10},${y + 5}" fill="${colour}"/>` +
        `<text x="${mid}" y="${y - 6}" text-anchor="middle" font-size="12" fill="${colour}">${escapeXml(a.label)}</text>` +
        (a.sublabel ? `<text x="${mid}" y="${y + 14}" text-anchor="middle" font-size="10" fill="#5b6b80">${escapeXml(a.sublabel)}</text>` : '') +
        (a.detail ? `<text x="${mid}" y="${y + 27}" text-anchor="middle" font-size="10" fill="#5b6b80">${escapeXml(a.detail)}</text>` : '') +
        (a.href ? `<rect x="${Math.min(x1, x2)}" y="${y - 20}" width="${Math.abs(x2 - x1)}" height="${rowOf(a) - 4}" fill="transparent"/>` : '') +
        `</g>${a.href ? '</a>' : ''}`
      );
    })
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" class="sequence" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" role="img" aria-label="sequence diagram of ${arrows.length} messages">${heads}${rows}</svg>`;
}

/** Mermaid `sequenceDiagram` text of the same arrows. */
export function sequenceMermaid(participants: string[], arrows: SequenceArrow[]): string {
  const ids = new Map(participants.map((p, i) => [p, `P${i}`]));
  const clean = (t: string) => t.replace(/[;#\n]/g, ' ');
  return [
    'sequenceDiagram',
    ...participants.map((p) => `  participant ${ids.get(p)} as ${clean(p)}`),
    ...arrows.map((a) => `  ${ids.get(a.from) ?? 'P0'}${a.dashed ? '-->>' : '->>'}${ids.get(a.to) ?? 'P1'}: ${clean(a.label)}${a.sublabel ? ` (${clean(a.sublabel)})` : ''}${a.bad ? ' ✗' : ''}`),
  ].join('\n');
}
