// One message: its headers and outcome, the verdict of every rule checked on it with the rule's
// entry in the catalogue, the decrypted plaintext, the packed form as it travelled (when the
// console saw it), and both as a command for `idsync message check` to copy.
import type { FastifyInstance } from 'fastify';
import { threadOf, type LoggedMessage } from '../../store/messages.js';
import { problem } from '../../service/http/problem.js';
import { sendHtml } from '../auth.js';
import { renderPage, type ConsoleContext } from '../context.js';
import { html, prettyJson, type Html } from '../html.js';
import { redact, redactText } from '../redact.js';
import { verdictOf, worstVerdict, type CheckedRule } from '../verdicts.js';
import { badge, did, endpoint, jsonBlock, state, time } from './format.js';
import { faultBadge } from './message-row.js';
import { RULE_HEAD, ruleRow } from './rule.js';

const SEQ = /^\d{1,20}-\d{1,10}$/;

/** A shell command that hands `text` to `idsync message check` on standard input. */
export function checkCommand(text: string): string {
  // A quoted heredoc delimiter: the shell expands nothing inside.
  let tag = 'MESSAGE';
  while (text.includes(tag)) tag += '_';
  return `idsync message check - <<'${tag}'\n${text}\n${tag}`;
}

function checkedRow(r: CheckedRule): Html {
  return ruleRow(r.rule, verdictOf(r), r.detail);
}

function copyBlock(id: string, label: string, text: string): Html {
  return html`<div class="copy">
<button type="button" class="copy-button" data-copy="${id}">Copy ${label} for <code>idsync message check</code></button>
<textarea id="${id}" readonly rows="4">${checkCommand(text)}</textarea>
</div>`;
}

function plaintextOf(m: LoggedMessage): string | undefined {
  if (m.digest || !m.message || Object.keys(m.message).length === 0) return undefined;
  return prettyJson(redact(m.message));
}

export function registerMessageView(scope: FastifyInstance, ctx: ConsoleContext): void {
  scope.get('/console/messages/:seq', { schema: { hide: true } }, async (request, reply) => {
    const { seq } = request.params as { seq: string };
    const m = SEQ.test(seq) ? await ctx.feed.log.get(seq) : undefined;
    if (!m) throw problem('not_found', `no message record ${seq}`);
    const thid = threadOf(m);
    const packed = ctx.feed.packed(seq);
    const plaintext = plaintextOf(m);
    const results = m.conformance ?? [];
    const attempt = ctx.feed.attempt(seq);
    const faults = ctx.feed.faultsOf(seq);
    const body = html`<h1>${m.direction === 'out' ? 'Sent' : 'Received'}: <code>${m.type || '(unreadable)'}</code> ${badge(worstVerdict(results))}</h1>
<table class="facts">
<tr><th>time</th><td>${time(m.at)}</td><th>result</th><td>${state(m.result)}${m.problemCode ? html` <code>${m.problemCode}</code>` : ''}</td></tr>
<tr><th>message id</th><td><code>${m.id}</code></td><th>envelope</th><td>${m.mode}, ${m.size} bytes${m.transport ? `, ${m.transport}` : ''}</td></tr>
<tr><th>thread</th><td><a href="/console/threads/${encodeURIComponent(thid)}"><code>${thid}</code></a>${m.pthid ? html` (parent <a href="/console/threads/${encodeURIComponent(m.pthid)}"><code>${m.pthid}</code></a>)` : ''}</td>
<th>${attempt !== undefined && attempt > 1 ? 'again' : ''}</th><td>${attempt !== undefined && attempt > 1 ? `${m.direction === 'out' ? 'sent' : 'arrived'} again (#${attempt} of this message id)` : ''}</td></tr>
<tr><th>from</th><td>${did(m.from)}</td><th>to</th><td>${(m.to ?? []).map((t) => did(t))}</td></tr>
${m.endpoint ? html`<tr><th>endpoint</th><td colspan="3">${endpoint(m.endpoint)}</td></tr>` : ''}
${faults.length ? html`<tr><th>faults</th><td colspan="3">${faults.map((f) => html`${faultBadge(f)} (fault ${f.seq}, ${f.direction}) `)}</td></tr>` : ''}
</table>
<h2>Rule verdicts</h2>
${results.length
  ? html`<table class="rules">${RULE_HEAD}<tbody>${results.map(checkedRow)}</tbody></table>`
  : html`<p class="muted">No rules were checked on this message.</p>`}
<h2>Plaintext</h2>
${plaintext !== undefined
  ? html`<pre class="json" id="plaintext">${plaintext}</pre>`
  : html`<p class="muted">Only a digest was kept of this message (its sender was not authenticated, or it was too large)${m.digest ? `: ${m.digest.hash}, ${m.digest.size} bytes` : ''}.</p>${m.digest ? html`<pre class="json">${redactText(m.digest.head)}</pre>` : ''}`}
<h2>Packed</h2>
${packed !== undefined
  ? jsonBlock(safeParse(packed), 'packed message')
  : html`<p class="muted">The console did not see this message travel (it started after, or the form was dropped to keep memory bounded).</p>`}
<h2>Check it yourself</h2>
${plaintext !== undefined ? copyBlock('check-plaintext', 'the plaintext', plaintext) : ''}
${packed !== undefined ? copyBlock('check-packed', 'the packed form', redactText(packed)) : ''}
<p class="hint">Without the recipient's keys, <code>message check</code> judges a packed message by its envelope; the plaintext is checked against the header and protocol rules.</p>`;
    return sendHtml(reply, renderPage(ctx, request, { title: `Message ${m.id}`, active: 'messages', body }));
  });
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
