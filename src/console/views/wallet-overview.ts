// A wallet's flows: its identity (and, behind a mediator, that mediator and how the wallet
// collects there: live or polling), its Data Pipes (connections), its protocol threads with their
// state and a link to their messages, the credentials it holds or refused, and what waits for the
// user's approval. Live.
import type { FastifyInstance } from 'fastify';
import type { Wallet } from '../../wallet/wallet.js';
import { sendHtml } from '../auth.js';
import { renderPage, type ConsoleContext } from '../context.js';
import { html, type Html } from '../html.js';
import { did, endpoint, shortId, state, time } from './format.js';
import { liveRegion } from './live-region.js';

async function overview(wallet: Wallet): Promise<Html> {
  const [connections, threads, credentials, rejected, pending] = await Promise.all([
    wallet.connections(), wallet.threads(), wallet.credentials(), wallet.rejectedCredentials(), wallet.pending(),
  ]);
  const m = wallet.mediation;
  const collecting = wallet.collecting;
  const mediation = m
    ? html`<tr><th>mediator</th><td>${did(m.mediator)}</td><th>mediation</th><td>coordinate-mediation ${m.version ?? '?'}, ${state(m.state, m.state === 'registered' ? 'ok' : 'busy')}, ${m.form === 'did' ? 'its DID as the endpoint' : 'its URI and routing key'}${collecting ? html`; collecting ${state(collecting, collecting === 'live' ? 'ok' : 'busy')}` : ''}</td></tr>`
    : '';
  const thread = (thid: string) => html`<a href="/console/threads/${encodeURIComponent(thid)}"><code title="${thid}">${shortId(thid)}</code></a>`;
  return html`<table class="facts">
<tr><th>DID</th><td>${did(wallet.did)}</td><th>endpoint</th><td>${wallet.identity.endpoint !== undefined ? endpoint(wallet.identity.endpoint) : html`<code>none (pickup and live delivery)</code>`}</td></tr>
${mediation}</table>
<h2>Data Pipes</h2>
${connections.length
  ? html`<table><thead><tr><th>with</th><th>state</th><th>thread</th><th>since</th><th>updated</th></tr></thead><tbody>${connections.map((c) => html`<tr><td>${did(c.theirDid)}</td><td>${state(c.state)}</td><td>${thread(c.id)}</td><td>${time(c.createdAt)}</td><td>${time(c.updatedAt)}</td></tr>`)}</tbody></table>`
  : html`<p class="muted">No Data Pipe yet: accept an invitation (idsync wallet accept URL).</p>`}
<h2>Waiting for approval</h2>
${pending.length
  ? html`<table class="pending"><thead><tr><th>id</th><th>what</th><th>from</th><th>thread</th><th>received</th></tr></thead><tbody>${pending.map((p) => html`<tr><td><code class="pending-id">${p.id}</code></td><td>${p.kind}${p.goalCode ? ` (${p.goalCode})` : ''}</td><td>${did(p.from)}</td><td>${thread(p.thid)}</td><td>${time(p.receivedAt)}</td></tr>`)}</tbody></table>`
  : html`<p class="muted">Nothing waits.</p>`}
<h2>Protocol threads</h2>
${threads.length
  ? html`<table><thead><tr><th>thread</th><th>protocol</th><th>role</th><th>state</th><th>with</th><th>messages</th><th>updated</th></tr></thead><tbody>${[...threads]
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
      .map((t) => html`<tr><td>${thread(t.thid)}</td><td>${t.protocol}</td><td>${t.role}</td><td>${state(t.state)}</td><td>${did(t.peer)}</td><td>${t.messages.length}</td><td>${time(t.updatedAt)}</td></tr>`)}</tbody></table>`
  : html`<p class="muted">No threads yet.</p>`}
<h2>Credentials</h2>
${credentials.length + rejected.length
  ? html`<table><thead><tr><th>credential</th><th>issuer</th><th>status</th><th>format</th><th>claims</th><th>received</th><th>thread</th></tr></thead><tbody>
${credentials.map((c) => html`<tr><td><code>${c.id}</code></td><td>${did(c.issuer)}</td><td>${state(c.status)}</td><td>${c.format}</td><td>${Object.keys(c.claims).join(', ')}</td><td>${time(c.receivedAt)}</td><td>${thread(c.thid)}</td></tr>`)}
${rejected.map((r) => html`<tr><td><code>${r.id ?? r.key}</code></td><td>${did(r.issuer)}</td><td>${state('rejected', 'bad')} <small>${r.failedCheck}</small></td><td></td><td></td><td>${time(r.receivedAt)}</td><td>${thread(r.thid)}</td></tr>`)}
</tbody></table>`
  : html`<p class="muted">No credentials yet.</p>`}`;
}

export function registerWalletOverview(scope: FastifyInstance, ctx: ConsoleContext, wallet: Wallet): void {
  scope.get('/console/overview', { schema: { hide: true } }, async (request, reply) => {
    const region = liveRegion('overview', '/console/overview?fragment=1', await overview(wallet));
    if ((request.query as Record<string, unknown>).fragment) return sendHtml(reply, region);
    const body = html`<h1>Wallet <code>${wallet.shortDid}</code></h1>${region}`;
    return sendHtml(reply, renderPage(ctx, request, { title: 'Wallet', active: 'overview', stream: '/console/stream/changes', body }));
  });
}
