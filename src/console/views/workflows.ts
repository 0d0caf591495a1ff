// Issuance workflows of the signed-in tenant: the list, and one workflow with its history on a
// timeline, where its invitation went (the outbox entries), and its issue-credential thread as a
// sequence diagram. Live.
import type { FastifyInstance } from 'fastify';
import { listWorkflows } from '../../service/issuance/list.js';
import { getWorkflow, type IssuanceWorkflow } from '../../service/issuance/workflows.js';
import { principalOf, sendHtml } from '../auth.js';
import { renderPage } from '../context.js';
import { html, raw, type Html } from '../html.js';
import { threadOf, type LoggedMessage } from '../../store/messages.js';
import type { ServiceConsoleContext } from '../service-context.js';
import { dateTime, did, newestOf, olderNote, recipient, shortId, state, time } from './format.js';
import { recentMessages } from './messages.js';
import { sequenceOf } from './sequence.js';
import { liveRegion } from './live-region.js';
import { timeline } from './timeline.js';
import { workflowPoints } from './user.js';

/** The most workflows the list shows: the newest. */
const LISTED = 500;

function workflowTable(list: IssuanceWorkflow[]): Html {
  if (list.length === 0) return html`<p class="muted">No issuance workflows yet.</p>`;
  return html`<table class="workflows"><thead><tr><th>workflow</th><th>status</th><th>user</th><th>sent to</th><th>created</th><th>updated</th></tr></thead><tbody>
${list.map((w) => html`<tr>
<td><a href="/console/workflows/${encodeURIComponent(w.id)}"><code>${shortId(w.id)}</code></a></td>
<td>${state(w.status)}</td>
<td>${w.userId ? html`<a href="/console/users/${encodeURIComponent(w.userId)}">${w.userId}</a>` : w.userDID ? did(w.userDID) : html`<span class="muted">–</span>`}</td>
<td>${w.destinations.map((d) => html`<a href="/console/outbox/${encodeURIComponent(d.outboxId)}">${d.channel.toLowerCase()} ${recipient(d.to)}</a> `)}</td>
<td>${time(w.createdAt)}</td><td>${time(w.updatedAt)}</td>
</tr>`)}
</tbody></table>`;
}

/**
 * Before a thread is taken up: the threads wallets opened in answer to the invitation (their
 * parent thread is the invitation's id), with what they were answered (a refusal's problem
 * report is a child of the answer's thread), in log order.
 */
async function answersToInvitation(ctx: ServiceConsoleContext, invitationId: string): Promise<LoggedMessage[]> {
  const all = () => true;
  const answers = await recentMessages(ctx, { thid: invitationId }, all);
  const threads = [...new Set(answers.map((m) => threadOf(m)).filter((t) => t !== invitationId))];
  const replies = (await Promise.all(threads.map((thid) => recentMessages(ctx, { thid }, all)))).flat();
  const bySeq = new Map([...answers, ...replies].map((m) => [m.seq, m]));
  return [...bySeq.values()].sort((a, b) => a.seq.localeCompare(b.seq));
}

async function unansweredSection(ctx: ServiceConsoleContext, tenantId: string, wf: IssuanceWorkflow): Promise<Html> {
  const answers = await answersToInvitation(ctx, wf.invitation.id);
  if (answers.length === 0) return html`<p class="muted">No wallet has answered the invitation yet.</p>`;
  return html`<p>No thread was taken up; what wallets sent in answer to the invitation: <a href="/console/messages?thid=${encodeURIComponent(wf.invitation.id)}">its messages</a></p><div class="diagram">${raw(await sequenceOf(ctx, tenantId, answers))}</div>`;
}

async function workflowBody(ctx: ServiceConsoleContext, tenantId: string, wf: IssuanceWorkflow): Promise<Html> {
  const thread = wf.didcommThreadId ? await ctx.feed.log.list({ thid: wf.didcommThreadId }) : [];
  return html`<table class="facts">
<tr><th>status</th><td>${state(wf.status)}${wf.failure ? html` <code>${wf.failure.code}</code> ${wf.failure.message}` : ''}</td><th>project</th><td>${wf.projectId}</td></tr>
<tr><th>user</th><td>${wf.userId ? html`<a href="/console/users/${encodeURIComponent(wf.userId)}">${wf.userId}</a>` : '–'} ${did(wf.userDID)}</td><th>expires</th><td>${dateTime(wf.expiresAt)}</td></tr>
<tr><th>credential</th><td>${wf.credentialId ? html`<code>${wf.credentialId}</code>` : '–'}</td><th>invitation</th><td><code>${wf.invitation.id}</code></td></tr>
<tr><th>sent</th><td colspan="3">${wf.destinations.length ? wf.destinations.map((d) => html`<a href="/console/outbox/${encodeURIComponent(d.outboxId)}">${d.channel} to ${recipient(d.to)}</a> ${state(d.status)} `) : 'not yet'}</td></tr>
</table>
<h2>Timeline</h2>
${timeline(await workflowPoints(ctx, wf, thread))}
<h2>Issue-credential thread</h2>
${wf.didcommThreadId
  ? html`<p><a href="/console/threads/${encodeURIComponent(wf.didcommThreadId)}">thread ${shortId(wf.didcommThreadId)}</a> · <a href="/console/messages?thid=${encodeURIComponent(wf.didcommThreadId)}">its messages</a></p><div class="diagram">${raw(await sequenceOf(ctx, tenantId, thread))}</div>`
  : await unansweredSection(ctx, tenantId, wf)}`;
}

export function registerWorkflowsView(scope: FastifyInstance, ctx: ServiceConsoleContext): void {
  scope.get('/console/workflows', { schema: { hide: true } }, async (request, reply) => {
    const tenantId = principalOf(request).tenantId ?? '';
    const { workflows, total } = await listWorkflows(ctx.deps, tenantId, {}, { limit: Number.MAX_SAFE_INTEGER });
    const { newest, older } = newestOf(workflows, LISTED);
    const region = liveRegion('workflows', '/console/workflows?fragment=1', html`<p class="count">${total} workflows</p>${workflowTable(newest)}${olderNote(older, 'workflows')}`);
    if ((request.query as Record<string, unknown>).fragment) return sendHtml(reply, region);
    const body = html`<h1>Issuance workflows</h1>${region}`;
    return sendHtml(reply, renderPage(ctx, request, { title: 'Issuance workflows', active: 'workflows', stream: '/console/stream/changes', body }));
  });

  scope.get('/console/workflows/:id', { schema: { hide: true } }, async (request, reply) => {
    const tenantId = principalOf(request).tenantId ?? '';
    const { id } = request.params as { id: string };
    // 404 workflow_not_found for another tenant's workflow, as the API answers.
    const wf = await getWorkflow(ctx.deps, id, { tenantId });
    const region = liveRegion('workflow', `/console/workflows/${encodeURIComponent(id)}?fragment=1`, await workflowBody(ctx, tenantId, wf));
    if ((request.query as Record<string, unknown>).fragment) return sendHtml(reply, region);
    const body = html`<h1>Workflow <code>${wf.id}</code></h1>${region}`;
    return sendHtml(reply, renderPage(ctx, request, { title: `Workflow ${shortId(wf.id)}`, active: 'workflows', stream: '/console/stream/changes', body }));
  });
}
