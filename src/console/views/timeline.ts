// A flow's history on a timeline: its state changes, the events it fired and the messages of its
// threads, in time order, each with its time and the time since the flow began.
import { html, type Html } from '../html.js';
import { time } from './format.js';

export interface TimelinePoint {
  at: string;
  label: string;
  /** state: a state change of the flow; event: a webhook event; message: a DIDComm message. */
  kind: 'state' | 'event' | 'message';
  tone?: 'ok' | 'bad' | 'busy';
  detail?: string;
  href?: string;
}

function since(start: number, at: string): string {
  const ms = Date.parse(at) - start;
  if (!Number.isFinite(ms)) return '';
  return ms < 1000 ? `+${ms} ms` : ms < 120_000 ? `+${(ms / 1000).toFixed(2)} s` : `+${Math.round(ms / 60_000)} min`;
}

export function timeline(points: TimelinePoint[]): Html {
  if (points.length === 0) return html`<p class="muted">Nothing has happened yet.</p>`;
  const sorted = [...points].sort((a, b) => a.at.localeCompare(b.at));
  const start = Date.parse(sorted[0]!.at);
  return html`<ol class="timeline">${sorted.map(
    (p) => html`<li class="tl-${p.kind}${p.tone ? ` tl-${p.tone}` : ''}">
<span class="tl-time">${time(p.at)} <small>${since(start, p.at)}</small></span>
<span class="tl-label">${p.href ? html`<a href="${p.href}">${p.label}</a>` : p.label}</span>
${p.detail ? html`<span class="tl-detail">${p.detail}</span>` : ''}
</li>`,
  )}</ol>`;
}

/** The tone of a state or event name: failed/expired are bad, completed/established good. */
export function toneOf(name: string): TimelinePoint['tone'] {
  if (/FAIL|EXPIRE|ABORT|DEAD|REFUS|DECLIN|REVOK|SUSPEND/i.test(name)) return 'bad';
  if (/COMPLET|ESTABLISH|ISSUED|DELIVER|SUCCE|done/i.test(name)) return 'ok';
  return 'busy';
}
