// One user: consent, Data Pipe and link, and how messages reach the wallet (its endpoint, or the
// mediator its DID names); its datapoints synced against the latest; its syncs and issuance
// workflows, each with its history on a timeline (state changes, the events it fired, the
// messages of its threads) and links to every message of the flow. Live.
import type { FastifyInstance } from 'fastify';
import { createResolver, documentResolver } from '../../did/resolver.js';
import type { DocumentResolver } from '../../did/types.js';
import { peerRoute } from '../../router/peer-route.js';
import { listSyncOperations } from '../../service/didcomm-seam.js';
import type { SyncRecord } from '../../service/didcomm/sync.js';
import type { IssuanceWorkflow } from '../../service/issuance/workflows.js';
import { problem } from '../../service/http/problem.js';
import type { StoredWebhookEvent } from '../../service/webhooks/dispatcher.js';
import type { LoggedMessage } from '../../store/messages.js';
import { shortType } from '../../harness/sequence.js';
import { principalOf, sendHtml } from '../auth.js';
import { renderPage } from '../context.js';
import { html, type Html } from '../html.js';
import { userWorkflows, type ServiceConsoleContext } from '../service-context.js';
import { compareDatapoints, datapointTable, syncSummary } from './datapoints.js';
import { did, newestOf, olderNote, shortId, state, time } from './format.js';
import { liveRegion } from './live-region.js';
import { timeline, toneOf, type TimelinePoint } from './timeline.js';

/**
 * The wallet DIDs a user links resolve offline (did:ion long form, did:peer), and so do the
 * mediators they name; a page is never what makes the console fetch a did:web document.
 */
const offlineResolver = (): DocumentResolver => documentResolver(createResolver({ fetch: async () => Promise.reject(new Error('the console does not fetch DID documents')) }));

/** Where the service sends the wallet's messages: its own endpoint, or a mediator. */
async function reachedThrough(walletDid: string | undefined, resolve: DocumentResolver): Promise<Html> {
  if (!walletDid) return html`<span class="muted">–</span>`;
  const route = await peerRoute(walletDid, resolve).catch(() => undefined);
  if (!route) return html`<span class="muted">not known (its DID does not resolve offline)</span>`;
  const where = route.endpoints.length ? html`<code>${route.endpoints[0]!}</code>` : html`<span class="muted">no endpoint: it collects (pickup, live delivery)</span>`;
  if (route.mediator) return html`the mediator ${did(route.mediator)} at ${where}`;
  if (route.routingKeys.length) return html`a mediator at ${where} (routing keys)`;
  return where;
}

/** Timeline points of the messages of `thids`; `known`: threads the caller has read already. */
export async function messagePoints(ctx: ServiceConsoleContext, thids: (string | undefined)[], known?: ReadonlyMap<string, LoggedMessage[]>): Promise<TimelinePoint[]> {
  const out: TimelinePoint[] = [];
  for (const thid of new Set(thids.filter((t): t is string => !!t))) {
    for (const m of known?.get(thid) ?? (await ctx.feed.log.list({ thid }))) {
      out.push({
        at: m.at,
        kind: 'message',
        label: `${m.direction === 'out' ? '→' : '←'} ${shortType(m.type || undefined)}`,
        detail: m.result,
        href: `/console/messages/${m.seq}`,
        ...(m.result && /refus|fail|undecrypt|reject/.test(m.result) ? { tone: 'bad' as const } : {}),
      });
    }
  }
  return out;
}

export function eventPoints(events: StoredWebhookEvent[], only?: (e: StoredWebhookEvent) => boolean): TimelinePoint[] {
  return events.filter((e) => !only || only(e)).map((e) => ({
    at: e.envelope.occurredAt ?? e.createdAt,
    kind: 'event' as const,
    label: e.envelope.event,
    tone: toneOf(e.envelope.event),
    detail: `webhook event #${e.envelope.sequence ?? '?'}`,
  }));
}

const threadLinks = (thids: (string | undefined)[], label: string[]) =>
  thids.map((t, i) => (t ? html`<a href="/console/threads/${encodeURIComponent(t)}">${label[i]} thread ${shortId(t)}</a> · <a href="/console/messages?thid=${encodeURIComponent(t)}">its messages</a> ` : ''));

async function syncSection(ctx: ServiceConsoleContext, op: SyncRecord, events: StoredWebhookEvent[]): Promise<Html> {
  const points: TimelinePoint[] = [
    { at: op.createdAt, kind: 'state', label: `requested (${op.reason})`, tone: 'busy' },
    ...eventPoints(events, (e) => e.envelope.params.dataSyncOperationId === op.id),
    ...(await messagePoints(ctx, [op.authThid, op.issueThid])),
  ];
  return html`<article class="flow">
<h3>Sync <code>${shortId(op.id)}</code> ${state(op.status)} <small>${op.phase ?? ''}${op.error ? ` · ${op.error}` : ''}</small></h3>
<p>${threadLinks([op.authThid, op.issueThid], ['DID authentication', 'issuance'])}${op.credentialId ? html` · credential <code>${op.credentialId}</code>` : ''}</p>
${timeline(points)}
</article>`;
}

