// The outbox, like a test inbox: the e-mails and SMS the twin sent (or recorded, without a
// transport), newest first; one message rendered and raw, with its invitation link and the link's
// QR code, and a button that accepts the invitation with the console's in-process wallet and goes
// to the flow that follows.
import type { FastifyInstance } from 'fastify';
import QRCode from 'qrcode';
import { toIdsyncError } from '../../errors.js';
import type { OutboxEntry } from '../../service/issuance/invitation-outbox.js';
import { problem } from '../../service/http/problem.js';
import { principalOf, sendHtml } from '../auth.js';
import { renderPage } from '../context.js';
import { html, raw, query, type Html } from '../html.js';
import { assertSameOrigin } from '../security.js';
import type { ServiceConsoleContext } from '../service-context.js';
import { recipient, shortId, state, time } from './format.js';
import { liveRegion } from './live-region.js';

function outboxOf(ctx: ServiceConsoleContext) {
  const o = ctx.deps.issuance?.outbox;
  if (!o) throw problem('not_found', 'this service has no outbox');
  return o;
}

async function entryOf(ctx: ServiceConsoleContext, tenantId: string | undefined, id: string): Promise<OutboxEntry> {
  const e = await outboxOf(ctx).get(id);
  if (!e || e.tenantId !== tenantId) throw problem('not_found', `no outbox entry ${id}`);
  return e;
}

/** The message as the outbox recorded it, in the layout of an Internet message (RFC 5322 §2.1). */
export function rawMessage(e: OutboxEntry): string {
  const headers = [
    `To: ${e.to}`,
    ...(e.subject !== undefined ? [`Subject: ${e.subject}`] : []),
    `Date: ${new Date(e.sentAt).toUTCString()}`,
    ...(e.messageId ? [`Message-ID: ${e.messageId}`] : []),
    `X-Idsync-Channel: ${e.channel}`,
    `X-Idsync-Status: ${e.status}${e.error ? ` (${e.error.code})` : ''}`,
    ...(e.workflowId ? [`X-Idsync-Workflow: ${e.workflowId}`] : []),
  ];
  return `${headers.join('\r\n')}\r\n\r\n${e.text}`;
}

