// Webhooks of the signed-in tenant: its subscriptions (never their secrets), and every delivery
// grouped by subject in sequence order (the order receivers get them in), each with its attempts,
// their status, the Standard Webhooks headers they carried, and the payload; a button sends a
// delivered or dead one again. Live.
import type { FastifyInstance } from 'fastify';
import type { WebhookDelivery, WebhookDispatcher } from '../../service/webhooks/dispatcher.js';
import { webhookHeaders } from '../../service/webhooks/signature.js';
import type { WebhookSubscription } from '../../service/webhooks/subscriptions.js';
import { problem } from '../../service/http/problem.js';
import { principalOf, sendHtml } from '../auth.js';
import { renderPage } from '../context.js';
import { html, type Html } from '../html.js';
import { assertSameOrigin } from '../security.js';
import type { ServiceConsoleContext } from '../service-context.js';
import { jsonBlock, shortId, state, time } from './format.js';
import { liveRegion } from './live-region.js';

const MAX_DELIVERIES = 500;

function dispatcherOf(ctx: ServiceConsoleContext): WebhookDispatcher {
  const w = ctx.deps.webhooks;
  if (!w) throw problem('not_found', 'this service has no webhook dispatcher');
  return w;
}

async function subscriptionsOf(w: WebhookDispatcher, tenantId: string | undefined): Promise<WebhookSubscription[]> {
  return (await w.subscriptions.list()).filter((s) => s.tenantId === tenantId);
}

function subscriptionTable(subs: WebhookSubscription[]): Html {
  if (subs.length === 0) return html`<p class="muted">No subscriptions (POST /api/v1/admin/webhooks adds one).</p>`;
  return html`<table class="subscriptions"><thead><tr><th>subscription</th><th>url</th><th>events</th><th>enabled</th><th>created</th></tr></thead><tbody>
${subs.map((s) => html`<tr><td><code>${shortId(s.id)}</code>${s.description ? html` <small>${s.description}</small>` : ''}</td><td><code>${s.url}</code></td><td>${s.events?.length ? s.events.join(', ') : 'all'}</td><td>${state(s.enabled ? 'enabled' : 'disabled', s.enabled ? 'ok' : 'bad')}</td><td>${time(s.createdAt)}</td></tr>`)}
</tbody></table>`;
}

async function deliveryRow(w: WebhookDispatcher, d: WebhookDelivery, sub: WebhookSubscription | undefined): Promise<Html> {
  const ev = await w.getEvent(d.eventId);
  const attempts = d.attempts.map((a) => {
    // Re-signed with the subscription's secret as it is now: what the attempt carried unless the secret was rotated since.
    const headers = sub && ev ? webhookHeaders(sub.secret, ev.id, Math.floor(Date.parse(a.at) / 1000), ev.body) : undefined;
    return html`<tr><td>${a.n}</td><td>${time(a.at)}</td><td>${a.status !== undefined ? state(String(a.status), a.status < 300 ? 'ok' : 'bad') : state(a.error ?? 'no answer', 'bad')}</td><td>${a.durationMs} ms</td>
<td>${headers ? html`<code class="headers">${Object.entries(headers).map(([k, v]) => html`${k}: ${v}<br>`)}</code>` : ''}</td></tr>`;
  });
  return html`<details class="delivery" id="d-${d.id.replace(/[^A-Za-z0-9_-]/g, '_')}">
<summary><span class="seq">#${d.sequence ?? '?'}</span> <strong>${ev?.envelope.event ?? d.eventId}</strong> → <code>${shortId(d.subscriptionId)}</code> ${state(d.state)}
<small>${d.attempts.length} attempt${d.attempts.length === 1 ? '' : 's'}${d.lastError ? ` · ${d.lastError}` : ''}${d.nextAttemptAt ? ` · next ${new Date(d.nextAttemptAt).toISOString().slice(11, 23)}` : ''}</small></summary>
<table class="attempts"><thead><tr><th>#</th><th>at</th><th>status</th><th>took</th><th>signature headers</th></tr></thead><tbody>${attempts}</tbody></table>
${ev ? jsonBlock(JSON.parse(ev.body), 'payload') : ''}
${d.state !== 'pending'
  ? html`<form method="post" action="/console/webhooks/deliveries/${encodeURIComponent(d.id)}/redeliver"><button type="submit">Redeliver</button></form>`
  : ''}
</details>`;
}

async function deliveriesBySubject(w: WebhookDispatcher, subs: WebhookSubscription[]): Promise<Html> {
  const ids = new Map(subs.map((s) => [s.id, s]));
  const all = (await w.deliveries()).filter((d) => ids.has(d.subscriptionId)).slice(-MAX_DELIVERIES);
  if (all.length === 0) return html`<p class="muted">No deliveries yet.</p>`;
  const groups = new Map<string, WebhookDelivery[]>();
  for (const d of all) {
    const k = d.subjectKey ?? '(no subject)';
    groups.set(k, [...(groups.get(k) ?? []), d]);
  }
  const sections = await Promise.all(
    [...groups].map(async ([subject, list]) => {
      list.sort((a, b) => a.subscriptionId.localeCompare(b.subscriptionId) || (a.sequence ?? 0) - (b.sequence ?? 0));
      return html`<article class="subject"><h3>${subject.replace(/^[^/]*\//, '')}</h3>${await Promise.all(list.map((d) => deliveryRow(w, d, ids.get(d.subscriptionId))))}</article>`;
    }),
  );
  return html`${sections}`;
}

export function registerWebhooksView(scope: FastifyInstance, ctx: ServiceConsoleContext): void {
  scope.get('/console/webhooks', { schema: { hide: true } }, async (request, reply) => {
    const tenantId = principalOf(request).tenantId;
    const w = dispatcherOf(ctx);
    const subs = await subscriptionsOf(w, tenantId);
    const region = liveRegion('webhooks', '/console/webhooks?fragment=1', html`<h2>Subscriptions</h2>${subscriptionTable(subs)}<h2>Deliveries, per subject in order</h2>${await deliveriesBySubject(w, subs)}`);
    if ((request.query as Record<string, unknown>).fragment) return sendHtml(reply, region);
    const body = html`<h1>Webhooks</h1>${region}`;
    return sendHtml(reply, renderPage(ctx, request, { title: 'Webhooks', active: 'webhooks', stream: '/console/stream/changes', body }));
  });

  scope.post('/console/webhooks/deliveries/:id/redeliver', { schema: { hide: true } }, async (request, reply) => {
    assertSameOrigin(request);
    const tenantId = principalOf(request).tenantId;
    const w = dispatcherOf(ctx);
    const { id } = request.params as { id: string };
    const subs = new Set((await subscriptionsOf(w, tenantId)).map((s) => s.id));
    const d = (await w.attempts(id.split(':')[0] ?? '')).find((x) => x.id === id);
    if (!d || !subs.has(d.subscriptionId)) throw problem('not_found', `no webhook delivery ${id}`);
    await w.redeliver(id);
    return reply.code(303).header('location', '/console/webhooks').send();
  });
}
