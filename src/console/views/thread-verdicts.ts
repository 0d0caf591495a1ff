// The rule verdicts of a thread: every rule checked on its messages, once, with the worst verdict
// it gave, how many messages it was checked on and which broke it (linked), and the sentence of
// the spec it enforces, quoted, with its keyword and section. Broken rules first; the rules that
// held on every message are listed folded.
import type { LoggedMessage } from '../../store/messages.js';
import { html, type Html } from '../html.js';
import { VERDICTS, verdictOf, type Verdict } from '../verdicts.js';
import { badge, shortType } from './format.js';
import { RULE_HEAD, ruleRequires, ruleSource } from './rule.js';

interface RuleTally {
  rule: string;
  worst: Verdict;
  checked: number;
  broken: { seq: string; type: string; detail?: string }[];
}

export function tallyRules(messages: LoggedMessage[]): RuleTally[] {
  const by = new Map<string, RuleTally>();
  for (const m of messages) {
    for (const r of m.conformance ?? []) {
      const t = by.get(r.rule) ?? { rule: r.rule, worst: 'pass' as Verdict, checked: 0, broken: [] };
      const v = verdictOf(r);
      t.checked++;
      if (VERDICTS.indexOf(v) > VERDICTS.indexOf(t.worst)) t.worst = v;
      if (!r.ok) t.broken.push({ seq: m.seq, type: m.type, ...(r.detail ? { detail: r.detail } : {}) });
      by.set(r.rule, t);
    }
  }
  // Worst first, then by rule id.
  return [...by.values()].sort((a, b) => VERDICTS.indexOf(b.worst) - VERDICTS.indexOf(a.worst) || a.rule.localeCompare(b.rule));
}

function row(t: RuleTally): Html {
  return html`<tr class="rule verdict-row-${t.worst}">
<td>${badge(t.worst)}</td>
<td><code>${t.rule}</code><div class="muted">checked on ${t.checked} message${t.checked === 1 ? '' : 's'}</div>
${t.broken.map((b) => html`<div class="detail"><a href="/console/messages/${b.seq}">${shortType(b.type || undefined)}</a>${b.detail ? `: ${b.detail}` : ''}</div>`)}</td>
<td>${ruleRequires(t.rule)}</td>
<td>${ruleSource(t.rule)}</td>
</tr>`;
}

export function threadVerdicts(messages: LoggedMessage[]): Html {
  const tallies = tallyRules(messages);
  if (tallies.length === 0) return html`<p class="muted">No rules were checked on these messages.</p>`;
  const broken = tallies.filter((t) => t.worst !== 'pass');
  const held = tallies.filter((t) => t.worst === 'pass');
  return html`${broken.length
    ? html`<table class="rules thread-rules">${RULE_HEAD}<tbody>${broken.map(row)}</tbody></table>`
    : html`<p class="verdict-summary">${badge('pass')} Every rule checked held on every message.</p>`}
${held.length ? html`<details class="held" id="held-rules"${broken.length ? '' : html` open`}><summary>${held.length} rule${held.length === 1 ? '' : 's'} held on every message</summary>
<table class="rules thread-rules">${RULE_HEAD}<tbody>${held.map(row)}</tbody></table></details>` : ''}`;
}
