// How a quote of the rule catalogue is found in the spec text it names: both are reduced to their
// words (markdown links to their text, emphasis and code marks dropped, HTML entities decoded,
// whitespace collapsed), and each part of the quote between "…" appears in the text, in order.
import { KEYWORDS, type Keyword } from '../../src/conformance/rule-row.js';

const ENTITIES: Record<string, string> = { '&mdash;': '—', '&ndash;': '–', '&lt;': '<', '&gt;': '>', '&amp;': '&', '&nbsp;': ' ', '&rsquo;': '’' };

export function normaliseSpecText(text: string): string {
  return text
    .replace(/&[a-z]+;/g, (e) => ENTITIES[e] ?? e)
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // [text](url) and ![alt](url)
    .replace(/!?\[([^\]]*)\]/g, '$1') // a link whose target is cut by an ellipsis
    .replace(/[`*]/g, '')
    .replace(/(^|[\s(])_([^_\s][^_]*?)_(?=[\s.,;:)!?]|$)/g, '$1$2')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The parts of `quote` (split at "…") that are not found, in order, in `text`. */
export function missingParts(quote: string, text: string): string[] {
  const hay = normaliseSpecText(text);
  let from = 0;
  const missing: string[] = [];
  for (const part of quote.split('…').map(normaliseSpecText).filter((p) => p.length > 0)) {
    const at = hay.indexOf(part, from);
    if (at < 0) missing.push(part);
    else from = at + part.length;
  }
  return missing;
}

/** The RFC 2119 keywords written in `quote` (MUST inside MUST NOT is not counted as MUST). */
export function keywordsIn(quote: string): Keyword[] {
  const text = normaliseSpecText(quote);
  const found: Keyword[] = [];
  let rest = text;
  for (const k of KEYWORDS) {
    const re = new RegExp(`(^|[^A-Z])${k}(?![A-Z])`, 'g');
    if (re.test(rest)) {
      found.push(k);
      rest = rest.replace(re, '$1 ');
    }
  }
  return found;
}

/** The headings of a markdown text, reduced like quotes; for a plain text file, its lines. */
export function headingsOf(text: string, markdown: boolean): string[] {
  const lines = text.split('\n');
  if (!markdown) return lines.map(normaliseSpecText);
  return lines.filter((l) => /^#{1,6}\s/.test(l)).map((l) => normaliseSpecText(l.replace(/^#+\s*/, '')));
}
