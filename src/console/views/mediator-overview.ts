// The standalone mediator as its console shows it: its DID and invitation, its policy and limits,
// the parties it mediates for (their grant, the DIDs they registered, whether they are live) and
// what waits in each recipient's queue. Live: it is drawn again when the mediator's state changes.
// A mediator may serve thousands of parties (a fleet's wallets): each table shows the first
// MAX_ROWS and says how many there are.
import type { FastifyInstance } from 'fastify';
import type { MediatorAgent } from '../../mediator/agent.js';
import { sendHtml } from '../auth.js';
import { renderPage, type ConsoleContext } from '../context.js';
import { html, type Html } from '../html.js';
import { did, state, time } from './format.js';
import { liveRegion } from './live-region.js';

export const MAX_ROWS = 200;

const iso = (ms: number) => new Date(ms).toISOString();
const kb = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`);

async function overview(m: MediatorAgent): Promise<Html> {
  const { keylist, queue, live, policy } = m.mediator;
  const [{ grants, total: grantCount }, recipients] = await Promise.all([keylist.grants(MAX_ROWS), queue.recipients()]);
  const parties = await Promise.all(grants.map(async (grant) => ({ grant, dids: (await keylist.recipientsOf(grant.did)).length, live: live.has(grant.did) })));
  const queues = await Promise.all(
    recipients.slice(0, MAX_ROWS).map(async (r) => {
      const slots = await queue.waiting(r);
      return { recipient: r, count: slots.length, bytes: slots.reduce((n, s) => n + s.size, 0), oldest: slots.length ? Math.min(...slots.map((s) => s.queuedAt)) : undefined };
    }),
  );
  const waiting = queues.filter((q) => q.count > 0);
  const more = (shown: number, total: number, what: string) => (total > shown ? html`<p class="muted">The first ${shown} of ${total} ${what}.</p>` : '');
  return html`<table class="facts">
<tr><th>DID</th><td>${did(m.did)}</td><th>invitation</th><td><a href="${m.shortInvitationUrl}"><code>${m.shortInvitationUrl}</code></a></td></tr>
<tr><th>limits</th><td colspan="3">${policy.maxKeys} recipient DIDs per party · queue ${policy.maxQueue} messages per recipient · messages up to ${kb(policy.maxMessageBytes)} · delay_milli up to ${Math.round(policy.maxDelayMs / 1000)} s · forwards onwards ${policy.onwards ? 'on' : 'off'}${policy.deny.length ? html` · denied: ${policy.deny.map((d) => html`<code>${d}</code> `)}` : ''}</td></tr>
</table>
<h2>Parties mediated for</h2>
${parties.length
  ? html`<table><thead><tr><th>party</th><th>coordinate-mediation</th><th>granted</th><th>DIDs registered</th><th>live</th></tr></thead><tbody>${parties.map(
      (p) => html`<tr><td>${did(p.grant.did)}</td><td>${p.grant.version}</td><td>${time(p.grant.grantedAt)}</td><td>${p.dids}</td><td>${p.live ? state('live', 'ok') : html`<span class="muted">no</span>`}</td></tr>`,
    )}</tbody></table>${more(parties.length, grantCount, 'parties')}`
  : html`<p class="muted">Nobody asked for mediation yet: give a wallet the invitation (idsync wallet create --mediator URL).</p>`}
<h2>Waiting messages</h2>
${waiting.length
  ? html`<table><thead><tr><th>recipient</th><th>messages</th><th>size</th><th>oldest</th></tr></thead><tbody>${waiting.map(
      (q) => html`<tr><td>${did(q.recipient)}</td><td>${q.count}</td><td>${kb(q.bytes)}</td><td>${q.oldest !== undefined ? time(iso(q.oldest)) : ''}</td></tr>`,
    )}</tbody></table>${more(queues.length, recipients.length, 'recipients with a queue')}`
  : html`<p class="muted">Nothing waits: every forwarded message was picked up and confirmed.</p>`}`;
}

export function registerMediatorOverview(scope: FastifyInstance, ctx: ConsoleContext, m: MediatorAgent): void {
  scope.get('/console/overview', { schema: { hide: true } }, async (request, reply) => {
    const region = liveRegion('overview', '/console/overview?fragment=1', await overview(m));
    if ((request.query as Record<string, unknown>).fragment) return sendHtml(reply, region);
    const body = html`<h1>Mediator</h1>${region}`;
    return sendHtml(reply, renderPage(ctx, request, { title: 'Mediator', active: 'overview', stream: '/console/stream/changes', body }));
  });
}
