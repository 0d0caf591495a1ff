// A rule as every verdict view shows it: the sentence of the spec it enforces, quoted, with its
// RFC 2119 keyword and what idsync checks; its spec, version and section, linked to the section
// (a rule of idsync's own protocols names its doc in the package instead); and the verdict a
// broken rule gives by its severity (a MUST fails, a SHOULD warns, no keyword advises).
import { ruleOf } from '../../conformance/catalogue.js';
import { html, type Html } from '../html.js';
import { ruleView, type Verdict } from '../verdicts.js';
import { badge } from './format.js';

/** The verdict of a rule broken: fail for an error, warning, or advice (the catalogue's severity). */
export function brokenVerdict(rule: string): Verdict {
  const severity = ruleOf(rule)?.severity ?? 'error';
  return severity === 'error' ? 'fail' : severity;
}

/** The quoted sentence, its keyword and what idsync checks. */
export function ruleRequires(id: string): Html {
  const rule = ruleView(id);
  return html`${rule.quote ? html`<blockquote>${rule.quote}</blockquote>` : ''}${rule.text ?? html`<span class="muted">not in the catalogue</span>`}${rule.keyword ? html` <span class="keyword">${rule.keyword}</span>` : ''}`;
}

/** "DIDComm Messaging v2.1, Threads", linked to the section. */
export function ruleSource(id: string): Html {
  const rule = ruleView(id);
  const where = rule.spec ? `${rule.spec}, ${rule.section}` : '';
  if (rule.href) return html`<a href="${rule.href}" rel="noreferrer" target="_blank">${where}</a>`;
  return rule.docPath ? html`${where} <code>${rule.docPath}</code>` : html`${where}`;
}

/** A table row: verdict badge, rule id (with what was found), the quoted requirement, its source. */
export function ruleRow(id: string, verdict: Verdict, detail?: string): Html {
  return html`<tr class="rule verdict-row-${verdict}">
<td>${badge(verdict)}</td>
<td><code>${id}</code>${detail ? html`<div class="detail">${detail}</div>` : ''}</td>
<td>${ruleRequires(id)}</td>
<td>${ruleSource(id)}</td>
</tr>`;
}

export const RULE_HEAD = html`<thead><tr><th>verdict</th><th>rule</th><th>what it requires</th><th>spec</th></tr></thead>`;
