// Pieces of the conformance views: a run's state as a person reads it (a finished run by its
// verdict: passed, failed, or nothing judged), case statuses and summaries as badges, a run's
// target, and the rules a case broke with their quoted sentences.
import type { ConformanceRunRecord, StoredCase } from '../../store/conformance-runs.js';
import { html, type Html } from '../html.js';
import { did, state, time } from '../views/format.js';
import { brokenVerdict, ruleRequires, ruleSource } from '../views/rule.js';
import { badge } from '../views/format.js';

export const runHref = (rec: Pick<ConformanceRunRecord, 'id'>, tail = ''): string => `/console/conformance/runs/${encodeURIComponent(rec.id)}${tail}`;

/** A finished run's verdict (`conformance run`'s exit status), or its state. */
export function runState(rec: ConformanceRunRecord): Html {
  if (rec.state === 'finished') {
    if (rec.exitCode === 0) return state('passed', 'ok');
    if (rec.exitCode === 1) return state('failed', 'bad');
    return state('nothing judged', 'busy');
  }
  if (rec.state === 'running' && rec.cancelRequestedAt) return state('cancelling', 'busy');
  return state(rec.state, rec.state === 'queued' || rec.state === 'running' ? 'busy' : 'bad');
}

export function caseStatus(status: string): Html {
  return html`<span class="status status-${status}">${status}</span>`;
}

/** The statuses that occurred, with their counts (passed and failed always). */
export function summaryBadges(summary: Record<string, number> | undefined): Html {
  if (!summary) return html`<span class="muted">–</span>`;
  const shown = Object.entries(summary).filter(([k, n]) => n > 0 || k === 'passed' || k === 'failed');
  return html`${shown.map(([k, n]) => html`<span class="status status-${n > 0 ? k : 'none'}">${n} ${k}</span> `)}`;
}

export function targetCell(rec: ConformanceRunRecord): Html {
  const t = rec.target.startsWith('did:') ? did(rec.target) : html`<code title="${rec.target}">${rec.target.length > 60 ? `${rec.target.slice(0, 60)}…` : rec.target}</code>`;
  return html`${rec.label ? html`<strong>${rec.label}</strong> ` : ''}${t}`;
}

export function duration(rec: ConformanceRunRecord): string {
  if (!rec.startedAt) return '';
  const end = rec.endedAt ? Date.parse(rec.endedAt) : Date.now();
  return `${((end - Date.parse(rec.startedAt)) / 1000).toFixed(1)} s`;
}

export const when = (rec: ConformanceRunRecord): Html => time(rec.createdAt);

/** The rules a case broke, each with its verdict, quoted sentence and source. */
export function caseRules(c: StoredCase): Html {
  const rules = [...c.failedRules, ...(c.warnings ?? []), ...(c.advice ?? [])];
  if (rules.length === 0) return html``;
  return html`<ul class="case-rules">${[...new Set(rules)].map((r) => html`<li>${badge(brokenVerdict(r))} <code>${r}</code> ${ruleRequires(r)} <small>${ruleSource(r)}</small></li>`)}</ul>`;
}
