// report.html of `conformance run --report DIR`: one self-contained file that opens offline (no
// script, no external asset; it works as a file:// page). Per case its steps, the rules broken (each
// id linked to the spec section it comes from), notes, and a sequence diagram whose arrows carry
// the message type, envelope mode, HTTP status, id and thread. Clicking an arrow opens that
// message: its plaintext (what the harness packed, or what it opened), its protected headers, the
// HTTP answer, and the rules it broke, which are highlighted in the case's table at the same time
// (CSS :target and :has). At the end, every rule the report names with its source. A server that
// forbids inline styles (the console's Content-Security-Policy) serves reportCss() as a file and
// asks for a <link> to it instead: the same rules, so the CSS-only interactivity works there too.
import { ruleAnchor, ruleOf } from '../conformance/catalogue.js';
import { escapeXml, sequenceSvg, shortType, type SequenceArrow } from './sequence.js';
import type { CaseResult, ConformanceReport, ExchangedMessage } from './types.js';

const HARNESS = 'idsync (harness)';
const AGENT = 'agent under test';

const short = (id: string) => (id.length > 12 ? `${id.slice(0, 8)}…` : id);
const esc = escapeXml;

/** The spec link of a rule: an absolute URL only (a relative one names a file of the package: no link). */
export function ruleHref(id: string): string | undefined {
  const url = ruleOf(id)?.url;
  return url && /^https?:\/\//.test(url) ? url : undefined;
}

/** A rule id linked to its spec section (or, for a rule of idsync's own protocols, to its row below). */
export function ruleRef(id: string): string {
  return `<a class="rule" href="${esc(ruleHref(id) ?? `#${ruleAnchor(id)}`)}" title="${esc(ruleOf(id)?.text ?? '')}"><code>${esc(id)}</code></a>`;
}

const messageAnchor = (caseIndex: number, seq: number) => `m-${caseIndex}-${seq}`;

export function arrowOf(m: ExchangedMessage, blamed: ReadonlySet<number> = new Set(), href?: string): SequenceArrow {
  // A sent message shows the agent's HTTP answer; a received one how it came: POSTed to idsync's
  // endpoint (which answers 202) or in the body of the agent's HTTP answer (return route).
  const status = m.http ? `HTTP ${m.http.status}` : m.httpStatus !== undefined ? `HTTP ${m.httpStatus}` : m.direction === 'received' ? (m.via === 'endpoint' ? 'POST, HTTP 202 from idsync' : 'in the HTTP answer (return route)') : undefined;
  const label = m.type ? shortType(m.type) : m.direction === 'sent' ? (m.note ?? 'raw body') : 'message not opened';
  const bits = [m.mode === 'unreadable' && m.direction === 'sent' ? undefined : m.mode, status, m.problemCode, m.type ? m.note : undefined].filter(Boolean);
  const ids = [m.id ? `id ${short(m.id)}` : undefined, m.thid ? `thid ${short(m.thid)}` : undefined, m.pthid ? `pthid ${short(m.pthid)}` : undefined].filter(Boolean);
  return {
    from: m.direction === 'sent' ? HARNESS : AGENT,
    to: m.direction === 'sent' ? AGENT : HARNESS,
    label: `#${m.seq} ${label}`,
    sublabel: bits.join(' · '),
    ...(ids.length ? { detail: ids.join(' · ') } : {}),
    bad: (m.broken?.length ?? 0) > 0 || (m.http?.status ?? m.httpStatus ?? 0) >= 500 || blamed.has(m.seq),
    dashed: m.via === 'return-route',
    className: `seq-${m.seq}`,
    ...(href ? { href } : {}),
  };
}

/** Seqs of the messages a failing (error) rule of the case points at. */
function blamedIn(c: CaseResult): Set<number> {
  return new Set(c.broken.filter((b) => b.seq !== undefined && b.severity === 'error').map((b) => b.seq!));
}

