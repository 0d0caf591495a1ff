// Small pieces every view uses: times, DIDs and message types cut to what fits a row, verdict
// badges, and JSON shown with private material withheld.
import { shortForm } from '../../did/short-form.js';
import { shortType } from '../../harness/sequence.js';
import { html, prettyJson, type Html } from '../html.js';
import { redact } from '../redact.js';
import type { Verdict } from '../verdicts.js';

export { shortType };

/** `12:03:04.567` (UTC) of an ISO time; the whole ISO time in the title. */
export function time(iso: string | undefined): Html {
  if (!iso) return html`<span class="muted">–</span>`;
  return html`<time datetime="${iso}" title="${iso}">${iso.slice(11, 23)}</time>`;
}

/** `2026-12-29 12:03:04` (UTC) of an ISO time, for times not of today (an expiry); the whole ISO time in the title. */
export function dateTime(iso: string | undefined): Html {
  if (!iso) return html`<span class="muted">–</span>`;
  return html`<time datetime="${iso}" title="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 19)}</time>`;
}

/** A DID short enough for a cell: its short form (did:ion, did:peer:4), cut in the middle; the whole DID in the title. */
export function did(value: string | undefined): Html {
  if (!value) return html`<span class="muted">–</span>`;
  const s = shortForm(value);
  const cut = s.length > 34 ? `${s.slice(0, 20)}…${s.slice(-8)}` : s;
  return html`<code class="did" title="${value}">${cut}</code>`;
}

/** Where a message goes: a URL whole, wrapping where it must, or a DID (a mediator's, hundreds of characters) cut as did() cuts it. */
export function endpoint(value: string): Html {
  return value.startsWith('did:') ? did(value) : html`<code class="url">${value}</code>`;
}

/** Whom an invitation went to: an e-mail address or phone number as it is, a wallet's DID (thousands of characters as a did:peer:2) cut as did() cuts it. */
export function recipient(value: string): Html | string {
  return value.startsWith('did:') ? did(value) : value;
}

export function shortId(id: string | undefined): string {
  if (!id) return '–';
  return id.length > 14 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id;
}

/** The newest `n` of a list kept oldest first, newest first, and how many older ones are left out. */
export function newestOf<T>(oldestFirst: readonly T[], n: number): { newest: T[]; older: number } {
  return { newest: oldestFirst.slice(-n).reverse(), older: Math.max(0, oldestFirst.length - n) };
}

/** Under a list cut to its newest rows: how many older ones it leaves out. */
export function olderNote(older: number, what: string): Html | '' {
  return older > 0 ? html`<p class="muted older">and ${older} older ${what}</p>` : '';
}

export function badge(v: Verdict): Html {
  return html`<span class="verdict verdict-${v}">${v}</span>`;
}

export function state(value: string | undefined, tone?: 'ok' | 'bad' | 'busy'): Html {
  const t = tone ?? (value && /complet|deliver|handled|sent|accepted|valid|established|done/i.test(value) ? 'ok' : value && /fail|dead|refus|reject|undecrypt|expire|abandon|drop/i.test(value) ? 'bad' : 'busy');
  return html`<span class="state state-${t}">${value ?? '–'}</span>`;
}

/** A JSON value in a <pre>, private keys and secrets withheld (redact.ts). */
export function jsonBlock(value: unknown, label?: string): Html {
  return html`<pre class="json"${label ? html` aria-label="${label}"` : ''}>${prettyJson(redact(value))}</pre>`;
}
