// The message view: every DIDComm message in and out, newest first, filtered by user, thread, type
// and verdict, and live: rows arrive over the page's event stream as the log records them, and a
// row is replaced when its record is completed (sent, handled, refused). Faults applied to
// messages that were never logged here appear as rows of their own.
import type { FastifyInstance } from 'fastify';
import type { LoggedMessage } from '../../store/messages.js';
import { sendHtml } from '../auth.js';
import { renderPage, type ConsoleContext } from '../context.js';
import { html, type Html } from '../html.js';
import type { FeedEvent } from '../message-feed.js';
import { VERDICTS } from '../verdicts.js';
import { filterQuery, isFiltered, matcherOf, parseFilter, type MessageFilter } from './message-filter.js';
import { faultRow, messageRow, ROW_HEADER } from './message-row.js';
import { rowBatcher } from './row-batch.js';

const PAGE_ROWS = 200;
const SCAN_LIMIT = 5000;
/** Child threads (pthid) are looked for among the newest records only: the log has no index of them. */
const CHILD_SCAN = 2000;

/** The newest records matching `match`, newest first. */
export async function recentMessages(ctx: ConsoleContext, f: MessageFilter, match: (m: LoggedMessage) => boolean, limit = PAGE_ROWS): Promise<LoggedMessage[]> {
  const scanned = f.thid !== undefined
    ? [...(await ctx.feed.log.list({ thid: f.thid })), ...(await ctx.feed.log.list({ reverse: true, limit: CHILD_SCAN })).filter((m) => m.pthid === f.thid)].sort((a, b) => b.seq.localeCompare(a.seq))
    : await ctx.feed.log.list({ reverse: true, limit: isFiltered(f) ? SCAN_LIMIT : limit });
  return scanned.filter(match).slice(0, limit);
}

function filterForm(ctx: ConsoleContext, f: MessageFilter): Html {
  return html`<form class="filters" method="get" action="/console/messages">
${ctx.kind === 'service' ? html`<label>User <input name="user" value="${f.user ?? ''}" placeholder="user id"></label>` : ''}
<label>Thread <input name="thid" value="${f.thid ?? ''}" placeholder="thread id"></label>
<label>Type <input name="type" value="${f.type ?? ''}" placeholder="e.g. offer-credential"></label>
<label>Verdict <select name="verdict"><option value="">any</option>${VERDICTS.map((v) => html`<option${f.verdict === v ? html` selected` : ''}>${v}</option>`)}</select></label>
<button type="submit">Filter</button>
${isFiltered(f) ? html`<a href="/console/messages">clear</a>` : ''}
</form>`;
}

/** The list markup: a header and the rows; the stream puts new rows at the top of #message-rows. */
export function messageList(ctx: ConsoleContext, rows: LoggedMessage[]): Html {
  return html`<div class="msg-list">${ROW_HEADER}<div id="message-rows">${rows.map((m) => messageRow(m, ctx.feed))}</div></div>`;
}

/**
 * A stream of rows for the list on a page, by `f`: new rows on top, completed ones in place, in
 * batches (row-batch.ts). A row is rendered once for every page that shows it.
 */
export function registerMessageStream(scope: FastifyInstance, ctx: ConsoleContext): void {
  const rendered = new WeakMap<LoggedMessage, string>();
  const render = (m: LoggedMessage): string => {
    let row = rendered.get(m);
    if (row === undefined) rendered.set(m, (row = messageRow(m, ctx.feed).value));
    return row;
  };
  scope.get('/console/stream/messages', { schema: { hide: true } }, async (request, reply) => {
    const f = parseFilter(request.query);
    const match = await matcherOf(ctx, request.consolePrincipal?.tenantId, f);
    ctx.hub.open(request, reply, (stream) => {
      const rows = rowBatcher((data, id) => stream.send(data, id ? { id } : {}), render, 100, (n) => stream.send(String(n), { event: 'rows' }));
      // A reconnecting browser gets what it missed.
      if (stream.lastEventId) {
        void ctx.feed.log.list({ after: stream.lastEventId, limit: 1000 }).then((missed) => missed.filter(match).forEach((m) => rows.add(m, 'record')));
      }
      const onFeed = (e: FeedEvent) => {
        if (e.kind === 'fault') {
          if (!e.fault.record && f.user === undefined && f.thid === undefined && f.verdict === undefined) rows.addRow(faultRow(e.fault).value);
          return;
        }
        if (match(e.message)) rows.add(e.message, e.kind);
      };
      const stop = ctx.feed.watch(onFeed);
      return () => {
        stop();
        rows.close();
      };
    });
  });
}

export function registerMessagesView(scope: FastifyInstance, ctx: ConsoleContext): void {
  registerMessageStream(scope, ctx);
  scope.get('/console/messages', { schema: { hide: true } }, async (request, reply) => {
    const f = parseFilter(request.query);
    const match = await matcherOf(ctx, request.consolePrincipal?.tenantId, f);
    const rows = await recentMessages(ctx, f, match);
    const body = html`<h1>Messages</h1>
<p class="lead">Every DIDComm message in and out of this ${ctx.label}, newest first; new ones appear as they are sent and received.</p>
${filterForm(ctx, f)}
${messageList(ctx, rows)}`;
    return sendHtml(reply, renderPage(ctx, request, { title: 'Messages', active: 'messages', stream: `/console/stream/messages${filterQuery(f)}`, body }));
  });
}