export function caseSvg(c: CaseResult, caseIndex = 0): string {
  const blamed = blamedIn(c);
  return sequenceSvg([HARNESS, AGENT], c.messages.map((m) => arrowOf(m, blamed, `#${messageAnchor(caseIndex, m.seq)}`)), 420);
}

const pre = (text: string) => `<pre>${esc(text)}</pre>`;

/** The panel an arrow opens: the message's contents, headers, HTTP answer and the rules it broke. */
function messagePanel(c: CaseResult, caseIndex: number, m: ExchangedMessage): string {
  const rules = c.broken.filter((b) => b.seq === m.seq);
  const parts = [
    `<h4>#${m.seq} ${m.direction === 'sent' ? 'sent by idsync' : `received (${m.via})`}: ${esc(m.type ?? (m.direction === 'sent' ? 'raw body' : 'not opened'))}</h4>`,
    `<p class="muted">mode ${esc(m.mode)}${m.id ? ` · id <code>${esc(m.id)}</code>` : ''}${m.thid ? ` · thid <code>${esc(m.thid)}</code>` : ''}${m.pthid ? ` · pthid <code>${esc(m.pthid)}</code>` : ''}${m.note ? ` · ${esc(m.note)}` : ''} · at ${m.atMs} ms</p>`,
    rules.length ? `<p>Rules broken: ${rules.map((b) => `${ruleRef(b.rule)} (${esc(String(b.severity))}${b.expected ? ', expected' : ''})`).join(', ')}</p>` : '',
    m.opened ? `<p>Opened: ${esc(m.opened)}</p>` : '',
    m.plaintext !== undefined ? `<h5>Plaintext</h5>${pre(m.plaintext)}` : '',
    m.protectedHeaders ? `<h5>Protected headers (outer layer)</h5>${pre(JSON.stringify(m.protectedHeaders, null, 2))}` : '',
    m.http ? `<h5>HTTP answer</h5><p>HTTP ${m.http.status}${m.http.contentType ? ` · ${esc(m.http.contentType)}` : ''}${m.http.readAsMessage ? ' · read as a DIDComm message' : ' · a transport answer'}${m.http.truncated ? ' · body cut at 2 KB' : ''}</p>${m.http.body ? pre(m.http.body) : '<p class="muted">(empty body)</p>'}` : '',
    m.plaintext === undefined && m.wire ? `<h5>On the wire</h5>${pre(m.wire)}` : '',
  ];
  return `<div class="msg" id="${messageAnchor(caseIndex, m.seq)}">${parts.join('')}<p><a href="#case-${esc(c.id)}">close</a></p></div>`;
}

/** CSS that highlights a message's arrow and its rule rows together while it is open (targeted). */
function highlightCss(c: CaseResult, caseIndex: number): string {
  const seqs = [...new Set(c.broken.filter((b) => b.seq !== undefined).map((b) => b.seq!))];
  return seqs.map((s) => `#c${caseIndex}:has(#${messageAnchor(caseIndex, s)}:target) .seq-${s}{background:#fff3b0;outline:2px solid #e0a800}`).join('\n');
}

/** A broken rule's severity as a badge, with the keyword of its quote (MUST, SHOULD, none). */
function severityBadge(rule: string, severity: string): string {
  const keyword = ruleOf(rule)?.keyword;
  return `<span class="sev sev-${esc(severity)}">${esc(severity)}</span>${keyword ? ` <span class="keyword">${esc(keyword)}</span>` : ''}`;
}

function brokenTable(c: CaseResult, caseIndex: number): string {
  if (!c.broken.length) return '';
  const rows = c.broken.map((b) => {
    const seq = b.seq !== undefined ? `<a href="#${messageAnchor(caseIndex, b.seq)}">#${b.seq}</a>` : '';
    const cls = [b.seq !== undefined ? `seq-${b.seq}` : '', b.severity === 'error' && !b.expected ? 'bad' : ''].filter(Boolean).join(' ');
    const quote = ruleOf(b.rule)?.quote;
    return `<tr class="${cls}"><td>${ruleRef(b.rule)}</td><td>${severityBadge(b.rule, String(b.severity))}${b.expected ? ' (expected)' : ''}</td><td>${seq}</td><td>${esc(b.detail)}${quote ? `<blockquote>${esc(quote)}</blockquote>` : ''}</td></tr>`;
  });
  return `<table class="broken"><tr><th>rule</th><th>severity</th><th>message</th><th>what happened, and the sentence broken</th></tr>${rows.join('')}</table>`;
}

