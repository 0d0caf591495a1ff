// HTML from template literals, escaped by default: every value interpolated into `html` is text
// unless it is itself Html (a fragment built the same way, or raw() for markup made elsewhere,
// such as an SVG from the sequence diagram or the QR code library). Arrays are joined; null,
// undefined and false render as nothing.
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type HtmlValue = Html | string | number | boolean | null | undefined | HtmlValue[];

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function render(v: HtmlValue): string {
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => (out += render(v) + strings[i + 1]!));
  return new Html(out);
}

/** Markup that is already safe (made by code, never from what a peer or user sent). */
export function raw(markup: string): Html {
  return new Html(markup);
}

/** A query string from the entries that have a value (`?a=1&b=2`, or '' when none). */
export function query(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** JSON, indented, for a <pre>. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? '';
}
