// Faults, live: the twin's DIDComm fault plan (testing/fault-plan.ts) turned on and off while it
// runs, and every fault applied, linked to the message it hit. 'to-wallet' is what the service
// sends (and the replies that come back to it), 'to-service' what reaches the service.
import type { FastifyInstance } from 'fastify';
import { toIdsyncError } from '../../errors.js';
import { problem } from '../../service/http/problem.js';
import type { FaultKind, FaultRule } from '../../testing/fault-plan.js';
import { sendHtml } from '../auth.js';
import { renderPage } from '../context.js';
import { html, query, type Html } from '../html.js';
import type { NotedFault } from '../message-feed.js';
import { assertSameOrigin } from '../security.js';
import type { ServiceConsoleContext } from '../service-context.js';
import { shortType, time } from './format.js';
import { faultBadge } from './message-row.js';
import { liveRegion } from './live-region.js';

/** The faults a person can turn on here: what a message in flight can suffer. */
export const CONSOLE_FAULTS: readonly FaultKind[] = ['drop', 'duplicate', 'delay', 'reorder', 'tamper'];
const DIRECTIONS = ['to-wallet', 'to-service'] as const;

const num = (v: unknown, min: number, max: number): number | undefined => {
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max) throw problem('invalid_request', `a number in [${min}, ${max}] was expected: ${v}`);
  return n;
};

/** The rule a submitted form describes; bad values are 400 invalid_request. */
export function ruleOfForm(body: Record<string, unknown>): FaultRule {
  const fault = body.fault;
  if (typeof fault !== 'string' || !(CONSOLE_FAULTS as readonly string[]).includes(fault)) throw problem('invalid_request', `fault must be one of ${CONSOLE_FAULTS.join(', ')}`);
  const direction = body.direction;
  if (direction !== undefined && direction !== '' && !(DIRECTIONS as readonly unknown[]).includes(direction)) throw problem('invalid_request', `direction must be ${DIRECTIONS.join(' or ')}`);
  const type = typeof body.type === 'string' && body.type.trim() !== '' ? body.type.trim().slice(0, 256) : undefined;
  const times = num(body.times, 1, 1000);
  const probability = num(body.probability, 0, 1);
  const delayMs = num(body.delayMs, 0, 60_000);
  return {
    fault: fault as FaultKind,
    ...(typeof direction === 'string' && direction !== '' ? { direction } : {}),
    ...(type ? { type } : {}),
    ...(times !== undefined ? { times } : {}),
    ...(probability !== undefined ? { probability } : {}),
    ...(delayMs !== undefined ? { delayMs } : {}),
  };
}

/** The fields of the form, as a person typed them: what a form sent back after a bad value shows again. */
const FIELDS = ['fault', 'direction', 'type', 'times', 'probability', 'delayMs'] as const;
type Typed = Partial<Record<(typeof FIELDS)[number], string>>;

function typedIn(fields: Record<string, unknown>): Typed {
  const out: Typed = {};
  for (const k of FIELDS) if (typeof fields[k] === 'string') out[k] = (fields[k] as string).slice(0, 256);
  return out;
}

function describe(r: FaultRule): string {
  const parts = [
    r.fault,
    r.type ? `messages of type ${String(r.type)}` : 'every message',
    r.direction ? r.direction : 'either way',
    r.times !== undefined ? `${r.times} time${r.times === 1 ? '' : 's'}` : 'every time',
    r.probability !== undefined ? `with probability ${r.probability}` : '',
    r.fault === 'delay' ? `${r.delayMs ?? 50} ms` : '',
  ];
  return parts.filter(Boolean).join(', ');
}

function appliedList(faults: NotedFault[]): Html {
  if (faults.length === 0) return html`<p class="muted">No fault applied yet.</p>`;
  return html`<table class="faults"><thead><tr><th>#</th><th>at</th><th>fault</th><th>stream</th><th>message</th><th></th></tr></thead><tbody>
${[...faults].reverse().map((f) => html`<tr><td>${f.seq}</td><td>${time(f.at)}</td><td>${faultBadge(f)}</td><td>${f.direction}</td><td>${shortType(f.type)} <small>${f.mediaType}</small></td>
<td>${f.record ? html`<a href="/console/messages/${f.record}">logged message</a>` : html`<span class="muted">not logged by the service</span>`}</td></tr>`)}
</tbody></table>`;
}

/**
 * `typed`: what was sent with a bad value, shown again; otherwise the form's defaults. The form's
 * fields are kept as they are when the live part refreshes (htmx `hx-preserve`, by id): what is
 * being typed or chosen, and the focus and caret, survive other activity on the twin, while the
 * rules in force, the state and the button around them are refreshed.
 */