function caseSection(c: CaseResult, i: number): string {
  const notes = c.notes?.length ? `<ul class="notes">${c.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : '';
  return `<section class="case" id="c${i}"><h2 id="case-${esc(c.id)}"><span class="status ${c.status}">${c.status}</span> <code>${esc(c.id)}</code> ${esc(c.title)}</h2>
<p class="muted">${/^https?:/.test(c.url) ? `<a href="${esc(c.url)}">${esc(c.section)}</a>` : esc(c.section)} · ${c.durationMs} ms${c.detail ? ` · ${esc(c.detail)}` : ''}</p>
<ol>${c.steps.map((st) => `<li>${esc(st)}</li>`).join('')}</ol>
${brokenTable(c, i)}${notes}
${c.messages.length ? `${caseSvg(c, i)}<p class="muted">Click an arrow to see the message.</p>${c.messages.map((m) => messagePanel(c, i, m)).join('')}` : ''}</section>`;
}

// A table wider than the window (the rules named, with their sentences and sources, on a phone or
// a tablet) scrolls its columns in its own box instead of the page; as a block of the window's
// width it draws nothing of its own, so one that fits looks as before. A rule id in a cell breaks
// at its hyphens, not between any two letters: the column keeps room for a word a line. What
// happened to a broken rule breaks its ids anywhere instead, keeping 12em: beside the rule, its
// severity and its message, it fits a tablet's window without scrolling. A phone
// (up to 640 px) gets narrower margins; the viewport meta tag makes its browser lay the page out
// at the phone's width instead of a desktop's 980 px shrunk to fit.
const STYLE = `body{font-family:system-ui,sans-serif;margin:2rem;color:#1d2733;max-width:1100px}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem;border-top:1px solid #d5dde6;padding-top:1rem}h4{margin:.2rem 0}h5{margin:.6rem 0 .2rem}
.status{display:inline-block;padding:.1rem .5rem;border-radius:3px;color:#fff;font-size:.8rem;text-transform:uppercase}
.passed{background:#2e7d32}.failed{background:#c0392b}.expected{background:#8e44ad}.blocked{background:#34495e}.skipped{background:#7f8c8d}.inconclusive{background:#b9770e}
table{border-collapse:collapse}td,th{border:1px solid #d5dde6;padding:.25rem .5rem;text-align:left;vertical-align:top;font-size:.9rem}
tr.bad td{background:#fdecea}
code{font-size:.85rem;overflow-wrap:anywhere}.muted{color:#5b6b80}svg.sequence{display:block;margin:.5rem 0;max-width:100%;height:auto}
svg.sequence a{cursor:pointer}svg.sequence a:hover text{text-decoration:underline}
.msg{display:none;border:1px solid #9aa7b5;border-radius:4px;padding:.5rem 1rem;margin:.5rem 0;background:#f7f9fb;overflow-wrap:anywhere}.msg:target{display:block}
pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.8rem;background:#fff;border:1px solid #e1e6ec;padding:.4rem;max-height:24rem;overflow:auto}
ul.notes{color:#34495e}blockquote{margin:.3rem 0 0 1rem;color:#34495e;font-style:italic}
.sev{display:inline-block;padding:0 .4rem;border-radius:3px;font-size:.75rem;text-transform:uppercase}.sev-error{background:#fdecea;color:#c0392b}
.sev-warning{background:#fdf1d6;color:#8a5a00}.sev-advice{background:#ece8f8;color:#5b4a9e}.keyword{font-weight:700;font-size:.75rem;color:#5b6b80}
p.back{margin:0 0 1rem}
table{display:block;overflow-x:auto;max-width:100%}
table code{overflow-wrap:break-word}
table.broken td:last-child{overflow-wrap:anywhere;min-width:12em}
@media (max-width:640px){body{margin:1rem .75rem}h2{margin-top:1.5rem}.msg{padding:.5rem .6rem}blockquote{margin-left:.5rem}}`;

export interface ReportHtmlOptions {
  /** Link to this stylesheet (reportCss() of the same report) instead of an inline <style>. */
  stylesheet?: string;
  /** A link back to where the report was opened from. */
  back?: { href: string; label: string };
}

/** The report's styles: the shared ones and those that highlight each case's messages. */
export function reportCss(report: Pick<ConformanceReport, 'cases'>): string {
  return [STYLE, ...report.cases.map((c, i) => highlightCss(c, i)).filter(Boolean)].join('\n') + '\n';
}

export function reportHtml(report: ConformanceReport, o: ReportHtmlOptions = {}): string {
  const s = report.summary;
  const named = new Set(report.cases.flatMap((c) => [...c.broken.map((b) => b.rule), ...(c.judges ?? [])]));
  const catalogue = [...named].sort().map((id) => {
    const r = ruleOf(id);
    const quote = r?.quote;
    const href = ruleHref(id);
    const name = r ? `${r.spec} ${r.version} §${r.section}` : '';
    const source = r ? (href ? `<a href="${esc(href)}">${esc(name)}</a>` : `${esc(name)} (${esc(r.url)} in the idsync package)`) : '';
    const severity = r ? `${r.severity}${r.keyword ? ` (${r.keyword})` : ''}` : '';
    return `<tr id="${ruleAnchor(id)}"><td><code>${esc(id)}</code></td><td>${esc(severity)}</td><td>${esc(r?.text ?? '')}${quote ? `<blockquote>${esc(quote)}</blockquote>` : ''}</td><td>${source}</td></tr>`;
  });
  const summaryBadges = (Object.keys(s) as Array<keyof typeof s>).filter((k) => s[k] > 0 || k === 'passed' || k === 'failed').map((k) => `<span class="status ${k}">${s[k]} ${k}</span>`).join(' ');
  const unseen = report.unseenExpected?.length
    ? `<p>Expected failures that did not happen (the agent now passes them): ${report.unseenExpected.map((u) => `<code>${esc(u.case)}</code> ${ruleRef(u.rule)}`).join(', ')}</p>`
    : '';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>idsync conformance: ${esc(report.target)}</title>${o.stylesheet ? `<link rel="stylesheet" href="${esc(o.stylesheet)}">` : `<style>${reportCss(report)}</style>`}</head>
<body>${o.back ? `<p class="back"><a href="${esc(o.back.href)}">${esc(o.back.label)}</a></p>` : ''}<h1>idsync conformance report</h1>
<p>Target <code>${esc(report.target)}</code>, played by idsync as <code>${esc(report.harnessDid.length > 60 ? `${report.harnessDid.slice(0, 57)}…` : report.harnessDid)}</code> (${esc(report.role)}).<br>
Envelope of the cases: ${esc(report.mode ?? 'authcrypt')}; profile ${esc(report.profile ?? 'liberal')}. Started ${esc(report.startedAt)}, ${report.durationMs} ms.</p>
<p id="summary">${summaryBadges}</p>${unseen}
<table><tr><th>case</th><th>status</th><th>failed rules</th></tr>${report.cases.map((c) => `<tr><td><a href="#case-${esc(c.id)}"><code>${esc(c.id)}</code></a></td><td><span class="status ${c.status}">${c.status}</span></td><td>${c.failedRules.map(ruleRef).join(' ')}</td></tr>`).join('')}</table>
${report.cases.map(caseSection).join('\n')}
<h2 id="catalogue">Rules named in this report</h2>
<table><tr><th>id</th><th>severity (keyword)</th><th>rule, and the sentence it enforces</th><th>source</th></tr>${catalogue.join('')}</table>
</body></html>
`;
}