export async function workflowPoints(ctx: ServiceConsoleContext, wf: IssuanceWorkflow, thread?: LoggedMessage[]): Promise<TimelinePoint[]> {
  const events = (await ctx.deps.webhooks?.subjectEvents(wf.tenantId, `workflow:${wf.id}`)) ?? [];
  return [
    ...wf.history.map((h) => ({ at: h.at, kind: 'state' as const, label: h.status, tone: toneOf(h.status), ...(h.reason ? { detail: h.reason } : {}) })),
    ...eventPoints(events),
    ...(await messagePoints(ctx, [wf.didcommThreadId], wf.didcommThreadId && thread ? new Map([[wf.didcommThreadId, thread]]) : undefined)),
  ];
}

async function workflowSection(ctx: ServiceConsoleContext, wf: IssuanceWorkflow): Promise<Html> {
  return html`<article class="flow">
<h3><a href="/console/workflows/${encodeURIComponent(wf.id)}">Workflow <code>${shortId(wf.id)}</code></a> ${state(wf.status)}</h3>
<p>${threadLinks([wf.didcommThreadId], ['issue-credential'])}</p>
${timeline(await workflowPoints(ctx, wf))}
</article>`;
}

/** The most syncs and workflows a user's page shows, each on its timeline: the newest. */
const SHOWN = 20;

async function userBody(ctx: ServiceConsoleContext, resolve: DocumentResolver, tenantId: string, userId: string): Promise<Html> {
  const u = await ctx.deps.users.get({ tenantId, userId });
  if (!u) throw problem('user_not_found', `no user ${userId}`);
  const rows = compareDatapoints(u.datapoints, u.datapointsSynced);
  const events = (await ctx.deps.webhooks?.subjectEvents(tenantId, `user:${userId}`)) ?? [];
  const syncs = newestOf((await listSyncOperations(ctx.deps.store, u)) as SyncRecord[], SHOWN);
  const workflows = newestOf(await userWorkflows(ctx.deps, tenantId, userId), SHOWN);
  const pipeEvents = events.filter((e) => e.envelope.action === 'DATA_PIPE_STATUS_UPDATE');
  const pipeThreads = pipeEvents.map((e) => e.envelope.params.thid).filter((t): t is string => typeof t === 'string');
  const pipe = [...eventPoints(pipeEvents), ...(await messagePoints(ctx, pipeThreads))];
  return html`<table class="facts">
<tr><th>sync consent</th><td>${state(u.settings.isSyncOn ? 'on' : 'off', u.settings.isSyncOn ? 'ok' : 'busy')}</td><th>Data Pipe</th><td>${state(u.isSessionEstablished ? 'established' : 'none', u.isSessionEstablished ? 'ok' : 'busy')}</td></tr>
<tr><th>wallet</th><td>${did(u.userDID)}</td><th>linked</th><td>${state(u.isLinked ? 'linked' : 'no', u.isLinked ? 'ok' : 'busy')}</td></tr>
<tr><th>messages reach it through</th><td colspan="3">${await reachedThrough(u.userDID, resolve)}</td></tr>
<tr><th>logins</th><td>${u.userLogins}${u.userLastLoginAt ? html`, last ${time(u.userLastLoginAt)}` : ''}</td><th>datapoints</th><td>${syncSummary(rows)}${u.pendingSync ? ' (a sync is owed)' : ''}</td></tr>
</table>
<p><a href="/console/messages?user=${encodeURIComponent(userId)}">Every message of this user</a></p>
<h2>Datapoints: latest and synced</h2>
${datapointTable(rows)}
<h2>Data Pipe</h2>
<p>${threadLinks([...new Set(pipeThreads)], pipeThreads.map(() => 'Data Pipe'))}</p>
${timeline(pipe)}
<h2>Syncs</h2>
${syncs.newest.length ? await Promise.all(syncs.newest.map((op) => syncSection(ctx, op, events))) : html`<p class="muted">No syncs yet.</p>`}
${olderNote(syncs.older, 'syncs')}
<h2>Issuance workflows</h2>
${workflows.newest.length ? await Promise.all(workflows.newest.map((wf) => workflowSection(ctx, wf))) : html`<p class="muted">No issuance workflows for this user.</p>`}
${olderNote(workflows.older, 'workflows')}`;
}

export function registerUserView(scope: FastifyInstance, ctx: ServiceConsoleContext): void {
  const resolve = offlineResolver();
  scope.get('/console/users/:userId', { schema: { hide: true } }, async (request, reply) => {
    const tenantId = principalOf(request).tenantId ?? '';
    const { userId } = request.params as { userId: string };
    const region = liveRegion('user', `/console/users/${encodeURIComponent(userId)}?fragment=1`, await userBody(ctx, resolve, tenantId, userId));
    if ((request.query as Record<string, unknown>).fragment) return sendHtml(reply, region);
    const body = html`<h1>User <code>${userId}</code></h1>${region}`;
    return sendHtml(reply, renderPage(ctx, request, { title: `User ${userId}`, active: 'users', stream: '/console/stream/changes', body }));
  });
}
