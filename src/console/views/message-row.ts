// One message of the log as a row of the message view (the same markup on the page and in the
// live stream, so a row can be replaced when its record is completed), and one applied fault as
// a row of its own where the message it hit was never logged here.
import { threadOf, type LoggedMessage } from '../../store/messages.js';
import { html, type Html } from '../html.js';
import type { MessageFeed, NotedFault } from '../message-feed.js';
import { worstVerdict, type Verdict } from '../verdicts.js';
import { badge, did, shortId, shortType, state, time } from './format.js';

export const rowId = (seq: string): string => `m-${seq}`;

/** The peer of a record from this party's side: whom it went to, or whom it came from. */
export function peerOf(m: LoggedMessage): string | undefined {
  return m.direction === 'out' ? m.to?.[0] : m.from;
}

export function faultBadge(f: NotedFault): Html {
  return html`<span class="fault fault-${f.fault}" title="fault ${f.seq} (${f.direction})">${f.fault}</span>`;
}

export function messageRow(m: LoggedMessage, feed: MessageFeed): Html {
  const v: Verdict = worstVerdict(m.conformance);
  const thid = threadOf(m);
  const attempt = feed.attempt(m.seq);
  const again = attempt !== undefined && attempt > 1 ? html`<span class="again">${m.direction === 'out' ? 'sent' : 'arrived'} again (#${attempt})</span>` : '';
  return html`<div class="msg verdict-row-${v}" id="${rowId(m.seq)}" data-type="${m.type}">
<span class="c-time">${time(m.at)}</span>
<span class="c-dir" title="${m.direction === 'out' ? 'sent' : 'received'}">${m.direction === 'out' ? '→' : '←'}</span>
<a class="c-type" href="/console/messages/${m.seq}">${shortType(m.type || undefined)}</a>
<span class="c-peer">${did(peerOf(m))}</span>
<a class="c-thread" href="/console/threads/${encodeURIComponent(thid)}" title="${thid}">${shortId(thid)}</a>
<span class="c-mode">${m.mode}</span>
<span class="c-result">${state(m.result)}</span>
<span class="c-verdict">${badge(v)}</span>
<span class="c-notes">${again}${feed.faultsOf(m.seq).map(faultBadge)}</span>
</div>`;
}

export function faultRow(f: NotedFault): Html {
  const what = f.record ? html`<a href="/console/messages/${f.record}">the logged message</a>` : html`<span class="muted">${f.mediaType} message, not logged here</span>`;
  return html`<div class="msg fault-row" id="f-${f.seq}">
<span class="c-time">${time(f.at)}</span>
<span class="c-dir">✂</span>
<span class="c-type">${shortType(f.type)}</span>
<span class="c-peer">${f.direction}</span>
<span class="c-thread"></span>
<span class="c-mode">${f.mediaType}</span>
<span class="c-result">${faultBadge(f)}</span>
<span class="c-verdict"></span>
<span class="c-notes">fault ${f.seq}: ${what}</span>
</div>`;
}

export const ROW_HEADER = html`<div class="msg head"><span>time</span><span></span><span>type</span><span>peer</span><span>thread</span><span>envelope</span><span>result</span><span>verdict</span><span>notes</span></div>`;
