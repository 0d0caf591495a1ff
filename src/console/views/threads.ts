// Threads: the recent messages grouped by thread (DIDComm v2 §Threads: thid, or the id of a
// message that starts one), each drawn as a sequence diagram; one thread with its diagram, the
// verdict of every rule checked on it with its quoted sentence, and its messages, live.
import type { FastifyInstance } from 'fastify';
import { threadOf, type LoggedMessage } from '../../store/messages.js';
import { problem } from '../../service/http/problem.js';
import { sendHtml } from '../auth.js';
import { renderPage, type ConsoleContext } from '../context.js';
import { html, raw, type Html } from '../html.js';
import { worstVerdict } from '../verdicts.js';
import { badge, shortId, shortType, time } from './format.js';
import { liveRegion } from './live-region.js';
import { matcherOf } from './message-filter.js';
import { messageList, recentMessages } from './messages.js';
import { sequenceOf } from './sequence.js';
import { threadVerdicts } from './thread-verdicts.js';

const SCAN = 1000;
/** A first look: enough for SHOWN threads unless they are long (a fleet's threads have 2-4 messages). */
const FIRST_SCAN = 200;
const SHOWN = 20;

interface ThreadGroup {
  thid: string;
  messages: LoggedMessage[];
}

function groups(recentFirst: LoggedMessage[]): ThreadGroup[] {
  const by = new Map<string, LoggedMessage[]>();
  for (const m of recentFirst) {
    const t = threadOf(m);
    const list = by.get(t) ?? [];
    list.push(m);
    by.set(t, list);
  }
  // Most recently active first; each thread's messages in the order they were logged.
  return [...by].map(([thid, ms]) => ({ thid, messages: ms.reverse() }));
}

async function threadList(ctx: ConsoleContext, tenantId: string | undefined): Promise<Html> {
  let recent = await ctx.feed.log.list({ reverse: true, limit: FIRST_SCAN });
  if (recent.length === FIRST_SCAN && groups(recent).length < SHOWN) recent = await ctx.feed.log.list({ reverse: true, limit: SCAN });
  const shown = groups(recent).slice(0, SHOWN);
  if (shown.length === 0) return html`<p class="muted">No messages yet.</p>`;
  const cards = await Promise.all(
    shown.map(async (g) => html`<article class="thread">
<h2><a href="/console/threads/${encodeURIComponent(g.thid)}"><code title="${g.thid}">${shortId(g.thid)}</code></a> ${badge(worstVerdict(g.messages.flatMap((m) => m.conformance ?? [])))}
<small>${g.messages.length} messages, ${time(g.messages[0]!.at)} – ${time(g.messages.at(-1)!.at)}, ${shortType(g.messages[0]!.type || undefined)}</small></h2>
<div class="diagram">${raw(await sequenceOf(ctx, tenantId, g.messages))}</div>
</article>`),
  );
  return html`${cards}`;
}

export function registerThreadsView(scope: FastifyInstance, ctx: ConsoleContext): void {
  scope.get('/console/threads', { schema: { hide: true } }, async (request, reply) => {
    const tenantId = request.consolePrincipal?.tenantId;
    const region = liveRegion('threads', '/console/threads?fragment=1', await threadList(ctx, tenantId));
    if ((request.query as Record<string, unknown>).fragment) return sendHtml(reply, region);
    const body = html`<h1>Threads</h1>
<p class="lead">The ${SHOWN} most recently active threads (among the last ${SCAN} messages at most), each as a sequence diagram. Red arrows broke a MUST or were refused; dashed ones came back on the request's connection.</p>
${region}`;
    return sendHtml(reply, renderPage(ctx, request, { title: 'Threads', active: 'threads', stream: '/console/stream/changes', body }));
  });

  scope.get('/console/threads/:thid', { schema: { hide: true } }, async (request, reply) => {
    const { thid } = request.params as { thid: string };
    const tenantId = request.consolePrincipal?.tenantId;
    const f = { thid: thid.slice(0, 2048) };
    const inThread = (await recentMessages(ctx, f, await matcherOf(ctx, tenantId, f), SCAN)).reverse();
    // As an unknown message or workflow is: a thread no message was logged of, and no state names.
    if (inThread.length === 0 && !(await ctx.knowsThread?.(tenantId, f.thid))) throw problem('not_found', `no thread ${f.thid}`);
    // Drawn again when rows of this thread come (its stream says `rows`), not at every change of the twin.
    const diagram = liveRegion('diagram', `/console/threads/${encodeURIComponent(f.thid)}?fragment=1`, html`<div class="diagram">${raw(await sequenceOf(ctx, tenantId, inThread))}</div>
<h2>Rule verdicts</h2>
${threadVerdicts(inThread)}`, 'rows');
    if ((request.query as Record<string, unknown>).fragment) return sendHtml(reply, diagram);
    const body = html`<h1>Thread <code>${f.thid}</code></h1>
<p class="lead">${inThread.length} messages (with the threads it parents). <a href="/console/messages?thid=${encodeURIComponent(f.thid)}">In the message view</a></p>
${diagram}
<h2>Messages</h2>
${messageList(ctx, [...inThread].reverse())}`;
    return sendHtml(reply, renderPage(ctx, request, { title: `Thread ${shortId(f.thid)}`, active: 'threads', stream: `/console/stream/messages?thid=${encodeURIComponent(f.thid)}`, body }));
  });
}
