// Users: the signed-in tenant's provider users, searchable by user id or wallet DID, with where
// each stands: consent, Data Pipe, link, and whether its datapoints are synced. Live.
import type { FastifyInstance } from 'fastify';
import type { UserRecord } from '../../service/users/users.js';
import { principalOf, sendHtml } from '../auth.js';
import { renderPage } from '../context.js';
import { html, query, type Html } from '../html.js';
import type { ServiceConsoleContext } from '../service-context.js';
import { compareDatapoints, syncSummary } from './datapoints.js';
import { did, state, time } from './format.js';
import { liveRegion } from './live-region.js';

const MAX_USERS = 1000;

/**
 * The tenant's users (at most MAX_USERS) whose id contains `q`; with 8 characters or more, also
 * those whose short DID contains it or whose long-form DID starts with it (a pasted DID). DIDs are
 * base64url: a short needle occurs in them by chance (any two letters in most long forms).
 */
export async function searchUsers(ctx: ServiceConsoleContext, tenantId: string, q: string | undefined): Promise<{ users: UserRecord[]; total: number }> {
  const { users, total } = await ctx.deps.users.list(tenantId, { limit: MAX_USERS });
  const needle = q?.toLowerCase();
  const found = needle
    ? users.filter((u) => u.userId.toLowerCase().includes(needle) || (needle.length >= 8 && (u.shortUserDID?.toLowerCase().includes(needle) || u.userDID?.toLowerCase().startsWith(needle))))
    : users;
  return { users: found, total };
}

const yes = (v: boolean, ok: string, no: string) => state(v ? ok : no, v ? 'ok' : 'busy');

function userTable(users: UserRecord[]): Html {
  if (users.length === 0) return html`<p class="muted">No users.</p>`;
  return html`<table class="users"><thead><tr><th>user</th><th>wallet</th><th>sync consent</th><th>Data Pipe</th><th>linked</th><th>datapoints</th><th>logins</th><th>updated</th></tr></thead><tbody>
${users.map((u) => html`<tr>
<td><a href="/console/users/${encodeURIComponent(u.userId)}">${u.userId}</a></td>
<td>${did(u.shortUserDID ?? u.userDID)}</td>
<td>${yes(u.settings.isSyncOn, 'on', 'off')}</td>
<td>${yes(u.isSessionEstablished, 'established', 'none')}</td>
<td>${yes(u.isLinked, 'linked', 'no')}</td>
<td>${syncSummary(compareDatapoints(u.datapoints, u.datapointsSynced))}${u.pendingSync ? ' (sync owed)' : ''}</td>
<td>${u.userLogins}</td>
<td>${time(u.updatedAt)}</td>
</tr>`)}
</tbody></table>`;
}

export function registerUsersView(scope: FastifyInstance, ctx: ServiceConsoleContext): void {
  scope.get('/console/users', { schema: { hide: true } }, async (request, reply) => {
    const tenantId = principalOf(request).tenantId ?? '';
    const raw = (request.query as Record<string, unknown>).q;
    const q = typeof raw === 'string' && raw.trim() !== '' ? raw.trim().slice(0, 256) : undefined;
    const { users, total } = await searchUsers(ctx, tenantId, q);
    const region = liveRegion('users', `/console/users${query({ q, fragment: '1' })}`, html`<p class="count">${q ? `${users.length} of ${total} users match` : `${total} users`}${total > MAX_USERS ? ` (the first ${MAX_USERS} are searched)` : ''}</p>${userTable(users)}`);
    if ((request.query as Record<string, unknown>).fragment) return sendHtml(reply, region);
    const body = html`<h1>Users</h1>
<form class="filters" method="get" action="/console/users"><label>Search <input name="q" value="${q ?? ''}" placeholder="user id or DID" autofocus></label><button type="submit">Search</button>${q ? html` <a href="/console/users">clear</a>` : ''}</form>
${region}`;
    return sendHtml(reply, renderPage(ctx, request, { title: 'Users', active: 'users', stream: '/console/stream/changes', body }));
  });
}