/** The text with its URLs as links (the only markup an outbox message gets). */
function linkified(text: string): Html {
  const parts = text.split(/(https?:\/\/[^\s<>"]+)/g);
  return html`${parts.map((p, i) => (i % 2 === 1 ? html`<a href="${p}" class="invitation-link">${p}</a>` : p))}`;
}

function outboxTable(list: OutboxEntry[]): Html {
  if (list.length === 0) return html`<p class="muted">Nothing sent yet. Issuance invitations sent by EMAIL or SMS land here.</p>`;
  return html`<table class="outbox"><thead><tr><th>sent</th><th>channel</th><th>to</th><th>subject</th><th>status</th><th>workflow</th></tr></thead><tbody>
${list.map((e) => html`<tr>
<td>${time(e.sentAt)}</td><td>${e.channel}</td>
<td><a href="/console/outbox/${encodeURIComponent(e.id)}">${recipient(e.to)}</a></td>
<td>${e.subject ?? html`<span class="muted">${e.text.slice(0, 60)}</span>`}</td>
<td>${state(e.status)}</td>
<td>${e.workflowId ? html`<a href="/console/workflows/${encodeURIComponent(e.workflowId)}"><code>${shortId(e.workflowId)}</code></a>` : ''}</td>
</tr>`)}
</tbody></table>`;
}

async function entryBody(ctx: ServiceConsoleContext, e: OutboxEntry): Promise<Html> {
  const qr = await QRCode.toString(e.invitationUrl, { type: 'svg', errorCorrectionLevel: 'L', margin: 2 });
  return html`<div class="mail">
<dl class="mail-head">
<dt>To</dt><dd>${recipient(e.to)}</dd>
${e.subject !== undefined ? html`<dt>Subject</dt><dd class="subject">${e.subject}</dd>` : ''}
<dt>Sent</dt><dd>${time(e.sentAt)} ${state(e.status)}${e.error ? html` <code>${e.error.code}</code> ${e.error.message}` : ''}</dd>
<dt>Channel</dt><dd>${e.channel}</dd>
</dl>
<div class="mail-body">${linkified(e.text)}</div>
</div>
<section class="invitation">
<div class="qr" role="img" aria-label="QR code of the invitation link">${raw(qr)}</div>
<div>
<p>Invitation link: <a class="invitation-link" href="${e.invitationUrl}">${e.invitationUrl.length > 90 ? `${e.invitationUrl.slice(0, 90)}…` : e.invitationUrl}</a></p>
<form method="post" action="/console/outbox/${encodeURIComponent(e.id)}/accept">
<button type="submit" class="primary" id="accept">Accept with the in-process wallet</button>
</form>
<p class="hint">The console's own wallet (in this process) accepts the invitation as a user would; the workflow page then shows the flow that follows.</p>
${e.workflowId ? html`<p><a href="/console/workflows/${encodeURIComponent(e.workflowId)}">The workflow</a></p>` : ''}
</div>
</section>
<details class="raw"><summary>Raw</summary><pre>${rawMessage(e)}</pre></details>`;
}

export function registerOutboxView(scope: FastifyInstance, ctx: ServiceConsoleContext): void {
  scope.get('/console/outbox', { schema: { hide: true } }, async (request, reply) => {
    const tenantId = principalOf(request).tenantId;
    const list = (await outboxOf(ctx).list({ ...(tenantId ? { tenantId } : {}), limit: 500 })).reverse();
    const region = liveRegion('outbox', '/console/outbox?fragment=1', outboxTable(list));
    if ((request.query as Record<string, unknown>).fragment) return sendHtml(reply, region);
    const body = html`<h1>Outbox</h1><p class="lead">E-mail and SMS the twin sent, newest first.</p>${region}`;
    return sendHtml(reply, renderPage(ctx, request, { title: 'Outbox', active: 'outbox', stream: '/console/stream/changes', body }));
  });

  scope.get('/console/outbox/:id', { schema: { hide: true } }, async (request, reply) => {
    const tenantId = principalOf(request).tenantId;
    const { id } = request.params as { id: string };
    const e = await entryOf(ctx, tenantId, id);
    const region = liveRegion('entry', `/console/outbox/${encodeURIComponent(id)}?fragment=1`, await entryBody(ctx, e));
    if ((request.query as Record<string, unknown>).fragment) return sendHtml(reply, region);
    const note = (request.query as Record<string, unknown>).failed;
    const body = html`<h1>${e.channel === 'EMAIL' ? 'E-mail' : e.channel === 'SMS' ? 'SMS' : 'Message'} to ${recipient(e.to)}</h1>${typeof note === 'string' ? html`<p class="error" role="alert">Not accepted: ${note}</p>` : ''}${region}`;
    return sendHtml(reply, renderPage(ctx, request, { title: `Outbox: ${e.to}`, active: 'outbox', stream: '/console/stream/changes', body }));
  });

  scope.post('/console/outbox/:id/accept', { schema: { hide: true } }, async (request, reply) => {
    assertSameOrigin(request);
    const tenantId = principalOf(request).tenantId;
    const { id } = request.params as { id: string };
    const e = await entryOf(ctx, tenantId, id);
    try {
      const wallet = await ctx.wallet();
      const accepted = await wallet.acceptInvitation(e.invitationUrl, { timeoutMs: 30_000 });
      // The credential follows in the background; the workflow page shows it arrive.
      if (accepted.kind === 'issuance') accepted.done.catch(() => undefined);
    } catch (err) {
      const failure = toIdsyncError(err);
      return reply.code(303).header('location', `/console/outbox/${encodeURIComponent(id)}${query({ failed: `${failure.code}: ${failure.message}`.slice(0, 300) })}`).send();
    }
    const next = e.workflowId ? `/console/workflows/${encodeURIComponent(e.workflowId)}` : `/console/outbox/${encodeURIComponent(id)}`;
    return reply.code(303).header('location', next).send();
  });
}