function planSection(ctx: ServiceConsoleContext, typed?: Typed): Html {
  const current = ctx.faults?.current;
  const selected = (value: string, was: string | undefined) => (was === value ? html` selected` : '');
  return html`<section class="plan">
<h2>Fault plan: ${current ? html`<span class="state state-bad" id="fault-state">on</span>` : html`<span class="state state-ok" id="fault-state">off</span>`}</h2>
${current ? html`<ul>${current.rules.map((r) => html`<li>${describe(r)}</li>`)}</ul>
<form method="post" action="/console/faults/off"><button type="submit" id="faults-off">Turn faults off</button></form>` : ''}
<form method="post" action="/console/faults" class="fault-form">
<label>Fault <select name="fault" id="fault-fault" hx-preserve>${CONSOLE_FAULTS.map((k) => html`<option${selected(k, typed?.fault)}>${k}</option>`)}</select></label>
<label>Stream <select name="direction" id="fault-direction" hx-preserve><option value="">either</option>${DIRECTIONS.map((d) => html`<option${selected(d, typed?.direction)}>${d}</option>`)}</select></label>
<label>Message type <input name="type" id="fault-type" hx-preserve placeholder="e.g. issue-credential/3.0/offer-credential" value="${typed?.type ?? ''}"></label>
<label>Times <input name="times" id="fault-times" hx-preserve inputmode="numeric" value="${typed ? (typed.times ?? '') : '1'}"></label>
<label>Probability <input name="probability" id="fault-probability" hx-preserve inputmode="decimal" placeholder="1" value="${typed?.probability ?? ''}"></label>
<label>Delay (ms) <input name="delayMs" id="fault-delayMs" hx-preserve inputmode="numeric" placeholder="50" value="${typed?.delayMs ?? ''}"></label>
<button type="submit" class="primary" id="faults-on">${current ? 'Add this rule' : 'Turn on'}</button>
</form>
<p class="hint">A dropped message the peer never answers is sent again by its sender's retries (after the liveness delay when the endpoint had accepted it); a tampered one fails to open and is sent again the same way.</p>
</section>`;
}

export function registerFaultsView(scope: FastifyInstance, ctx: ServiceConsoleContext): void {
  const sw = () => {
    if (!ctx.faults) throw problem('not_found', 'this twin was started without a fault switch');
    return ctx.faults;
  };

  scope.get('/console/faults', { schema: { hide: true } }, async (request, reply) => {
    const q = request.query as Record<string, unknown>;
    const failed = q.failed;
    // After a bad value, the form shows what was typed, here and when the live part refreshes.
    const typed = typeof failed === 'string' ? typedIn(q) : undefined;
    const region = liveRegion('faults', `/console/faults${query({ ...typed, failed: typeof failed === 'string' ? failed : undefined, fragment: '1' })}`, html`${ctx.faults ? planSection(ctx, typed) : html`<p class="muted">This twin was started without a fault switch: faults cannot be turned on here.</p>`}<h2>Applied</h2>${appliedList(ctx.feed.faults())}`);
    if (q.fragment) return sendHtml(reply, region);
    const body = html`<h1>Faults</h1>
${typeof failed === 'string' ? html`<p class="error" role="alert">${failed}</p>` : ''}
<p class="lead">Faults on the DIDComm messages of the running twin; their effect shows in the <a href="/console/messages">message view</a>.</p>
${region}`;
    return sendHtml(reply, renderPage(ctx, request, { title: 'Faults', active: 'faults', stream: '/console/stream/changes', body }));
  });

  scope.post('/console/faults', { schema: { hide: true } }, async (request, reply) => {
    assertSameOrigin(request);
    const faults = sw();
    const form = (request.body ?? {}) as Record<string, unknown>;
    try {
      const rule = ruleOfForm(form);
      // The rules already on keep what they did: a spent `times` stays spent.
      faults.add(rule);
    } catch (err) {
      const e = toIdsyncError(err);
      return reply.code(303).header('location', `/console/faults${query({ failed: `${e.code}: ${e.message}`, ...typedIn(form) })}`).send();
    }
    ctx.hub.changed();
    return reply.code(303).header('location', '/console/faults').send();
  });

  scope.post('/console/faults/off', { schema: { hide: true } }, async (request, reply) => {
    assertSameOrigin(request);
    sw().off();
    ctx.hub.changed();
    return reply.code(303).header('location', '/console/faults').send();
  });
}
