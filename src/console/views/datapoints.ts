// A user's datapoints: the latest the provider set against those of the last completed sync,
// datapoint by datapoint.
import type { FlatDatapoints } from '../../credentials/datapoints.js';
import { html, type Html } from '../html.js';

export type DatapointState = 'synced' | 'changed' | 'new' | 'removed';

export interface DatapointRow {
  name: string;
  latest?: unknown;
  synced?: unknown;
  state: DatapointState;
}

export function compareDatapoints(latest: FlatDatapoints, synced: FlatDatapoints): DatapointRow[] {
  const names = [...new Set([...Object.keys(latest), ...Object.keys(synced)])].sort();
  return names.map((name) => {
    const l = (latest as Record<string, unknown>)[name];
    const s = (synced as Record<string, unknown>)[name];
    const state: DatapointState = l === undefined ? 'removed' : s === undefined ? 'new' : JSON.stringify(l) === JSON.stringify(s) ? 'synced' : 'changed';
    return { name, ...(l !== undefined ? { latest: l } : {}), ...(s !== undefined ? { synced: s } : {}), state };
  });
}

/** "in sync" or how many differ. */
export function syncSummary(rows: DatapointRow[]): string {
  const off = rows.filter((r) => r.state !== 'synced').length;
  if (rows.length === 0) return 'none';
  return off === 0 ? `${rows.length}, in sync` : `${off} of ${rows.length} not synced`;
}

const cell = (v: unknown) => (v === undefined ? html`<span class="muted">–</span>` : typeof v === 'string' ? v : JSON.stringify(v));

export function datapointTable(rows: DatapointRow[]): Html {
  if (rows.length === 0) return html`<p class="muted">No datapoints yet.</p>`;
  return html`<table class="datapoints"><thead><tr><th>datapoint</th><th>latest</th><th>synced</th><th></th></tr></thead><tbody>
${rows.map((r) => html`<tr class="dp-${r.state}"><td><code>${r.name}</code></td><td>${cell(r.latest)}</td><td>${cell(r.synced)}</td><td><span class="dp-state">${r.state}</span></td></tr>`)}
</tbody></table>`;
}
